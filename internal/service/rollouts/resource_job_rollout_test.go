package rollouts_test

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
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
)

// routeScheduleDeviceJob is the server's counter of single-device job
// schedules.
const routeScheduleDeviceJob = "POST /v3/devices/{device_id}/jobs/{job_name}"

// jobSchedules is the number of single-device job schedules the server
// received.
func jobSchedules(e *acctest.Env) int64 {
	return e.Server.Counters()[routeScheduleDeviceJob]
}

// countsSchedules is the positive control of the counts: a job scheduled by
// hand on a device outside the rollout's fleets shows in the server's
// counter. The counter is reset after it. It returns the device, which is
// in the workspace's default fleet.
func countsSchedules(t *testing.T, e *acctest.Env) string {
	t.Helper()
	outside := acctest.NewDevices(t, e, "control")
	e.Server.ResetCounters()
	if _, err := acctest.APIClient(t, e).ScheduleJob(context.Background(), outside[0], "probe", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if n := jobSchedules(e); n != 1 {
		t.Fatalf("the server counted %d job schedules for 1 sent: the counts below would prove nothing", n)
	}
	e.Server.ResetCounters()
	return outside[0]
}

// expectJobSchedules checks that the server received total single-device
// job schedules since the counters were reset, and that have of devices
// have the job "reboot" with value.
func expectJobSchedules(t *testing.T, e *acctest.Env, total int64, value string, have int, devices []string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := jobSchedules(e); got != total {
			return fmt.Errorf("%d job schedules sent, want %d", got, total)
		}
		n := 0
		for _, dev := range devices {
			j, err := acctest.APIClient(t, e).GetJob(context.Background(), dev, "reboot")
			if err == nil && jsonvalue.Equal(string(j.Value), value) {
				n++
			}
		}
		if n != have {
			return fmt.Errorf("%d devices have the job with %s, want %d", n, value, have)
		}
		return nil
	}
}

// jobsAnswer makes the server's devices run every job scheduled from now
// on after 50 to 250 ms; the devices in stuck never do (their job stays
// pending).
func jobsAnswer(t *testing.T, e *acctest.Env, stuck ...string) {
	t.Helper()
	err := e.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, Delay: 50 * time.Millisecond,
		Jitter: 200 * time.Millisecond, FailDevices: stuck, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
}

// jobRolloutOrder is the order in which a rollout of the job "reboot" with
// value in the test's workspace picks devices.
func jobRolloutOrder(e *acctest.Env, value string, ids []string) []string {
	return rollout.Order(rollout.Identity(e.Bootstrap.WorkspaceID, rollout.Job("reboot", []byte(value)), ""), ids)
}

func jobRolloutConfig(e *acctest.Env, fleet, value, extra string) string {
	return e.Config(fmt.Sprintf(`
resource "zdm_job_rollout" "test" {
  workspace_id  = %q
  fleet_ids     = [%q]
  name          = "reboot"
  value         = %s
  waves         = ["10%%", "50%%", "100%%"]
  wave_timeout  = "60s"
  poll_interval = "100ms"
  %s
}
`, e.Bootstrap.WorkspaceID, fleet, value, extra))
}

func stringsExact(want ...string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(want))
	for i, w := range want {
		checks[i] = knownvalue.StringExact(w)
	}
	return knownvalue.ListExact(checks)
}

