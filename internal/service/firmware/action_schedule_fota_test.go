package firmware

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

func TestAccScheduleFotaAction(t *testing.T) {
	e := acctest.NewEnv(t)
	dev := acctest.NewDevices(t, e, "gateway")[0]
	config := func(input, version, extra string) string {
		return e.Config(fmt.Sprintf(`
action "zdm_schedule_fota" "upgrade" {
  config {
    device_id        = %q
    firmware_id      = "fw-gateway"
    firmware_version = %q
    %s
  }
}
`, dev, version, extra) + acctest.TriggeredBy("action.zdm_schedule_fota.upgrade", input))
	}
	wait := `wait          = true
    timeout       = "30s"
    poll_interval = "100ms"`
	var stop func()
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		TerraformVersionChecks:   acctest.ActionVersions,
		Steps: []resource.TestStep{
			{
				Config: config("1", "3.0.0", ""),
				Check:  fotaOnServer(t, e, "3.0.0", "pending", dev),
			},
			{
				PreConfig: func() { stop = acctest.DoneInBackground(t, e, "", dev) },
				Config:    config("2", "3.1.0", wait),
				Check:     fotaOnServer(t, e, "3.1.0", "done", dev),
			},
			{
				// The device reports a failure: waiting ends at the timeout,
				// naming the device and its status.
				PreConfig: func() {
					stop()
					stop = acctest.MoveInBackground(t, e, "", "failed", dev)
				},
				Config: config("3", "3.2.0", `wait          = true
    timeout       = "1s"
    poll_interval = "100ms"`),
				ExpectError: acctest.Wrapped(`firmware update fw-gateway 3.2.0 is not done after 1s on 1 of 1 devices: ` + dev + ` (failed)`),
			},
			{
				PreConfig: func() { stop() },
				Config:    config("4", "3.2.0", ""),
			},
		},
	})
}

func TestAccScheduleFotaActionFleets(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	fleetA, devsA := acctest.NewFleetWithDevices(t, e, "east", "east-1", "east-2")
	fleetB, devsB := acctest.NewFleetWithDevices(t, e, "west", "west-1")
	spare := acctest.NewDevices(t, e, "spare")[0]
	ab := append(slices.Clone(devsA), devsB...)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		TerraformVersionChecks:   acctest.ActionVersions,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { acctest.DoneInBackground(t, e, "", ab...) },
				Config: e.Config(fmt.Sprintf(`
action "zdm_schedule_fota" "sensors" {
  config {
    workspace_id     = %q
    fleet_ids        = [%q, %q]
    firmware_id      = "fw-sensor"
    firmware_version = "5.0.0"
    wait             = true
    timeout          = "30s"
    poll_interval    = "100ms"
  }
}
`, ws, fleetA, fleetB) + acctest.TriggeredBy("action.zdm_schedule_fota.sensors", "1")),
				Check: resource.ComposeTestCheckFunc(
					fotaOnServer(t, e, "5.0.0", "done", ab...),
					func(*terraform.State) error {
						if _, err := acctest.APIClient(t, e).GetFOTA(context.Background(), spare); err == nil {
							return fmt.Errorf("device %s of another fleet got the update", spare)
						}
						return nil
					},
				),
			},
		},
	})
}
