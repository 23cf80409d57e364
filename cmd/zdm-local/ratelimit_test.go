package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestParseFlagsRateLimit(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-rate-limit", "-1"}, "-rate-limit must be a finite number >= 0"},
		{[]string{"-rate-limit", "NaN"}, "-rate-limit must be a finite number >= 0"},
		{[]string{"-rate-limit", "20", "-rate-limit-headers", "github"}, `-rate-limit-headers must be "" (none), "ietf", "draft" or "x", got "github"`},
	} {
		if _, err := parseFlags(tc.args, io.Discard); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseFlags(%q) = %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
	c, err := parseFlags([]string{"-rate-limit", "20", "-rate-limit-headers", "draft"}, io.Discard)
	if err != nil || c.faults.RateLimit != 20 || c.faults.RateLimitHeaders != "draft" {
		t.Fatalf("parseFlags(-rate-limit 20 -rate-limit-headers draft) = %+v, %v", c.faults, err)
	}
}

// The server started with -rate-limit and -rate-limit-headers sends the
// quota headers; without the flags it sends none.
func TestRunRateLimitHeaders(t *testing.T) {
	for _, args := range [][]string{{"-rate-limit", "0.1", "-rate-limit-headers", "ietf"}, nil} {
		env, _, stop := start(t, args...)
		req, err := http.NewRequest(http.MethodGet, env["ZDM_BASE_URL"]+"/v3/workspaces", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-API-KEY", env["ZDM_API_KEY"])
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		got := res.Header.Get("RateLimit")
		if want := map[bool]string{true: `"default";r=0;t=10`, false: ""}[args != nil]; got != want {
			t.Errorf("flags %q: RateLimit %q, want %q", args, got, want)
		}
		stop()
	}
}
