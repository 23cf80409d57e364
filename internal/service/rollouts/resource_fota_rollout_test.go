package rollouts

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
)

// fotaSchedules is the number of single-device firmware schedules the
// server received.
func fotaSchedules(e *acctest.Env) int64 {
	return e.Server.Counters()["POST /v3/devices/{device_id}/fota/{firmware_id}/versions/{firmware_version}"]
}

// expectSchedules checks that the server received want single-device
// firmware schedules since the test began, and that want of devices have
// firmware version: as many schedules as devices, so none got two.
func expectSchedules(t *testing.T, e *acctest.Env, want int64, version string, devices []string) resource.TestCheckFunc {
	return expectSchedulesOf(t, e, want, version, int(want), devices)
}

// expectSchedulesOf checks that the server received total single-device
// firmware schedules since the test began, and that have of devices have
// firmware version.
func expectSchedulesOf(t *testing.T, e *acctest.Env, total int64, version string, have int, devices []string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := fotaSchedules(e); got != total {
			return fmt.Errorf("%d firmware schedules sent, want %d", got, total)
		}
		n := 0
		for _, dev := range devices {
			f, err := acctest.APIClient(t, e).GetFOTA(context.Background(), dev)
			if err == nil && f.Value.FirmwareVersion == version {
				n++
			}
		}
		if n != have {
			return fmt.Errorf("%d devices have firmware %s, want %d", n, version, have)
		}
		return nil
	}
}

// devicesAnswer makes the server's devices answer every firmware update
// scheduled from now on after 50 to 250 ms: "done", or "failed" for the
// devices in failing.
func devicesAnswer(t *testing.T, e *acctest.Env, failing ...string) {
	t.Helper()
	err := e.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, Delay: 50 * time.Millisecond,
		Jitter: 200 * time.Millisecond, FailureStatus: "failed", FailDevices: failing, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
}

// rolloutOrder is the order in which a rollout of fw-sensor version in the
// test's workspace picks devices.
func rolloutOrder(e *acctest.Env, version string, ids []string) []string {
	return rollout.Order(rollout.Identity(e.Bootstrap.WorkspaceID, rollout.FOTA(fleetstatus.Firmware{ID: "fw-sensor", Version: version}), ""), ids)
}

func rolloutConfig(e *acctest.Env, fleet, version, extra string) string {
	return e.Config(fmt.Sprintf(`
resource "zdm_fota_rollout" "test" {
  workspace_id      = %q
  fleet_ids         = [%q]
  firmware_id       = "fw-sensor"
  firmware_version  = %q
  waves             = ["10%%", "50%%", "100%%"]
  failure_statuses  = ["failed"]
  wave_timeout      = "60s"
  poll_interval     = "100ms"
  %s
}
`, e.Bootstrap.WorkspaceID, fleet, version, extra))
}

