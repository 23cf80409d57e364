package logging

import (
	"maps"
	"slices"
	"testing"
)

func TestQuietUnreadLogs(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		environ []string
		quiet   bool
	}{
		"no TF_LOG":         {[]string{"HOME=/root", "TF_IN_AUTOMATION=1"}, true},
		"empty TF_LOG":      {[]string{"TF_LOG="}, true},
		"TF_LOG":            {[]string{"TF_LOG=debug"}, false},
		"TF_LOG_PROVIDER":   {[]string{"TF_LOG_PROVIDER=trace"}, false},
		"TF_LOG_SDK_PROTO":  {[]string{"TF_LOG_SDK_PROTO=trace"}, false},
		"TF_LOG_PATH only":  {[]string{"TF_LOG_PATH=/tmp/tf.log"}, false},
		"provider specific": {[]string{"TF_LOG_PROVIDER_ZDM=debug"}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			set := map[string]string{}
			err := QuietUnreadLogs(tc.environ, func(k, v string) error {
				set[k] = v
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !tc.quiet {
				if len(set) != 0 {
					t.Errorf("set %v, want nothing", set)
				}
				return
			}
			if got := slices.Sorted(maps.Keys(set)); !slices.Equal(got, slices.Sorted(slices.Values(quietLogNames))) {
				t.Errorf("set %v, want %v", got, quietLogNames)
			}
			for k, v := range set {
				if v != "off" {
					t.Errorf("%s=%q, want off", k, v)
				}
			}
		})
	}
}

func TestQuietEnv(t *testing.T) {
	t.Parallel()
	env := []string{"HOME=/root"}
	got := QuietEnv(env)
	want := []string{"HOME=/root", "TF_LOG_SDK=off", "TF_LOG_SDK_PROTO=off", "TF_LOG_SDK_FRAMEWORK=off", "TF_LOG_PROVIDER_ZDM=off"}
	if !slices.Equal(got, want) {
		t.Errorf("QuietEnv = %v, want %v", got, want)
	}
	if len(env) != 1 {
		t.Errorf("QuietEnv changed its argument: %v", env)
	}
}
