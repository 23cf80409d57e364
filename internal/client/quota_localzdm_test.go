package client_test

import (
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// The client paces by the quota headers of the local server's every form
// from the first answer, before any refusal; without them (the control) it
// does not pace until refused.
func TestClientPacesByQuotaHeadersBeforeARefusal(t *testing.T) {
	for _, form := range []string{localzdm.QuotaIETF, localzdm.QuotaDraft, localzdm.QuotaX, ""} {
		e := startLocal(t, nil)
		e.srv.SetFaults(localzdm.Faults{RateLimit: 100, RateLimitHeaders: form})
		if _, err := e.c.ListWorkspaces(t.Context()); err != nil {
			t.Fatalf("form %q: %v", form, err)
		}
		if n := e.srv.RateLimited(); n != 0 {
			t.Fatalf("form %q: %d requests refused", form, n)
		}
		// 99 requests left until the bucket is full again in a second: at
		// least 99 a second (more as the reset comes closer).
		if r := e.c.Rate(); form != "" && r < 99 {
			t.Errorf("form %q: pace %g requests a second after one answer, want at least 99", form, r)
		}
		if r := e.c.Rate(); form == "" && r != 0 {
			t.Errorf("without quota headers: pace %g requests a second before any refusal, want none", r)
		}
	}
}