// TestAccJobRolloutCompletes: the job goes out wave by wave in the
// rollout's order, to the named fleet only, with its value; the plan after
// is empty, rewriting the value as JSON text changes nothing, a gate
// setting changes in place without sending, and a new value is a new
// rollout.
func TestAccJobRolloutCompletes(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 20)
	_, others := acctest.NewFleetDevices(t, e, "others", 3)
	countsSchedules(t, e)
	jobsAnswer(t, e)
	const addr = "zdm_job_rollout.test"
	const value = `{"reason":"upgrade"}`
	order := jobRolloutOrder(e, value, ids)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: jobRolloutConfig(e, fleet, `{ reason = "upgrade" }`, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(e.Bootstrap.WorkspaceID+"/reboot")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("waves_completed"), knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("started_at"), knownvalue.NotNull()),
					// 10% of 20 is 2, 50% is 10 (8 more), 100% the other 10,
					// in the rollout's stable order.
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(0).AtMapKey("device_ids"),
						stringsExact(slices.Sorted(slices.Values(order[:2]))...)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("device_ids"),
						stringsExact(slices.Sorted(slices.Values(order[2:10]))...)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(2).AtMapKey("scheduled"),
						knownvalue.Int64Exact(10)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(2).AtMapKey("status_counts"),
						knownvalue.MapExact(map[string]knownvalue.Check{"done": knownvalue.Int64Exact(10)})),
				},
				Check: resource.ComposeTestCheckFunc(
					expectJobSchedules(t, e, 20, value, 20, ids),
					// The fleet not named got nothing.
					expectJobSchedules(t, e, 20, value, 0, others),
					// Wave 1 ran before wave 2 was sent: its devices were
					// scheduled first.
					wavesInOrder(t, e, order[:2], order[2:10], order[10:]),
				),
			},
			{
				// The same value as JSON text plans nothing.
				Config:   jobRolloutConfig(e, fleet, `jsonencode({ reason = "upgrade" })`, ""),
				PlanOnly: true,
			},
			{
				// A gate setting changes in place; nothing is sent.
				Config: jobRolloutConfig(e, fleet, `{ reason = "upgrade" }`, `pause_between_waves = "1s"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
				}},
				Check: expectJobSchedules(t, e, 20, value, 20, ids),
			},
			{
				// A new value is a new rollout: every device gets it once.
				Config: jobRolloutConfig(e, fleet, `{ reason = "again" }`, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
				},
				Check: expectJobSchedules(t, e, 40, `{"reason":"again"}`, 20, ids),
			},
			{
				ResourceName:  addr,
				ImportState:   true,
				ImportStateId: e.Bootstrap.WorkspaceID + "/reboot",
				ImportStateCheck: func(s []*terraform.InstanceState) error {
					if len(s) != 1 || s[0].Attributes["status"] != "imported" || s[0].Attributes["name"] != "reboot" {
						return fmt.Errorf("imported state = %v", s)
					}
					return nil
				},
			},
		},
	})
}

// wavesInOrder checks that every device of each wave was scheduled no
// earlier than every device of the waves before it.
func wavesInOrder(t *testing.T, e *acctest.Env, waves ...[]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var last time.Time
		for k, w := range waves {
			var first, latest time.Time
			for _, id := range w {
				j, err := acctest.APIClient(t, e).GetJob(context.Background(), id, "reboot")
				if err != nil {
					return err
				}
				at, err := time.Parse(time.RFC3339Nano, j.ScheduledAt)
				if err != nil {
					return err
				}
				if first.IsZero() || at.Before(first) {
					first = at
				}
				if at.After(latest) {
					latest = at
				}
			}
			if first.Before(last) {
				return fmt.Errorf("wave %d was scheduled at %s, before wave %d ended at %s", k+1, first, k, last)
			}
			last = latest
		}
		return nil
	}
}

// TestAccJobRolloutStopsThenResumes: three devices of wave 2 never finish
// the job, more than max_failure_ratio allows at wave_timeout: the apply
// fails naming them, with waves 1 and 2 sent and wave 3 untouched. Once the
// devices are done, applying again (the resource was tainted, so a
// replacement that resumes) sends only wave 3: no device gets the job
// twice.
func TestAccJobRolloutStopsThenResumes(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 20)
	countsSchedules(t, e)
	const value = `{}`
	order := jobRolloutOrder(e, value, ids)
	stuck := order[3:6] // in wave 2 (order[2:10])
	jobsAnswer(t, e, stuck...)
	config := jobRolloutConfig(e, fleet, `{}`, `max_failure_ratio = 0.25`)
	config = strings.Replace(config, `wave_timeout  = "60s"`, `wave_timeout  = "2s"`, 1)
	const addr = "zdm_job_rollout.test"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ExpectError: regexp.MustCompile(`(?s)` +
					acctest.Wrapped("Wave 2 of 3 (50%) stopped the rollout: 3 of 8 devices are not done after wave_timeout 2s and count as failed, more than max_failure_ratio 0.25 allows (2)").String() +
					`.*` + acctest.Wrapped(slices.Sorted(slices.Values(stuck))[0]+" (pending)").String() + `.*` + acctest.Wrapped("apply again").String()),
			},
			{
				PreConfig: func() {
					if got := jobSchedules(e); got != 10 {
						t.Errorf("%d job schedules after the stop, want 10 (waves 1 and 2)", got)
					}
					for _, id := range stuck {
						if err := e.Server.SetJobStatus(id, "reboot", "done"); err != nil {
							t.Fatal(err)
						}
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("waves_completed"), knownvalue.Int64Exact(3)),
					// The replacement inherited the record of waves 1 and 2
					// (8 devices of wave 2 scheduled by the first apply).
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("scheduled"),
						knownvalue.Int64Exact(8)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("device_ids"),
						stringsExact(slices.Sorted(slices.Values(order[2:10]))...)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(2).AtMapKey("scheduled"),
						knownvalue.Int64Exact(10)),
				},
				Check: expectJobSchedules(t, e, 20, value, 20, ids),
			},
			{
				Config:   config,
				PlanOnly: true,
			},
		},
	})
}

// TestAccJobRolloutResumesInPlace: a rollout imported, then stopped by a
// device not done in time, stays in the state (no taint); the next apply
// resumes it in place, sending nothing twice. A device that had the job by
// hand is not sent it.
func TestAccJobRolloutResumesInPlace(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 10)
	countsSchedules(t, e)
	const value = `{"n":1}`
	order := jobRolloutOrder(e, value, ids)
	stuck := order[1] // wave 2 (order[1:5])
	jobsAnswer(t, e, stuck)
	// Wave 1 (one device) got the job earlier, by hand.
	if _, err := acctest.APIClient(t, e).ScheduleJob(context.Background(), order[0], "reboot", []byte(`{"n": 1.0}`)); err != nil {
		t.Fatal(err)
	}
	importBlock := fmt.Sprintf(`
import {
  to = zdm_job_rollout.test
  id = "%s/reboot"
}
`, e.Bootstrap.WorkspaceID)
	config := strings.Replace(jobRolloutConfig(e, fleet, `{ n = 1 }`, ""), `wave_timeout  = "60s"`, `wave_timeout  = "1s"`, 1)
	const addr = "zdm_job_rollout.test"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:      config + importBlock,
				ExpectError: acctest.Wrapped("Wave 2 of 3 (50%) stopped the rollout: 1 of 4 devices are not done after wave_timeout 1s"),
			},
			{
				PreConfig: func() {
					if got := jobSchedules(e); got != 5 {
						t.Errorf("%d job schedules after the stop, want 5 (4 in wave 2, and the 1 by hand)", got)
					}
					if err := e.Server.SetJobStatus(stuck, "reboot", "done"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(addr, tfjsonpath.New("status")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(0).AtMapKey("scheduled"),
						knownvalue.Int64Exact(0)),
				},
				Check: expectJobSchedules(t, e, 10, value, 10, ids),
			},
		},
	})
}

// TestAccJobRolloutTimeoutWithinRatio: a device not done at wave_timeout
// counts as failed; within max_failure_ratio the wave passes, the rollout
// completes, and the device shows as pending in its wave. It is not sent
// the job again.
func TestAccJobRolloutTimeoutWithinRatio(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 5)
	countsSchedules(t, e)
	order := jobRolloutOrder(e, `{}`, ids)
	jobsAnswer(t, e, order[2]) // wave 2 (order[1:5])
	config := e.Config(fmt.Sprintf(`
resource "zdm_job_rollout" "test" {
  workspace_id      = %q
  fleet_ids         = [%q]
  name              = "reboot"
  waves             = ["1", "100%%"]
  max_failure_ratio = 0.25
  wave_timeout      = "1s"
  poll_interval     = "100ms"
}
`, e.Bootstrap.WorkspaceID, fleet))
	const addr = "zdm_job_rollout.test"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("value"), knownvalue.StringExact("{}")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("status_counts"),
						knownvalue.MapExact(map[string]knownvalue.Check{"done": knownvalue.Int64Exact(3), "pending": knownvalue.Int64Exact(1)})),
				},
				Check: expectJobSchedules(t, e, 5, `{}`, 5, ids),
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: expectJobSchedules(t, e, 5, `{}`, 5, ids),
			},
		},
	})
}

// TestAccJobRolloutHeldSchedules: the service holds every job POST for 3 s,
// longer than request_timeout = "1s", then acts. The rollout reads each
// device back instead of sending again, takes it as scheduled, and
// completes: each device is sent the job once, and the plan after is empty.
func TestAccJobRolloutHeldSchedules(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 2)
	countsSchedules(t, e)
	jobsAnswer(t, e)
	if _, err := e.Server.AddRequestFault(localzdm.RequestFault{Method: "POST",
		Path: "/v3/devices/{device_id}/jobs/{job_name}", Action: "delay", Delay: 3 * time.Second}); err != nil {
		t.Fatal(err)
	}
	config := strings.Replace(jobRolloutConfig(e, fleet, `{ a = 1 }`, ""), "provider \"zdm\" {", "provider \"zdm\" {\n  request_timeout = \"1s\"", 1)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr("zdm_job_rollout.test", "status", rollout.StatusCompleted),
					expectJobSchedules(t, e, 2, `{"a":1}`, 2, ids)),
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: expectJobSchedules(t, e, 2, `{"a":1}`, 2, ids),
			},
		},
	})
}

func TestAccJobRolloutAllFleetsAndValidation(t *testing.T) {
	e := acctest.NewEnv(t)
	_, a := acctest.NewFleetDevices(t, e, "a", 2)
	_, b := acctest.NewFleetDevices(t, e, "b", 2)
	loose := acctest.NewDevices(t, e, "loose") // in the default fleet
	all := append(append(slices.Clone(a), b...), loose...)
	all = append(all, countsSchedules(t, e)) // also in the default fleet
	jobsAnswer(t, e)
	ws := e.Bootstrap.WorkspaceID
	invalid := func(body, want string) resource.TestStep {
		return resource.TestStep{
			Config: e.Config(fmt.Sprintf(`
resource "zdm_job_rollout" "bad" {
  workspace_id = %q
  name         = "reboot"
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
			invalid(`waves = ["100%"]`, `(?s)Missing fleet_ids.*job.*never\s+targets\s+every\s+fleet`),
			invalid(`waves = ["100%"]
  all_fleets = false`, `Missing fleet_ids`),
			invalid(`waves = ["100%"]
  all_fleets = true
  fleet_ids = ["flt-1"]`, `Conflicting all_fleets and fleet_ids`),
			invalid(`waves = ["100%"]
  fleet_ids = []`, `(?s)fleet_ids.*at least 1`),
			invalid(`waves = ["10%", "50%"]
  all_fleets = true`, `(?s)Invalid waves.*must be "100%"`),
			invalid(`waves = ["50%", "10%", "100%"]
  all_fleets = true`, `(?s)Invalid waves.*waves grow`),
			invalid(`waves = ["ten", "100%"]
  all_fleets = true`, `(?s)Invalid waves.*neither a percentage`),
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
			invalid(`waves = ["100%"]
  all_fleets = true
  value = "not json"`, `(?s)Invalid JSON in value`),
			invalid(`waves = ["100%"]
  all_fleets = true
  value = [1, 2]`, `(?s)Invalid value.*must be an object`),
			invalid(`all_fleets = true`, `(?s)"waves" is required`),
			{
				Config: e.Config(fmt.Sprintf(`
resource "zdm_job_rollout" "all" {
  workspace_id  = %q
  all_fleets    = true
  name          = "reboot"
  value         = jsonencode({ reason = "all" })
  waves         = ["2", "100%%"]
  poll_interval = "100ms"
}
`, ws)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("zdm_job_rollout.all", tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("device_ids"),
						knownvalue.ListSizeExact(4)),
				},
				Check: expectJobSchedules(t, e, 6, `{"reason":"all"}`, 6, all),
			},
		},
	})
}

