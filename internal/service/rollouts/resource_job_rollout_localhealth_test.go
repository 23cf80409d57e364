package rollouts_test

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// TestAccJobRolloutGatedOnLocalHealth runs a job rollout gated on the
// health points that zdm-local's own simulated devices publish, as `make
// local` does: each device that completes the job publishes boot_ok
// {"ok": true}, except a fifth of them, which publish boot_error. With no
// failures allowed the rollout stops on those two; allowing them, it
// completes without sending the job to any device twice.
func TestAccJobRolloutGatedOnLocalHealth(t *testing.T) {
	e := acctest.NewEnv(t)
	if err := e.Server.SetStorage(e.Bootstrap.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	fleet, _ := acctest.NewFleetDevices(t, e, "sensors", 10)
	if err := e.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, Delay: 50 * time.Millisecond,
		Seed: 3, PublishHealth: true, HealthErrorFraction: 0.2}); err != nil {
		t.Fatal(err)
	}
	config := func(ratio string) string {
		return e.Config(fmt.Sprintf(`
resource "zdm_job_rollout" "test" {
  workspace_id      = %q
  fleet_ids         = [%q]
  name              = "reboot"
  value             = { delay = 1 }
  waves             = ["100%%"]
  wave_timeout      = "60s"
  poll_interval     = "100ms"
  max_failure_ratio = %s
  health_check = {
    tag            = "boot_ok"
    within         = "5s"
    payload_field  = "ok"
    payload_equals = jsonencode(true)
  }
}
`, e.Bootstrap.WorkspaceID, fleet, ratio))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:      config("0"),
				ExpectError: regexp.MustCompile(`2 of 10 devices are\s+unhealthy`),
			},
			{
				Config: config("0.2"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("zdm_job_rollout.test", tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue("zdm_job_rollout.test", tfjsonpath.New("wave_results").AtSliceIndex(0).AtMapKey("healthy"),
						knownvalue.Int64Exact(8)),
					statecheck.ExpectKnownValue("zdm_job_rollout.test", tfjsonpath.New("wave_results").AtSliceIndex(0).AtMapKey("unhealthy"),
						knownvalue.Int64Exact(2)),
				},
				// Every device got the job once: the stop saved what it sent.
				Check: func(*terraform.State) error {
					if n := jobSchedules(e); n != 10 {
						return fmt.Errorf("%d job schedules, want 10 (one per device)", n)
					}
					return nil
				},
			},
		},
	})
}
