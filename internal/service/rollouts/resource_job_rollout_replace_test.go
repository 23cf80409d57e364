package rollouts_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
)

// taintingConfig is a job rollout of the job "reboot" with value {} whose
// first apply stops at wave 1 when a device of it does not run the job
// within 2 s (max_failure_ratio 0).
func taintingConfig(e *acctest.Env, fleet, waves, ratio string) string {
	config := jobRolloutConfig(e, fleet, `{}`, "max_failure_ratio = "+ratio)
	config = strings.Replace(config, `wave_timeout  = "60s"`, `wave_timeout  = "2s"`, 1)
	return strings.Replace(config, `waves         = ["10%", "50%", "100%"]`, "waves         = "+waves, 1)
}

// jobValueIs checks that device has the job "reboot" with value, or none
// when value is "".
func jobValueIs(t *testing.T, e *acctest.Env, device, value string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		j, err := acctest.APIClient(t, e).GetJob(context.Background(), device, "reboot")
		switch {
		case value == "" && err == nil:
			return fmt.Errorf("device %s has the job %s, want none", device, j.Value)
		case value == "":
			return nil
		case err != nil:
			return fmt.Errorf("device %s: %w", device, err)
		case !jsonvalue.Equal(string(j.Value), value):
			return fmt.Errorf("device %s has the job with %s, want %s", device, j.Value, value)
		}
		return nil
	}
}

// TestAccJobRolloutTaintedKeepsRecord: the first apply stops at wave 1
// (one of its two devices does not run the job in time), and Terraform
// taints the rollout. Meanwhile the job of one of those devices gets
// another value and the service purges the other's: the service no longer
// shows that the rollout sent them the job. The replacement inherits the
// record and sends the job only to wave 2's 8 devices, never again to
// those two.
func TestAccJobRolloutTaintedKeepsRecord(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 10)
	countsSchedules(t, e)
	order := jobRolloutOrder(e, `{}`, ids)
	replaced, purged := order[0], order[1] // wave 1: 20% of 10
	jobsAnswer(t, e, replaced)
	const addr = "zdm_job_rollout.test"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:      taintingConfig(e, fleet, `["20%", "100%"]`, "0"),
				ExpectError: regexp.MustCompile(acctest.Wrapped("Wave 1 of 2 (20%) stopped the rollout").String()),
			},
			{
				PreConfig: func() {
					if got := jobSchedules(e); got != 2 {
						t.Fatalf("%d job schedules after the stop, want 2 (wave 1)", got)
					}
					jobsAnswer(t, e)
					acctest.ScheduleJob(t, e, replaced, "reboot", `{"other":1}`)
					if err := e.Server.PurgeJob(purged, "reboot"); err != nil {
						t.Fatal(err)
					}
					e.Server.ResetCounters()
				},
				// Both devices of wave 1 count as failed now: allow them.
				Config: taintingConfig(e, fleet, `["20%", "100%"]`, "1"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("inherited_waves").AtSliceIndex(0).AtMapKey("device_ids"),
						stringsExact(slices.Sorted(slices.Values(order[:2]))...)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(0).AtMapKey("device_ids"),
						stringsExact(slices.Sorted(slices.Values(order[:2]))...)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("scheduled"),
						knownvalue.Int64Exact(8)),
				},
				Check: resource.ComposeTestCheckFunc(
					// Wave 2 only: the counter saw the 8 (countsSchedules is
					// its positive control).
					expectJobSchedules(t, e, 8, `{}`, 8, order[2:]),
					jobValueIs(t, e, replaced, `{"other":1}`),
					jobValueIs(t, e, purged, ""),
				),
			},
			{
				Config:   taintingConfig(e, fleet, `["20%", "100%"]`, "1"),
				PlanOnly: true,
			},
		},
	})
}

// TestAccJobRolloutTaintedKeepsWaves: the first apply stops at wave 1 and
// Terraform taints the rollout; meanwhile 10 devices are created in its
// fleet. The replacement keeps the recorded devices in their waves and cuts
// the waves over the devices there were at the start (started_at): wave 1
// keeps its 2 devices, wave 2 gets the next 3 in the rollout's order, and
// the 10 new devices join the last wave, sent after wave 2.
func TestAccJobRolloutTaintedKeepsWaves(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 10)
	countsSchedules(t, e)
	order := jobRolloutOrder(e, `{}`, ids)
	jobsAnswer(t, e, order[0])
	const addr = "zdm_job_rollout.test"
	const waves = `["20%", "50%", "100%"]`
	var late []string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:      taintingConfig(e, fleet, waves, "0"),
				ExpectError: regexp.MustCompile(acctest.Wrapped("Wave 1 of 3 (20%) stopped the rollout").String()),
			},
			{
				PreConfig: func() {
					jobsAnswer(t, e)
					if err := e.Server.SetJobStatus(order[0], "reboot", "done"); err != nil {
						t.Fatal(err)
					}
					late = acctest.CreateDevices(t, e, fleet, "late", 10)
					e.Server.ResetCounters()
				},
				Config: taintingConfig(e, fleet, waves, "0"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(0).AtMapKey("device_ids"),
						stringsExact(slices.Sorted(slices.Values(order[:2]))...)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("device_ids"),
						stringsExact(slices.Sorted(slices.Values(order[2:5]))...)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(2).AtMapKey("scheduled"),
						knownvalue.Int64Exact(15)),
				},
				Check: resource.ComposeTestCheckFunc(
					// 3 in wave 2, 5 + 10 in wave 3; none to wave 1's two.
					func(s *terraform.State) error { return expectJobSchedules(t, e, 18, `{}`, 20, append(ids, late...))(s) },
					func(s *terraform.State) error {
						return wavesInOrder(t, e, order[2:5], slices.Concat(order[5:], late))(s)
					},
				),
			},
			{
				Config:   taintingConfig(e, fleet, waves, "0"),
				PlanOnly: true,
			},
		},
	})
}