// TestAccJobRolloutImportThenApply: a rollout imported into a new state
// (its devices already have the job with the configured value) is finished
// by the next apply, which sends nothing; an import ID without the job
// name is an error that shows the form.
func TestAccJobRolloutImportThenApply(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 3)
	jobsAnswer(t, e)
	for _, id := range ids {
		if _, err := acctest.APIClient(t, e).ScheduleJob(context.Background(), id, "reboot", []byte(`{"reason":"upgrade"}`)); err != nil {
			t.Fatal(err)
		}
	}
	countsSchedules(t, e)
	config := jobRolloutConfig(e, fleet, `{ reason = "upgrade" }`, "")
	const addr = "zdm_job_rollout.test"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:        config,
				ResourceName:  addr,
				ImportState:   true,
				ImportStateId: e.Bootstrap.WorkspaceID,
				ExpectError:   regexp.MustCompile(`(?s)Invalid import ID.*<workspace_id>/<job_name>`),
			},
			{
				Config:             config,
				ResourceName:       addr,
				ImportState:        true,
				ImportStateId:      e.Bootstrap.WorkspaceID + "/reboot",
				ImportStatePersist: true,
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("started_at"), knownvalue.NotNull()),
				},
				Check: expectJobSchedules(t, e, 0, `{"reason":"upgrade"}`, 3, ids),
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}
