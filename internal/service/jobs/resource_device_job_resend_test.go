package jobs

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccDeviceJobNotResentOnReplace: a zdm_device_job tainted, replaced
// (replace_triggered_by, as -replace) or removed from the configuration and
// added back reads the device first and adopts the job it holds: the job is
// sent once in all. A change of triggers sends it again (the positive
// control of the count).
func TestAccDeviceJobNotResentOnReplace(t *testing.T) {
	e := acctest.NewEnv(t)
	dev := acctest.NewDevices(t, e, "sensor")[0]
	const addr = "zdm_device_job.test"
	config := func(round, triggers string) string {
		return e.Config(fmt.Sprintf(`
resource "terraform_data" "round" {
  input = %q
}

resource "zdm_device_job" "test" {
  device_id = %q
  name      = "configure"
  value     = jsonencode({ level = 3 })
  %s
  lifecycle {
    replace_triggered_by = [terraform_data.round]
  }
}
`, round, dev, triggers))
	}
	removed := e.Config(`
resource "terraform_data" "round" {
  input = "2"
}
`)
	sends := func(n int) resource.TestCheckFunc { return acctest.ExpectSends(e, "job", dev, "configure", n) }
	replaced := resource.ConfigPlanChecks{
		PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace)},
		PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{Config: config("1", ""), Check: sends(1)},
			{
				// taint + apply
				Taint:            []string{addr},
				Config:           config("1", ""),
				ConfigPlanChecks: replaced,
				Check:            sends(1),
			},
			{
				// the same as apply -replace
				Config:           config("2", ""),
				ConfigPlanChecks: replaced,
				Check:            sends(1),
			},
			{Config: removed, Check: sends(1)},
			{
				// added back, with triggers: a new resource has no prior
				// triggers, so it adopts the job the device holds.
				Config: config("2", `triggers = { release = "v1" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
				},
				Check: sends(1),
			},
			{
				// A change of triggers sends it again, once.
				Config: config("2", `triggers = { release = "v2" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: sends(2),
			},
			{
				// A new value is sent too.
				Config: e.Config(fmt.Sprintf(`
resource "zdm_device_job" "test" {
  device_id = %q
  name      = "configure"
  value     = jsonencode({ level = 4 })
  triggers  = { release = "v2" }
}
`, dev)),
				Check: sends(3),
			},
		},
	})
}

// TestAccFleetJobCreateSendsOnlyToDevicesLacking: a new zdm_fleet_job over
// a fleet where one device already holds the job sends it to the others
// only, one request each.
func TestAccFleetJobCreateSendsOnlyToDevicesLacking(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, devs := acctest.NewFleetWithDevices(t, e, "east", "east-1", "east-2", "east-3")
	acctest.ScheduleJob(t, e, devs[0], "configure", `{"level":1}`)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{{
			Config: e.Config(fmt.Sprintf(`
resource "zdm_fleet_job" "test" {
  workspace_id = %q
  fleet_ids    = [%q]
  name         = "configure"
  value        = jsonencode({ level = 1 })
}
`, e.Bootstrap.WorkspaceID, fleet)),
			Check: resource.ComposeTestCheckFunc(
				acctest.ExpectSends(e, "job", devs[0], "configure", 1),
				acctest.ExpectSends(e, "job", devs[1], "configure", 1),
				acctest.ExpectSends(e, "job", devs[2], "configure", 1),
				resource.TestCheckResourceAttr("zdm_fleet_job.test", "devices.#", "3"),
			),
		}},
	})
}
