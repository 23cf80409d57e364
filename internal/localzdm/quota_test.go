package localzdm_test

import (
	"net/http"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// Under a rate limit, the quota headers of each form say the limit, the
// requests left in the key's bucket (counted across connections, per key)
// and the seconds until it is full, on 200 and 429 answers alike.
func TestFaultRateLimitHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key2, err := e.s.CreateKey(e.b.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	other := attachEnv(t, e.s) // another connection pool
	other.b.APIKey = e.b.APIKey
	forms := map[string][3]string{ // limit, remaining, reset
		localzdm.QuotaDraft: {"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"},
		localzdm.QuotaX:     {"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"},
	}
	// A bucket of one request refilled in ten seconds: nothing in the test
	// waits for its refill.
	for _, form := range []string{localzdm.QuotaIETF, localzdm.QuotaDraft, localzdm.QuotaX} {
		e.ok(e.admin(http.MethodPut, "/faults", map[string]any{"rate_limit": 0.1, "rate_limit_headers": form}), nil)
		check := func(r resp, status int) {
			t.Helper()
			if r.status != status {
				t.Fatalf("%s: %s, want %d", form, r, status)
			}
			if form == localzdm.QuotaIETF {
				if p, q := r.header.Get("RateLimit-Policy"), r.header.Get("RateLimit"); p != `"default";q=1;w=1` || q != `"default";r=0;t=10` {
					t.Errorf("%s: RateLimit-Policy %q, RateLimit %q; want q=1;w=1 and r=0;t=10", form, p, q)
				}
				return
			}
			h := forms[form]
			if l, left, reset := r.header.Get(h[0]), r.header.Get(h[1]), r.header.Get(h[2]); l != "1" || left != "0" || reset != "10" {
				t.Errorf("%s: limit %q, remaining %q, reset %q; want 1, 0, 10", form, l, left, reset)
			}
		}
		check(e.api(http.MethodGet, "/workspaces", nil), http.StatusOK)
		// The same key on another connection: counted together.
		check(other.api(http.MethodGet, "/workspaces", nil), http.StatusTooManyRequests)
		// Another key: a bucket of its own.
		check(e.do(http.MethodGet, e.s.BaseURL()+"/v3/workspaces", key2, nil), http.StatusOK)
	}
	// Without the setting, or without a limit, no quota header.
	for _, f := range []localzdm.Faults{{RateLimit: 3}, {RateLimitHeaders: localzdm.QuotaIETF}} {
		e.s.SetFaults(f)
		r := e.api(http.MethodGet, "/workspaces", nil)
		for _, h := range []string{"RateLimit", "RateLimit-Policy", "RateLimit-Remaining", "X-RateLimit-Remaining"} {
			if v := r.header.Get(h); v != "" {
				t.Errorf("%+v: %s = %q", f, h, v)
			}
		}
	}
	// The admin API refuses an unknown form, naming the setting.
	r := e.admin(http.MethodPut, "/faults", map[string]any{"rate_limit": 3, "rate_limit_headers": "github"})
	e.fails(r, http.StatusBadRequest, `"rate_limit_headers" must be`)
}
