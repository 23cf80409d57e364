package rollouts

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccFotaRolloutMinDevicesReported: one device of the only wave fails;
// with min_devices_reported at the wave's size the gate still stops the
// rollout, but only once every device reported: the error names the failed
// device and no device not done.
func TestAccFotaRolloutMinDevicesReported(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 8)
	devicesAnswer(t, e, ids[0])
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{{
			Config: e.Config(fmt.Sprintf(`
resource "zdm_fota_rollout" "test" {
  workspace_id         = %q
  fleet_ids            = [%q]
  firmware_id          = "fw-sensor"
  firmware_version     = "2.0"
  waves                = ["100%%"]
  failure_statuses     = ["failed"]
  wave_timeout         = "60s"
  poll_interval        = "100ms"
  min_devices_reported = 100
}
`, e.Bootstrap.WorkspaceID, fleet)),
			ExpectError: regexp.MustCompile(fmt.Sprintf(`stopped the rollout: 1 of 8 devices failed,\s+more\s+than\s+`+
				`max_failure_ratio\s+0\s+allows\s+\(0\).\s+Failed:\s+%s\s+\(failed\)\s+0\s+of\s+1\s+waves`, ids[0])),
		}},
	})
}
