package rollouts_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// jobRolloutActionBlock is a zdm_job_rollout action of the job "reboot" on
// fleet, in two waves.
func jobRolloutActionBlock(e *acctest.Env, fleet, value, waveTimeout string) string {
	return fmt.Sprintf(`
action "zdm_job_rollout" "sensors" {
  config {
    workspace_id  = %q
    fleet_ids     = [%q]
    name          = "reboot"
    value         = %s
    waves         = ["20%%", "100%%"]
    wave_timeout  = %q
    poll_interval = "100ms"
  }
}
`, e.Bootstrap.WorkspaceID, fleet, value, waveTimeout)
}

// TestAccJobRolloutAction runs the rollout from an action: the waves go out
// in order to the named fleet only; invoking it again sends nothing; a
// later invocation for a new value stops at its gate, and invoking it again
// once the device has run the job resumes without sending the job to a
// device twice.
func TestAccJobRolloutAction(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 10)
	_, others := acctest.NewFleetDevices(t, e, "others", 2)
	countsSchedules(t, e)
	config := func(input, value, waveTimeout string) string {
		return e.Config(jobRolloutActionBlock(e, fleet, value, waveTimeout) +
			acctest.TriggeredBy("action.zdm_job_rollout.sensors", input))
	}
	const first, second = `{"reason":"upgrade"}`, `{"reason":"again"}`
	order := jobRolloutOrder(e, first, ids)
	stuck := jobRolloutOrder(e, second, ids)[0] // wave 1 of the second value
	jobsAnswer(t, e)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		TerraformVersionChecks:   acctest.ActionVersions,
		Steps: []resource.TestStep{
			{
				Config: config("1", `{ reason = "upgrade" }`, "60s"),
				Check: resource.ComposeTestCheckFunc(
					expectJobSchedules(t, e, 10, first, 10, ids),
					expectJobSchedules(t, e, 10, first, 0, others),
					// 20% of 10 is 2: wave 1 ran before wave 2 was sent.
					wavesInOrder(t, e, order[:2], order[2:]),
				),
			},
			{
				// Invoked again (the value as JSON text): every device has
				// the job with this value, so nothing is sent.
				Config: config("2", `jsonencode({ reason = "upgrade" })`, "60s"),
				Check:  expectJobSchedules(t, e, 10, first, 10, ids),
			},
			{
				PreConfig: func() { jobsAnswer(t, e, stuck) },
				Config:    config("3", `{ reason = "again" }`, "2s"),
				ExpectError: regexp.MustCompile(`(?s)` +
					acctest.Wrapped("Wave 1 of 2 (20%) stopped the rollout: 1 of 2 devices are not done after wave_timeout 2s").String() +
					`.*` + acctest.Wrapped(stuck+" (pending)").String() + `.*` + acctest.Wrapped("invoke the action again").String()),
			},
			{
				PreConfig: func() {
					jobsAnswer(t, e)
					if got := jobSchedules(e); got != 12 {
						t.Errorf("%d job schedules after the stop, want 12 (10, then wave 1 of the new value)", got)
					}
					if err := e.Server.SetJobStatus(stuck, "reboot", "done"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("4", `{ reason = "again" }`, "60s"),
				// 10 schedules of the first value, then 10 of the second:
				// none twice.
				Check: expectJobSchedules(t, e, 20, second, 10, ids),
			},
		},
	})
}

// TestAccJobRolloutActionProgress invokes the action with the CLI
// (terraform apply -invoke): the CLI shows the progress of each wave, in
// order. Invoking it again sends nothing and says that every device has the
// job already.
func TestAccJobRolloutActionProgress(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 5)
	countsSchedules(t, e)
	jobsAnswer(t, e)
	c := acctest.NewCLI(t)
	c.SkipBelow(14, "actions need Terraform 1.14 or later")
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig()+jobRolloutActionBlock(e, fleet, `{ reason = "upgrade" }`, "60s"))
	c.MustRun("init", "-no-color")
	invoke := func() string {
		return strings.Join(strings.Fields(c.MustRun("apply", "-invoke=action.zdm_job_rollout.sensors", "-auto-approve", "-no-color")), " ")
	}
	// Each progress line is shown by the CLI after the action's address.
	const job, at = `job "reboot"`, "Action action.zdm_job_rollout.sensors (triggered by CLI): "
	expectInOrder(t, "first invocation", invoke(),
		at+"Rollout of "+job+": 5 devices in 2 waves (20%: 1, 100%: 4)",
		at+"Wave 1 of 2 (20%): scheduling "+job+" on 1 devices (0 have it already)",
		at+"Wave 1 of 2 (20%): complete, 1 of 1 devices succeeded",
		at+"Wave 2 of 2 (100%): scheduling "+job+" on 4 devices (0 have it already)",
		at+"Wave 2 of 2 (100%): complete, 4 of 4 devices succeeded",
		at+"Rollout of "+job+" complete on 5 devices")
	if err := expectJobSchedules(t, e, 5, `{"reason":"upgrade"}`, 5, ids)(nil); err != nil {
		t.Error(err)
	}
	out := invoke()
	expectInOrder(t, "second invocation", out,
		at+"Rollout of "+job+": 5 devices in 2 waves (20%: 1, 100%: 4)",
		at+"Wave 1 of 2 (20%): all 1 devices have "+job+" already",
		at+"Wave 1 of 2 (20%): complete, 1 of 1 devices succeeded",
		at+"Wave 2 of 2 (100%): all 4 devices have "+job+" already",
		at+"Wave 2 of 2 (100%): complete, 4 of 4 devices succeeded",
		at+"Rollout of "+job+" complete on 5 devices")
	if strings.Contains(out, ": scheduling") {
		t.Errorf("second invocation: scheduled again:\n%s", out)
	}
	if err := expectJobSchedules(t, e, 5, `{"reason":"upgrade"}`, 5, ids)(nil); err != nil {
		t.Errorf("second invocation: %v", err)
	}
}

// expectInOrder checks that out holds each of want, in order.
func expectInOrder(t *testing.T, what, out string, want ...string) {
	t.Helper()
	rest := out
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("%s: want %q after the lines before it, in:\n%s", what, w, out)
			return
		}
		rest = rest[i+len(w):]
	}
}
