package devices_test

import (
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// TestAccQuotaSpentFailsTheApplyAtOnce: the service says that the key's
// quota is used up until a reset 20 hours away (X-RateLimit-Remaining: 0,
// X-RateLimit-Reset: 72000 on the refresh's answer). The apply of a new
// device fails at once, naming the reset, the header fields that said so and
// what to do, and sends no create; it does not wait silently for the reset.
func TestAccQuotaSpentFailsTheApplyAtOnce(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	one := acctest.RequiredProviders + e.ProviderConfig() + `
resource "zdm_device" "a" {
  name = "quota-a"
}
`
	c.Write("main.tf", one)
	c.MustRun("init", "-no-color")
	e.Server.ResetCounters()
	c.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	// The control: the counter sees a create.
	if got := e.Server.Counters()[devicePOST]; got != 1 {
		t.Fatalf("the first apply sent %d creates, want 1", got)
	}

	c.Write("main.tf", one+`
resource "zdm_device" "b" {
  name = "quota-b"
}
`)
	e.Server.SetFaults(localzdm.Faults{QuotaSpent: 20 * time.Hour})
	defer e.Server.SetFaults(localzdm.Faults{})
	e.Server.ResetCounters()
	out, code := c.Run("apply", "-auto-approve", "-input=false", "-no-color")
	t.Logf("the apply under a used-up quota ended in %s with exit code %d:\n%s", c.Last.Round(time.Millisecond), code, acctest.Tail(out, 20))
	if code == 0 {
		t.Fatal("the apply succeeded under a used-up quota")
	}
	flat := strings.Join(strings.Fields(out), " ")
	reset := time.Now().Add(20 * time.Hour).UTC().Format("2006-01-02T15:")
	for _, want := range []string{
		"rate limit quota of the API key is used up until " + reset,
		"(X-RateLimit-Remaining: 0, X-RateLimit-Reset: 72000)",
		"would pass the provider setting request_timeout",
		"Run the apply again after",
		"use another API key",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("the apply's error does not say %q", want)
		}
	}
	if got := e.Server.Counters()[devicePOST]; got != 0 {
		t.Errorf("the apply sent %d creates under a used-up quota, want none", got)
	}
}
