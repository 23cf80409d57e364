package firmware

import (
	"fmt"
	"regexp"
	"testing"

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
