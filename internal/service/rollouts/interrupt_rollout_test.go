package rollouts_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

const deviceJobPOST = "POST /v3/devices/{device_id}/jobs/{job_name}"

// TestAccInterruptedJobRollout interrupts the apply of a zdm_job_rollout
// of 20 devices with one SIGINT while the job requests of wave 2 are in
// flight (150 ms of server latency, two at a time). The requests already
// sent finish and are recorded in the state; the next apply (a replacement:
// the interrupted create left the resource tainted) sends the job only to
// the devices that do not have it: each device gets it exactly once, and
// the plan after is empty.
func TestAccInterruptedJobRollout(t *testing.T) {
	const n = 20
	env := acctest.New(t, acctest.ProviderServer(t))
	fleet, ids := acctest.NewFleetDevices(t, env, "sensors", n)
	if err := env.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	c := acctest.NewCLI(t)
	c.Write("main.tf", acctest.RequiredProviders+env.ProviderConfig()+fmt.Sprintf(`
resource "zdm_job_rollout" "r" {
  workspace_id  = %q
  fleet_ids     = [%q]
  name          = "reboot"
  value         = { reason = "interrupt" }
  waves         = ["10%%", "50%%", "100%%"]
  wave_timeout  = "60s"
  poll_interval = "100ms"
  parallelism   = 2
}
`, env.Bootstrap.WorkspaceID, fleet))
	c.MustRun("init", "-input=false", "-no-color")
	env.Server.SetFaults(localzdm.Faults{Latency: 150 * time.Millisecond})
	env.Server.ResetCounters()

	cmd, err := c.S.Start(t.Context(), "apply", "-auto-approve", "-input=false", "-no-color")
	if err != nil {
		t.Fatal(err)
	}
	// Wave 1 holds 2 devices: the 4th job request is one of wave 2.
	for env.Server.Counters()[deviceJobPOST] < 4 {
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Signal(os.Interrupt); err != nil {
		t.Fatalf("signal the CLI: %v", err)
	}
	res, err := cmd.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == 0 || !strings.Contains(res.Output, "Interrupt received") {
		t.Fatalf("the apply was not interrupted (exit %d):\n%s", res.ExitCode, res.Output)
	}
	sent := env.Server.Counters()[deviceJobPOST]
	api := acctest.APIClient(t, env)
	have := 0
	for _, id := range ids {
		if _, err := api.GetJob(context.Background(), id, "reboot"); err == nil {
			have++
		}
	}
	t.Logf("after one SIGINT: %d job requests received, %d devices have the job", sent, have)
	if sent < 4 || sent >= n || int64(have) != sent {
		t.Fatalf("%d job requests and %d devices with the job: the interrupt must land within wave 2, and every "+
			"request sent must have acted", sent, have)
	}
	if st := c.MustRun("state", "show", "-no-color", "zdm_job_rollout.r"); !strings.Contains(st, `status`) ||
		!strings.Contains(st, "stopped") {
		t.Errorf("the state does not record the stopped rollout:\n%s", st)
	}

	env.Server.SetFaults(localzdm.Faults{})
	c.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	if got := env.Server.Counters()[deviceJobPOST]; got != n {
		t.Errorf("%d job requests in all, want %d: one per device, none twice", got, n)
	}
	if out, code := c.Run("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Errorf("plan after the second apply: exit %d, want 0 (empty plan):\n%s", code, out)
	}
}