func TestAccFotaRolloutCompletes(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 20)
	_, others := acctest.NewFleetDevices(t, e, "others", 3)
	devicesAnswer(t, e)
	const addr = "zdm_fota_rollout.test"
	order := rolloutOrder(e, "2.0", ids)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: rolloutConfig(e, fleet, "2.0", ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"),
						knownvalue.StringExact(e.Bootstrap.WorkspaceID+"/fw-sensor/2.0")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("waves_completed"), knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("started_at"), knownvalue.NotNull()),
					// 10% of 20 is 2, 50% is 10 (8 more), 100% the other 10,
					// in the rollout's stable order.
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(0).AtMapKey("device_ids"),
						stringListExact(slices.Sorted(slices.Values(order[:2]))...)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("device_ids"),
						knownvalue.ListSizeExact(8)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(2).AtMapKey("scheduled"),
						knownvalue.Int64Exact(10)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(2).AtMapKey("status_counts"),
						knownvalue.MapExact(map[string]knownvalue.Check{"done": knownvalue.Int64Exact(10)})),
				},
				Check: resource.ComposeTestCheckFunc(
					expectSchedules(t, e, 20, "2.0", ids),
					// The fleet not named got nothing.
					expectSchedules(t, e, 20, "2.0", append(slices.Clone(ids), others...)),
				),
			},
			{
				// A refresh reads the devices again: a device of wave 1 that
				// fails later shows in the wave's counts; the complete rollout
				// plans nothing.
				PreConfig: func() {
					if err := e.Server.SetFOTAStatus(order[0], "failed"); err != nil {
						t.Fatal(err)
					}
				},
				RefreshState: true,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "wave_results.0.status_counts.%", "2"),
					resource.TestCheckResourceAttr(addr, "wave_results.0.status_counts.done", "1"),
					resource.TestCheckResourceAttr(addr, "wave_results.0.status_counts.failed", "1"),
					resource.TestCheckResourceAttr(addr, "status", "completed"),
				),
			},
			{
				Config:             rolloutConfig(e, fleet, "2.0", ""),
				PlanOnly:           true,
				ExpectNonEmptyPlan: false,
			},
			{
				// A gate setting changes in place; nothing is scheduled.
				Config: rolloutConfig(e, fleet, "2.0", `pause_between_waves = "1s"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
				}},
				Check: expectSchedules(t, e, 20, "2.0", ids),
			},
			{
				// A new version is a new rollout.
				Config: rolloutConfig(e, fleet, "2.1", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
				},
				Check: func(*terraform.State) error {
					if got := fotaSchedules(e); got != 40 {
						return fmt.Errorf("%d schedules, want 40 (20 per version)", got)
					}
					return nil
				},
			},
			{
				ResourceName:  addr,
				ImportState:   true,
				ImportStateId: e.Bootstrap.WorkspaceID + "/fw-sensor/2.1",
				ImportStateCheck: func(s []*terraform.InstanceState) error {
					if len(s) != 1 || s[0].Attributes["status"] != "imported" || s[0].Attributes["firmware_version"] != "2.1" {
						return fmt.Errorf("imported state = %v", s)
					}
					return nil
				},
			},
		},
	})
}

// stringListExact checks a list of strings is exactly want, in order.
func stringListExact(want ...string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(want))
	for i, w := range want {
		checks[i] = knownvalue.StringExact(w)
	}
	return knownvalue.ListExact(checks)
}

// TestAccFotaRolloutGateStopsThenResumes: three devices of wave 2 fail,
// more than max_failure_ratio allows: the apply fails naming them, wave 1
// stays done and wave 3 untouched. Once the devices recover, applying again
// resumes at wave 2 and schedules only wave 3.
func TestAccFotaRolloutGateStopsThenResumes(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 20)
	order := rolloutOrder(e, "2.0", ids)
	failing := order[3:6] // in wave 2 (order[2:10])
	devicesAnswer(t, e, failing...)
	config := rolloutConfig(e, fleet, "2.0", `max_failure_ratio = 0.25`)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ExpectError: regexp.MustCompile(`(?s)` + acctest.Wrapped("Wave 2 of 3 (50%) stopped the rollout: 3 of 8 devices failed").String() +
					`.*` + acctest.Wrapped(slices.Sorted(slices.Values(failing))[0]+" (failed)").String() + `.*` + acctest.Wrapped("apply again").String()),
			},
			{
				// What happened is in the state: wave 1 done, wave 2 scheduled.
				PreConfig: func() {
					if got := fotaSchedules(e); got != 10 {
						t.Errorf("%d schedules after the stop, want 10 (waves 1 and 2)", got)
					}
					devicesAnswer(t, e)
					for _, id := range failing {
						if err := e.Server.SetFOTAStatus(id, "done"); err != nil {
							t.Fatal(err)
						}
					}
				},
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("zdm_fota_rollout.test", tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue("zdm_fota_rollout.test", tfjsonpath.New("waves_completed"), knownvalue.Int64Exact(3)),
					// The replacement inherited the record of waves 1 and 2
					// (8 devices of wave 2 scheduled by the first apply).
					statecheck.ExpectKnownValue("zdm_fota_rollout.test",
						tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("scheduled"), knownvalue.Int64Exact(8)),
					statecheck.ExpectKnownValue("zdm_fota_rollout.test",
						tfjsonpath.New("wave_results").AtSliceIndex(2).AtMapKey("scheduled"), knownvalue.Int64Exact(10)),
				},
				Check: expectSchedules(t, e, 20, "2.0", ids),
			},
		},
	})
}

// TestAccFotaRolloutResumesInPlace imports a rollout started elsewhere and
// applies it: a stop there keeps the resource (no taint), and the next apply
// resumes it in place.
func TestAccFotaRolloutResumesInPlace(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 10)
	order := rolloutOrder(e, "2.0", ids)
	failing := order[1] // wave 2 (order[1:5])
	devicesAnswer(t, e, failing)
	// Wave 1 (one device) was scheduled earlier, by hand.
	if _, err := acctest.APIClient(t, e).ScheduleFOTA(context.Background(), order[0], "fw-sensor", "2.0"); err != nil {
		t.Fatal(err)
	}
	importBlock := fmt.Sprintf(`
import {
  to = zdm_fota_rollout.test
  id = "%s/fw-sensor/2.0"
}
`, e.Bootstrap.WorkspaceID)
	const addr = "zdm_fota_rollout.test"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:      rolloutConfig(e, fleet, "2.0", "") + importBlock,
				ExpectError: acctest.Wrapped("Wave 2 of 3 (50%) stopped the rollout: 1 of 4 devices failed"),
			},
			{
				// The stop kept the resource: the plan resumes it in place.
				PreConfig: func() {
					if got := fotaSchedules(e); got != 5 {
						t.Errorf("%d schedules after the stop, want 5 (4 in wave 2, and the 1 by hand)", got)
					}
					devicesAnswer(t, e)
					if err := e.Server.SetFOTAStatus(failing, "done"); err != nil {
						t.Fatal(err)
					}
				},
				Config: rolloutConfig(e, fleet, "2.0", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(addr, tfjsonpath.New("status")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(0).AtMapKey("scheduled"),
						knownvalue.Int64Exact(0)),
				},
				Check: expectSchedules(t, e, 10, "2.0", ids),
			},
		},
	})
}

// TestAccFotaRolloutTimesOut: devices that never answer stop the rollout at
// wave_timeout, naming each device not done with its status.
func TestAccFotaRolloutTimesOut(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 5)
	order := rolloutOrder(e, "2.0", ids)
	// The first device of the order never answers; the others do.
	if err := e.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, SilentDevices: order[:1]}); err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: e.Config(fmt.Sprintf(`
resource "zdm_fota_rollout" "test" {
  workspace_id     = %q
  fleet_ids        = [%q]
  firmware_id      = "fw-sensor"
  firmware_version = "2.0"
  waves            = ["1", "100%%"]
  wave_timeout     = "1s"
  poll_interval    = "200ms"
}
`, e.Bootstrap.WorkspaceID, fleet)),
				ExpectError: acctest.Wrapped("Wave 1 of 2 (1) is not done after wave_timeout 1s: 1 of 1 devices not done: " +
					order[0] + " (pending)"),
			},
		},
	})
}

func TestAccFotaRolloutAllFleetsAndValidation(t *testing.T) {
	e := acctest.NewEnv(t)
	_, a := acctest.NewFleetDevices(t, e, "a", 2)
	_, b := acctest.NewFleetDevices(t, e, "b", 2)
	loose := acctest.NewDevices(t, e, "loose") // in the default fleet
	all := append(append(slices.Clone(a), b...), loose...)
	devicesAnswer(t, e)
	ws := e.Bootstrap.WorkspaceID
	invalid := func(body, want string) resource.TestStep {
		return resource.TestStep{
			Config: e.Config(fmt.Sprintf(`
resource "zdm_fota_rollout" "bad" {
  workspace_id     = %q
  firmware_id      = "fw"
  firmware_version = "1"
  %s
}
`, ws, body)),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			invalid(`waves = ["100%"]`, `(?s)Missing fleet_ids.*never\s+targets\s+every\s+fleet`),
			invalid(`waves = ["100%"]
  all_fleets = false`, `Missing fleet_ids`),
			invalid(`waves = ["100%"]
  all_fleets = true
  fleet_ids = ["flt-1"]`, `Conflicting all_fleets and fleet_ids`),
			invalid(`waves = ["10%", "50%"]
  all_fleets = true`, `(?s)Invalid waves.*must be "100%"`),
			invalid(`waves = ["50%", "10%", "100%"]
  all_fleets = true`, `(?s)Invalid waves.*waves grow`),
			invalid(`waves = ["ten", "100%"]
  all_fleets = true`, `(?s)Invalid waves.*neither a percentage`),
			invalid(`waves = ["100%"]
  all_fleets = true
  failure_statuses = ["done", "failed"]`, `(?s)Overlapping success and failure statuses.*"done"`),
			invalid(`waves = ["100%"]
  all_fleets = true
  wave_timeout = "1m"
  poll_interval = "2m"`, `(?s)poll_interval \(2m0s\) must not be longer than wave_timeout`),
			invalid(`waves = ["100%"]
  all_fleets = true
  max_failure_ratio = 1.5`, `(?s)max_failure_ratio.*between 0\.0* and 1`),
			invalid(`waves = ["100%"]
  all_fleets = true
  wave_timeout = "soon"`, `(?s)Invalid wave_timeout`),
			{
				Config: e.Config(fmt.Sprintf(`
resource "zdm_fota_rollout" "all" {
  workspace_id     = %q
  all_fleets       = true
  firmware_id      = "fw"
  firmware_version = "1"
  waves            = ["2", "100%%"]
  poll_interval    = "100ms"
}
`, ws)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("zdm_fota_rollout.all", tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("device_ids"),
						knownvalue.ListSizeExact(3)),
				},
				Check: expectSchedules(t, e, 5, "1", all),
			},
		},
	})
}

// TestAccFotaRolloutHeldSchedules: the service holds every firmware POST
// for 3 s, longer than request_timeout = "1s", then acts. The rollout reads
// each device back until the request may have landed, takes it as
// scheduled, and completes: each device is sent the firmware once, and the
// plan after is empty. (Reading back once, the apply failed and said that
// applying again schedules it, which sent it twice.)
func TestAccFotaRolloutHeldSchedules(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 2)
	devicesAnswer(t, e)
	if _, err := e.Server.AddRequestFault(localzdm.RequestFault{Method: "POST",
		Path:   "/v3/devices/{device_id}/fota/{firmware_id}/versions/{firmware_version}",
		Action: "delay", Delay: 3 * time.Second}); err != nil {
		t.Fatal(err)
	}
	config := strings.Replace(rolloutConfig(e, fleet, "2.0", ""), "provider \"zdm\" {", "provider \"zdm\" {\n  request_timeout = \"1s\"", 1)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("zdm_fota_rollout.test", "status", rollout.StatusCompleted),
					expectSchedules(t, e, 2, "2.0", ids)),
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: expectSchedules(t, e, 2, "2.0", ids),
			},
		},
	})
}

// TestAccFotaRolloutImportThenApply: a rollout imported into a new state
// (its devices already have the firmware) is finished by the next apply,
// which sends nothing and records when the rollout started. (The apply
// failed with "Provider produced inconsistent result after apply:
// .started_at: was null".)
func TestAccFotaRolloutImportThenApply(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 3)
	devicesAnswer(t, e)
	for _, id := range ids {
		if _, err := acctest.APIClient(t, e).ScheduleFOTA(context.Background(), id, "fw-sensor", "3.0"); err != nil {
			t.Fatal(err)
		}
	}
	e.Server.ResetCounters()
	config := rolloutConfig(e, fleet, "3.0", "")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:             config,
				ResourceName:       "zdm_fota_rollout.test",
				ImportState:        true,
				ImportStateId:      e.Bootstrap.WorkspaceID + "/fw-sensor/3.0",
				ImportStatePersist: true,
			},
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("zdm_fota_rollout.test", tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue("zdm_fota_rollout.test", tfjsonpath.New("started_at"), knownvalue.NotNull()),
				},
				Check: expectSchedulesOf(t, e, 0, "3.0", 3, ids),
			},
		},
	})
}

// TestAccFotaRolloutSlashInVersion: a firmware version with a "/" gives an
// id that imports back to the same rollout (the "/" in the version is
// %2F), so the plan after the import does not replace it; the id written
// without the escape is an error that says how to write it.
func TestAccFotaRolloutSlashInVersion(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 2)
	devicesAnswer(t, e)
	const addr = "zdm_fota_rollout.test"
	config := rolloutConfig(e, fleet, "3.0/rc1", "")
	id := e.Bootstrap.WorkspaceID + "/fw-sensor/3.0%2Frc1"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(id)),
				},
				Check: expectSchedules(t, e, 2, "3.0/rc1", ids),
			},
			{
				Config:        config,
				ResourceName:  addr,
				ImportState:   true,
				ImportStateId: e.Bootstrap.WorkspaceID + "/fw-sensor/3.0/rc1",
				ExpectError:   regexp.MustCompile(`(?s)Invalid import ID.*has 4 parts.*%2F`),
			},
		},
	})
	// A new state takes the rollout over by its id: the same rollout, no
	// replace, nothing sent again.
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:             config,
				ResourceName:       addr,
				ImportState:        true,
				ImportStateId:      id,
				ImportStatePersist: true,
				ImportStateCheck: func(s []*terraform.InstanceState) error {
					if len(s) != 1 || s[0].Attributes["firmware_id"] != "fw-sensor" || s[0].Attributes["firmware_version"] != "3.0/rc1" {
						return fmt.Errorf("imported state = %v", s)
					}
					return nil
				},
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: expectSchedules(t, e, 2, "3.0/rc1", ids),
			},
		},
	})
}
