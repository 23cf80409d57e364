package rollouts_test

import (
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccJobRolloutHealthStopsBeforeLaterWaves: a three-wave job rollout
// gated on telemetry stops at its second wave, whose two silent devices ran
// the job but never published; the third wave's devices get nothing. The
// apply after (allowing the two) sends the job to the third wave only, so
// that every device has it exactly once.
func TestAccJobRolloutHealthStopsBeforeLaterWaves(t *testing.T) {
	e := acctest.NewEnv(t)
	if err := e.Server.SetStorage(e.Bootstrap.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	countsSchedules(t, e)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 10)
	jobsAnswer(t, e)
	const value = `{"delay":2}`
	order := jobRolloutOrder(e, value, ids)
	payloads := map[string]string{}
	for _, id := range slices.Concat(order[:2], order[4:]) {
		payloads[id] = `"up"`
	}
	acctest.PublishWhenDone(t, e, "reboot", "rebooted", payloads)
	config := func(ratio string) string {
		return e.Config(fmt.Sprintf(`
resource "zdm_job_rollout" "test" {
  workspace_id      = %q
  fleet_ids         = [%q]
  name              = "reboot"
  value             = jsonencode({ delay = 2 })
  waves             = ["20%%", "50%%", "100%%"]
  wave_timeout      = "60s"
  poll_interval     = "100ms"
  max_failure_ratio = %s
  min_devices_reported = 10
  health_check = {
    tag    = "rebooted"
    within = "3s"
  }
}
`, e.Bootstrap.WorkspaceID, fleet, ratio))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:      config("0"),
				ExpectError: regexp.MustCompile(`Wave 2 of 3 \(50%\) stopped the rollout: 2 of 3 devices are\s+unhealthy`),
			},
			{
				// The stop sent nothing to the third wave: 5 devices of 10
				// have the job.
				PreConfig: func() {
					if err := expectJobSchedules(t, e, 5, value, 5, ids)(nil); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("0.7"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("zdm_job_rollout.test", tfjsonpath.New("status"), knownvalue.StringExact("completed")),
				},
				Check: expectJobSchedules(t, e, 10, value, 10, ids),
			},
		},
	})
}
