package rollouts_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccJobRolloutHealthCheck: a job rollout gated on a "rebooted" point
// (any payload) within 3 seconds of the job done. The first wave's devices
// publish it and pass; in the second, two devices never publish: the
// rollout stops naming them, and saves the verdicts. Raising
// max_failure_ratio resumes it, sending the job to no device again.
func TestAccJobRolloutHealthCheck(t *testing.T) {
	e := acctest.NewEnv(t)
	if err := e.Server.SetStorage(e.Bootstrap.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	countsSchedules(t, e)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 10)
	jobsAnswer(t, e)
	const addr = "zdm_job_rollout.test"
	const value = `{"delay":1}`
	order := jobRolloutOrder(e, value, ids)
	silent := slices.Sorted(slices.Values(order[3:5]))
	payloads := map[string]string{}
	for _, id := range slices.Concat(order[:3], order[5:]) {
		payloads[id] = `"up"`
	}
	acctest.PublishWhenDone(t, e, "reboot", "rebooted", payloads)
	config := func(extra string) string {
		return e.Config(fmt.Sprintf(`
resource "zdm_job_rollout" "test" {
  workspace_id  = %q
  fleet_ids     = [%q]
  name          = "reboot"
  value         = jsonencode({ delay = 1 })
  waves         = ["30%%", "100%%"]
  wave_timeout  = "60s"
  poll_interval = "100ms"
  health_check = {
    tag    = "rebooted"
    within = "3s"
  }
  %s
}
`, e.Bootstrap.WorkspaceID, fleet, extra))
	}
	var named []string
	for _, id := range silent {
		named = append(named, id+" (no rebooted point within 3s of success)")
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				// The condition's two halves go together, and payload_equals
				// is JSON: refused at plan time, nothing sent.
				Config: e.Config(fmt.Sprintf(`
resource "zdm_job_rollout" "bad" {
  workspace_id = %q
  fleet_ids    = [%q]
  name         = "other"
  value        = {}
  waves        = ["100%%"]
  health_check = {
    tag           = "rebooted"
    within        = "3s"
    payload_field = "ok"
  }
}
`, e.Bootstrap.WorkspaceID, fleet)),
				PlanOnly:    true,
				ExpectError: acctest.Wrapped("health_check.payload_field and health_check.payload_equals go together"),
			},
			{
				Config: e.Config(fmt.Sprintf(`
resource "zdm_job_rollout" "bad" {
  workspace_id = %q
  fleet_ids    = [%q]
  name         = "other"
  value        = {}
  waves        = ["100%%"]
  health_check = {
    tag            = "rebooted"
    within         = "soon"
    payload_field  = "a..b"
    payload_equals = "not json"
  }
}
`, e.Bootstrap.WorkspaceID, fleet)),
				PlanOnly:    true,
				ExpectError: acctest.Wrapped("must be JSON text"),
			},
			{
				Config: config(`max_failure_ratio = 0.2`),
				ExpectError: acctest.Wrapped("Wave 2 of 2 (100%) stopped the rollout: 2 of 7 devices are unhealthy, " +
					"more than max_failure_ratio 0.2 allows (1). Unhealthy: " + strings.Join(named, ", ")),
			},
			{
				PreConfig: func() {
					if n := jobSchedules(e); n != 10 {
						t.Fatalf("%d job schedules after the stop, want 10", n)
					}
				},
				Config: config(`max_failure_ratio = 0.3`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(0).AtMapKey("healthy"),
						knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("healthy"),
						knownvalue.Int64Exact(5)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("unhealthy"),
						knownvalue.Int64Exact(2)),
				},
				Check: expectJobSchedules(t, e, 10, value, 10, ids),
			},
		},
	})
}
