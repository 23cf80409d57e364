package rollouts

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccFotaRolloutAction runs the rollout from an action: it completes,
// a later invocation for a new version stops at its gate, and invoking it
// again after the devices recover resumes without scheduling a device twice.
func TestAccFotaRolloutAction(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 10)
	config := func(input, version string) string {
		return e.Config(fmt.Sprintf(`
action "zdm_fota_rollout" "sensors" {
  config {
    workspace_id     = %q
    fleet_ids        = [%q]
    firmware_id      = "fw-sensor"
    firmware_version = %q
    waves            = ["20%%", "100%%"]
    failure_statuses = ["failed"]
    wave_timeout     = "60s"
    poll_interval    = "100ms"
  }
}
`, e.Bootstrap.WorkspaceID, fleet, version) + acctest.TriggeredBy("action.zdm_fota_rollout.sensors", input))
	}
	order := rolloutOrder(e, "3.0", ids)
	failing := order[0] // wave 1 of the 3.0 rollout
	devicesAnswer(t, e)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		TerraformVersionChecks:   acctest.ActionVersions,
		Steps: []resource.TestStep{
			{
				Config: config("1", "2.0"),
				Check:  expectSchedules(t, e, 10, "2.0", ids),
			},
			{
				PreConfig: func() { devicesAnswer(t, e, failing) },
				Config:    config("2", "3.0"),
				ExpectError: regexp.MustCompile(`(?s)` + acctest.Wrapped("Wave 1 of 2 (20%) stopped the rollout: 1 of 2 devices failed").String() +
					`.*` + acctest.Wrapped(failing+" (failed)").String()),
			},
			{
				PreConfig: func() {
					devicesAnswer(t, e)
					if got := fotaSchedules(e); got != 12 {
						t.Errorf("%d schedules after the stop, want 12 (10, then wave 1 of 3.0)", got)
					}
					if err := e.Server.SetFOTAStatus(failing, "done"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("3", "3.0"),
				// 10 schedules of 2.0, then 10 of 3.0: none twice.
				Check: expectSchedulesOf(t, e, 20, "3.0", 10, ids),
			},
		},
	})
}

// TestAccFotaRolloutActionGates: the action takes the same gates. Outside
// every maintenance window it sends nothing and ends without error; in an
// open window, with a health_check, a device that publishes no point stops
// it, naming the device, after every device was sent the firmware once;
// invoked again with room for it, it passes and sends nothing again.
func TestAccFotaRolloutActionGates(t *testing.T) {
	e := acctest.NewEnv(t)
	if err := e.Server.SetStorage(e.Bootstrap.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 5)
	devicesAnswer(t, e)
	order := rolloutOrder(e, "2.0", ids)
	payloads := map[string]string{}
	for _, id := range order[:4] {
		payloads[id] = `{"ok":true}`
	}
	acctest.PublishWhenDone(t, e, "", "boot_ok", payloads)
	now := time.Now().UTC()
	config := func(input string, from, to time.Duration, extra string) string {
		return e.Config(fmt.Sprintf(`
action "zdm_fota_rollout" "sensors" {
  config {
    workspace_id     = %q
    fleet_ids        = [%q]
    firmware_id      = "fw-sensor"
    firmware_version = "2.0"
    waves            = ["100%%"]
    failure_statuses = ["failed"]
    wave_timeout     = "60s"
    poll_interval    = "100ms"
    %s
    %s
    maintenance_window {
      days      = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
      start     = %q
      end       = %q
      time_zone = "UTC"
    }
  }
}
`, e.Bootstrap.WorkspaceID, fleet, healthCheck, extra, now.Add(from).Format("15:04"), now.Add(to).Format("15:04")) +
			acctest.TriggeredBy("action.zdm_fota_rollout.sensors", input))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		TerraformVersionChecks:   acctest.ActionVersions,
		Steps: []resource.TestStep{
			{
				Config: config("1", 2*time.Hour, 3*time.Hour, ""),
				Check:  expectSchedules(t, e, 0, "2.0", ids),
			},
			{
				Config: config("2", -time.Hour, time.Hour, ""),
				ExpectError: acctest.Wrapped("Wave 1 of 1 (100%) stopped the rollout: 1 of 5 devices are unhealthy, " +
					"more than max_failure_ratio 0 allows (0). Unhealthy: " + order[4] + " (no boot_ok point within 3s of success)"),
			},
			{
				PreConfig: func() {
					if n := fotaSchedules(e); n != 5 {
						t.Fatalf("%d firmware schedules after the stop, want 5", n)
					}
				},
				Config: config("3", -time.Hour, time.Hour, "max_failure_ratio = 0.2"),
				Check:  expectSchedules(t, e, 5, "2.0", ids),
			},
		},
	})
}
