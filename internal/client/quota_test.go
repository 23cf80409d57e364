package client

import (
	"net/http"
	"testing"
	"time"
)

func TestParseQuota(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	cases := []struct {
		name   string
		header map[string]string
		want   quota
		ok     bool
	}{
		{"IETF fields", map[string]string{"RateLimit-Policy": `"default";q=20;w=1`, "RateLimit": `"default";r=5;t=1`},
			quota{remaining: 5, reset: time.Second, limit: 20, window: time.Second}, true},
		{"IETF fields without a policy", map[string]string{"RateLimit": `"default";r=5;t=2`},
			quota{remaining: 5, reset: 2 * time.Second}, true},
		{"IETF fields, the tightest of two policies", map[string]string{
			"RateLimit-Policy": `"burst";q=100;w=60, "day";q=1000;w=86400`,
			"RateLimit":        `"burst";r=50;t=30, "day";r=900;t=80000`},
			quota{remaining: 900, reset: 80000 * time.Second, limit: 1000, window: 86400 * time.Second}, true},
		{"IETF fields, a token name and an escaped string", map[string]string{
			"RateLimit-Policy": `"a\"b";q=10;w=1`, "RateLimit": `"a\"b";r=3;t=0, other;r=9;t=1`},
			quota{remaining: 3, limit: 10, window: time.Second}, true},
		{"earlier drafts", map[string]string{"RateLimit-Limit": "20", "RateLimit-Remaining": "7", "RateLimit-Reset": "1"},
			quota{remaining: 7, reset: time.Second, limit: 20}, true},
		{"earlier drafts, a limit naming its window", map[string]string{"RateLimit-Limit": "20, 20;w=2", "RateLimit-Remaining": "7", "RateLimit-Reset": "1"},
			quota{remaining: 7, reset: time.Second, limit: 20}, true},
		{"earlier drafts, a limit with its window", map[string]string{"RateLimit-Limit": "20;w=2", "RateLimit-Remaining": "7", "RateLimit-Reset": "1"},
			quota{remaining: 7, reset: time.Second, limit: 20, window: 2 * time.Second}, true},
		{"X- headers, delta seconds", map[string]string{"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "3"},
			quota{remaining: 0, reset: 3 * time.Second, limit: 60}, true},
		{"X- headers, a Unix time", map[string]string{"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "12", "X-RateLimit-Reset": "1800000010"},
			quota{remaining: 12, reset: 10 * time.Second, limit: 60}, true},
		{"X- headers, a Unix time past", map[string]string{"X-RateLimit-Remaining": "12", "X-RateLimit-Reset": "1799999990"},
			quota{remaining: 12}, true},
		{"a malformed RateLimit falls back to the earlier drafts", map[string]string{"RateLimit": `"default";r=;t=1`, "RateLimit-Remaining": "4", "RateLimit-Reset": "1"},
			quota{remaining: 4, reset: time.Second}, true},
		{"a malformed limit is left out", map[string]string{"X-RateLimit-Limit": "lots", "X-RateLimit-Remaining": "4", "X-RateLimit-Reset": "1"},
			quota{remaining: 4, reset: time.Second}, true},

		{"none", map[string]string{}, quota{}, false},
		{"only a policy", map[string]string{"RateLimit-Policy": `"default";q=20;w=1`}, quota{}, false},
		{"negative remaining", map[string]string{"RateLimit": `"default";r=-1;t=1`}, quota{}, false},
		{"no reset", map[string]string{"RateLimit": `"default";r=5`}, quota{}, false},
		{"a reset over a day", map[string]string{"RateLimit": `"default";r=5;t=90000`}, quota{}, false},
		{"an unterminated string", map[string]string{"RateLimit": `"default;r=5;t=1`}, quota{}, false},
		{"an inner list", map[string]string{"RateLimit": `("a" "b");r=5;t=1`}, quota{}, false},
		{"a trailing comma", map[string]string{"RateLimit": `"default";r=5;t=1,`}, quota{}, false},
		{"garbage", map[string]string{"RateLimit": "\x00\xff;;=="}, quota{}, false},
		{"not a number", map[string]string{"RateLimit-Remaining": "many", "RateLimit-Reset": "1"}, quota{}, false},
		{"NaN", map[string]string{"X-RateLimit-Remaining": "NaN", "X-RateLimit-Reset": "1"}, quota{}, false},
		{"infinite", map[string]string{"X-RateLimit-Remaining": "5", "X-RateLimit-Reset": "Inf"}, quota{}, false},
		{"negative reset", map[string]string{"RateLimit-Remaining": "5", "RateLimit-Reset": "-2"}, quota{}, false},
		{"remaining without a reset", map[string]string{"X-RateLimit-Remaining": "5"}, quota{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			got, ok := parseQuota(h, now)
			if ok && got.said == "" {
				t.Errorf("parseQuota(%v) does not say which header fields it read", tc.header)
			}
			got.said = ""
			if ok != tc.ok || got != tc.want {
				t.Errorf("parseQuota(%v) = %+v, %v; want %+v, %v", tc.header, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// A malformed quota header leaves the pacing as it is without one.
func FuzzParseQuota(f *testing.F) {
	f.Add(`"default";r=5;t=1`, `"default";q=20;w=1`, "7")
	f.Add(`a;r=1;t=0, b;r=2;t=3`, `("x")`, "1800000000")
	f.Fuzz(func(t *testing.T, limit, policy, n string) {
		h := http.Header{"Ratelimit": {limit}, "Ratelimit-Policy": {policy},
			"X-Ratelimit-Remaining": {n}, "X-Ratelimit-Reset": {n}, "X-Ratelimit-Limit": {n}}
		q, ok := parseQuota(h, time.Unix(1_800_000_000, 0))
		if !ok {
			return
		}
		if q.remaining < 0 || q.reset < 0 || q.reset > quotaMaxReset || q.limit < 0 || q.window < 0 || q.window > quotaMaxReset {
			t.Fatalf("parseQuota = %+v", q)
		}
	})
}
