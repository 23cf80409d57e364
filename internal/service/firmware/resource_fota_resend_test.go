package firmware

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccFotaNotResentOnReplace: a zdm_fota on a device tainted, or
// removed and added back, adopts the update the device holds: it is sent
// once. A change of triggers sends it again (the positive control).
func TestAccFotaNotResentOnReplace(t *testing.T) {
	e := acctest.NewEnv(t)
	dev := acctest.NewDevices(t, e, "sensor")[0]
	const addr = "zdm_fota.test"
	config := func(triggers string) string {
		return e.Config(fmt.Sprintf(`
resource "zdm_fota" "test" {
  device_id        = %q
  firmware_id      = "fw-sensor"
  firmware_version = "1.0.0"
  %s
}
`, dev, triggers))
	}
	sends := func(n int) resource.TestCheckFunc { return acctest.ExpectSends(e, "fota", dev, "fw-sensor", n) }
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{Config: config(""), Check: sends(1)},
			{
				Taint:  []string{addr},
				Config: config(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: sends(1),
			},
			{Config: e.Config(""), Check: sends(1)},
			{Config: config(`triggers = { release = "v1" }`), Check: sends(1)},
			{
				Config: config(`triggers = { release = "v2" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				Check: sends(2),
			},
		},
	})
}
