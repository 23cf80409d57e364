package rollouts_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccJobRolloutActionStorageDisabled: a rollout action with a
// health_check in a workspace whose storage service is disabled fails at
// plan -invoke and at apply -invoke, naming health_check, before any job
// is sent. A plan made while storage was enabled, applied after it was
// disabled, fails at the invoke's own probe, still before sending. Once
// storage is enabled the same action sends the job to every device (the
// positive control of the count).
func TestAccJobRolloutActionStorageDisabled(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 5)
	countsSchedules(t, e)
	jobsAnswer(t, e)
	payloads := map[string]string{}
	for _, id := range ids {
		payloads[id] = `"up"`
	}
	acctest.PublishWhenDone(t, e, "reboot", "rebooted", payloads)
	c := acctest.NewCLI(t)
	c.SkipBelow(14, "actions need Terraform 1.14 or later")
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig()+fmt.Sprintf(`
action "zdm_job_rollout" "sensors" {
  config {
    workspace_id  = %q
    fleet_ids     = [%q]
    name          = "reboot"
    value         = { delay = 1 }
    waves         = ["20%%", "100%%"]
    wave_timeout  = "60s"
    poll_interval = "100ms"
    health_check = {
      tag    = "rebooted"
      within = "5s"
    }
  }
}
`, e.Bootstrap.WorkspaceID, fleet))
	c.MustRun("init", "-no-color")
	const invoke = "-invoke=action.zdm_job_rollout.sensors"
	refused := func(what string, args ...string) {
		t.Helper()
		out, code := c.Run(args...)
		flat := strings.Join(strings.Fields(out), " ")
		if code == 0 || !strings.Contains(flat, "Storage service not enabled") {
			t.Errorf("%s: exit code %d, want a failure naming the storage service:\n%s", what, code, out)
		}
		if n := jobSchedules(e); n != 0 {
			t.Fatalf("%s: %d job schedules sent, want 0", what, n)
		}
	}
	refused("plan -invoke", "plan", invoke, "-no-color")
	refused("apply -invoke", "apply", invoke, "-auto-approve", "-no-color")

	// Planned with storage enabled, applied once it is disabled: the
	// invoke probes again before its first send.
	if err := e.Server.SetStorage(e.Bootstrap.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	c.MustRun("plan", invoke, "-out=tfplan", "-no-color")
	if err := e.Server.SetStorage(e.Bootstrap.WorkspaceID, false); err != nil {
		t.Fatal(err)
	}
	refused("apply of a plan made with storage", "apply", "-auto-approve", "-no-color", "tfplan")

	if err := e.Server.SetStorage(e.Bootstrap.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	c.MustRun("apply", invoke, "-auto-approve", "-no-color")
	if err := expectJobSchedules(t, e, 5, `{"delay":1}`, 5, ids)(nil); err != nil {
		t.Error(err)
	}
}
