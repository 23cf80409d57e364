package rollouts_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// windowAround is a maintenance_window block open every day from `from`
// to `to` after now (UTC, to the minute).
func windowAround(from, to time.Duration) string {
	now := time.Now().UTC()
	return fmt.Sprintf(`maintenance_window {
    days      = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    start     = %q
    end       = %q
    time_zone = "UTC"
  }`, now.Add(from).Format("15:04"), now.Add(to).Format("15:04"))
}

func pacingConfig(e *acctest.Env, fleet, extra string) string {
	return e.Config(fmt.Sprintf(`
resource "zdm_job_rollout" "test" {
  workspace_id  = %q
  fleet_ids     = [%q]
  name          = "reboot"
  value         = jsonencode({ delay = 2 })
  waves         = ["50%%", "100%%"]
  wave_timeout  = "60s"
  poll_interval = "100ms"
  %s
}
`, e.Bootstrap.WorkspaceID, fleet, extra))
}

// TestAccJobRolloutMaintenanceWindow: outside every window (the next one
// opens in two hours, later than wave_timeout), the apply ends without
// error, sends nothing, and the state says when the window opens; with a
// window open now, the same rollout resumes and sends every job once,
// paced by max_devices_per_minute.
func TestAccJobRolloutMaintenanceWindow(t *testing.T) {
	e := acctest.NewEnv(t)
	countsSchedules(t, e)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 6)
	jobsAnswer(t, e)
	const addr = "zdm_job_rollout.test"
	closed := windowAround(2*time.Hour, 3*time.Hour)
	opens := time.Now().UTC().Add(2 * time.Hour).Truncate(time.Minute)
	var started time.Time
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				// A stopped rollout plans its resume: the plan after is not
				// empty.
				Config:             pacingConfig(e, fleet, closed),
				ExpectNonEmptyPlan: true,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("stopped")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("waves_completed"), knownvalue.Int64Exact(0)),
				},
				Check: resource.ComposeTestCheckFunc(
					func(s *terraform.State) error {
						got := s.RootModule().Resources[addr].Primary.Attributes["next_window_opens_at"]
						at, err := time.Parse(time.RFC3339, got)
						// The minute of the next opening, allowing for a
						// minute passing while the test starts.
						if err != nil || at.Sub(opens).Abs() > time.Minute {
							return fmt.Errorf("next_window_opens_at = %q, want about %s", got, opens.Format(time.RFC3339))
						}
						return nil
					},
					expectJobSchedules(t, e, 0, `{"delay":2}`, 0, ids),
				),
			},
			{
				// A window open now: the rollout resumes in place, at most
				// 120 devices a minute (half a second apart).
				PreConfig: func() { started = time.Now() },
				Config:    pacingConfig(e, fleet, windowAround(-time.Hour, time.Hour)+"\n  max_devices_per_minute = 120"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("next_window_opens_at"), knownvalue.Null()),
				},
				Check: resource.ComposeTestCheckFunc(
					expectJobSchedules(t, e, 6, `{"delay":2}`, 6, ids),
					func(*terraform.State) error {
						if d := time.Since(started); d < 2500*time.Millisecond {
							return fmt.Errorf("6 jobs sent in %s: not paced half a second apart", d)
						}
						return nil
					},
				),
			},
		},
	})
}
