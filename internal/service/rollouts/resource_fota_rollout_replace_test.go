package rollouts

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
)

// TestAccFotaRolloutTaintedKeepsRecord: the first apply stops at wave 1
// (one of its two devices fails), and Terraform taints the rollout.
// Meanwhile both devices get another firmware: the service no longer shows
// that the rollout sent them 2.0. The replacement inherits the record and
// sends 2.0 only to wave 2's 8 devices, never again to those two.
func TestAccFotaRolloutTaintedKeepsRecord(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 10)
	order := rolloutOrder(e, "2.0", ids)
	devicesAnswer(t, e, order[0])
	config := func(ratio string) string {
		c := rolloutConfig(e, fleet, "2.0", "max_failure_ratio = "+ratio)
		return strings.Replace(c, `waves             = ["10%", "50%", "100%"]`, `waves             = ["20%", "100%"]`, 1)
	}
	const addr = "zdm_fota_rollout.test"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:      config("0"),
				ExpectError: regexp.MustCompile(acctest.Wrapped("Wave 1 of 2 (20%) stopped the rollout").String()),
			},
			{
				PreConfig: func() {
					if got := fotaSchedules(e); got != 2 {
						t.Fatalf("%d firmware schedules after the stop, want 2 (wave 1)", got)
					}
					devicesAnswer(t, e)
					for _, id := range order[:2] {
						if _, err := acctest.APIClient(t, e).ScheduleFOTA(context.Background(), id, "fw-sensor", "1.9"); err != nil {
							t.Fatal(err)
						}
					}
					// The positive control of the count: the counter saw the two.
					if got := fotaSchedules(e); got != 4 {
						t.Fatalf("%d firmware schedules after 2 sent by hand, want 4", got)
					}
					e.Server.ResetCounters()
				},
				// Both devices of wave 1 count as failed now (replaced):
				// allow them.
				Config: config("1"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(0).AtMapKey("device_ids"),
						stringListExact(slices.Sorted(slices.Values(order[:2]))...)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("inherited_waves").AtSliceIndex(0).AtMapKey("device_ids"),
						stringListExact(slices.Sorted(slices.Values(order[:2]))...)),
				},
				Check: resource.ComposeTestCheckFunc(
					expectSchedulesOf(t, e, 8, "2.0", 8, ids),
					func(*terraform.State) error {
						for _, id := range order[:2] {
							f, err := acctest.APIClient(t, e).GetFOTA(context.Background(), id)
							if err != nil || f.Value.FirmwareVersion != "1.9" {
								return fmt.Errorf("device %s: firmware %+v (%v), want 1.9 kept", id, f, err)
							}
						}
						return nil
					},
				),
			},
		},
	})
}
