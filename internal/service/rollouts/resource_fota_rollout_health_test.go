package rollouts

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

// healthCheck is the health_check of the tests: a "boot_ok" point with
// {"ok": true} within 3 seconds of the update.
const healthCheck = `health_check = {
    tag            = "boot_ok"
    within         = "3s"
    payload_field  = "ok"
    payload_equals = jsonencode(true)
  }`

func healthRolloutConfig(e *acctest.Env, fleet, extra string) string {
	return e.Config(fmt.Sprintf(`
resource "zdm_fota_rollout" "test" {
  workspace_id      = %q
  fleet_ids         = [%q]
  firmware_id       = "fw-sensor"
  firmware_version  = "2.0"
  waves             = ["20%%", "100%%"]
  failure_statuses  = ["failed"]
  wave_timeout      = "60s"
  poll_interval     = "100ms"
  %s
  %s
}
`, e.Bootstrap.WorkspaceID, fleet, healthCheck, extra))
}

// TestAccFotaRolloutHealthCheck: the first wave's devices publish a healthy
// point and it passes; in the second, two devices publish nothing and one
// publishes {"ok": false}: one more than max_failure_ratio allows, the
// rollout stops naming the three, and saves
// the verdicts. Raising max_failure_ratio resumes it without sending any
// firmware again.
func TestAccFotaRolloutHealthCheck(t *testing.T) {
	e := acctest.NewEnv(t)
	if err := e.Server.SetStorage(e.Bootstrap.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 10)
	devicesAnswer(t, e)
	const addr = "zdm_fota_rollout.test"
	order := rolloutOrder(e, "2.0", ids)
	silent, bad := order[2:4], order[4]
	payloads := map[string]string{bad: `{"ok":false}`}
	for _, id := range slices.Concat(order[:2], order[5:]) {
		payloads[id] = `{"ok":true}`
	}
	acctest.PublishWhenDone(t, e, "", "boot_ok", payloads)
	why := map[string]string{bad: "boot_ok point with payload.ok = false, not true"}
	for _, id := range silent {
		why[id] = "no boot_ok point within 3s of success"
	}
	var named []string
	for _, id := range slices.Sorted(slices.Values([]string{silent[0], silent[1], bad})) {
		named = append(named, id+" ("+why[id]+")")
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				// Room for two unhealthy devices: the gate waits for the
				// verdicts of the third.
				Config: healthRolloutConfig(e, fleet, "max_failure_ratio = 0.25"),
				ExpectError: acctest.Wrapped("Wave 2 of 2 (100%) stopped the rollout: 3 of 8 devices are unhealthy, " +
					"more than max_failure_ratio 0.25 allows (2). Unhealthy: " + strings.Join(named, ", ")),
			},
			{
				// Every device was sent the firmware once (the counter
				// counts them: the positive control of the resume below).
				PreConfig: func() {
					if n := fotaSchedules(e); n != 10 {
						t.Fatalf("%d firmware schedules after the stop, want 10", n)
					}
				},
				Config: healthRolloutConfig(e, fleet, "max_failure_ratio = 0.5"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(0).AtMapKey("healthy"),
						knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(0).AtMapKey("unhealthy"),
						knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("healthy"),
						knownvalue.Int64Exact(5)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("unhealthy"),
						knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("started_at"),
						knownvalue.NotNull()),
				},
				Check: expectSchedules(t, e, 10, "2.0", ids),
			},
			{
				Config:   healthRolloutConfig(e, fleet, "max_failure_ratio = 0.5"),
				PlanOnly: true,
			},
		},
	})
}

// TestAccFotaRolloutHealthCheckStorageDisabled: without the storage
// service the plan fails, naming health_check, and nothing is sent; once
// it is enabled the same configuration rolls out.
func TestAccFotaRolloutHealthCheckStorageDisabled(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 4)
	devicesAnswer(t, e)
	payloads := map[string]string{}
	for _, id := range ids {
		payloads[id] = `{"ok":true}`
	}
	acctest.PublishWhenDone(t, e, "", "boot_ok", payloads)
	const addr = "zdm_fota_rollout.test"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:      healthRolloutConfig(e, fleet, ""),
				ExpectError: acctest.Wrapped("Storage service not enabled"),
			},
			{
				PreConfig: func() {
					if n := fotaSchedules(e); n != 0 {
						t.Fatalf("%d firmware schedules after a failed plan, want 0", n)
					}
					if err := e.Server.SetStorage(e.Bootstrap.WorkspaceID, true); err != nil {
						t.Fatal(err)
					}
				},
				Config: healthRolloutConfig(e, fleet, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("healthy"),
						knownvalue.Int64Exact(3)),
				},
				// The positive control: the same counter sees the 4.
				Check: expectSchedules(t, e, 4, "2.0", ids),
			},
		},
	})
}
