// Several families and the provider: dropped creates of a fleet, devices, a device job and a FOTA in one apply, and the provider's request_timeout.

package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// Fault and load tests: the provider against a local server that fails,
// rate-limits, drops connections after acting, or hangs. Everything runs on
// loopback. ZDM_BENCH_SCALE (a whole number, default 1) multiplies the
// number of devices of the load test.

// TestAccReliabilityDroppedCreates drops the connection after the server
// acted on every create (and scheduling), while it also answers some
// requests 503: each resource adopts the object its request created, no
// duplicate appears, and a second plan is empty.
func TestAccReliabilityDroppedCreates(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	const n = 20
	cfg := fe.Config(`  max_retries = 20`, fmt.Sprintf(`
resource "zdm_fleet" "f" {
  name = "dropped"
}
resource "zdm_device" "d" {
  count    = %d
  name     = "dropped-${count.index}"
  fleet_id = zdm_fleet.f.id
}
resource "zdm_device_job" "j" {
  device_id = zdm_device.d[0].id
  name      = "configure"
  value     = jsonencode({ level = 2 })
}
resource "zdm_fota" "u" {
  device_id        = zdm_device.d[1].id
  firmware_id      = "fw-sensor"
  firmware_version = "1.2.0"
}
`, n))
	want := []string{}
	for i := range n {
		want = append(want, fmt.Sprintf("dropped-%d", i))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					fe.Server.SetFaults(localzdm.Faults{DropAfterCreate: true, ErrorRate: 0.1})
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				Config:   cfg,
				PlanOnly: true,
			},
		},
	})
	fe.Server.SetFaults(localzdm.Faults{})
	acctest.CheckExactly(t, "devices after dropped creates", acctest.DeviceNames(t, fe.Client(t), fe.Bootstrap.WorkspaceID), want)
	ctx := context.Background()
	c := fe.Client(t)
	fleets, err := c.ListFleets(ctx, fe.Bootstrap.WorkspaceID)
	if err != nil || len(fleets) != 2 {
		t.Errorf("fleets after dropped creates: %+v, %v (want default and dropped)", fleets, err)
	}
	devices, err := c.ListDevices(ctx, fe.Bootstrap.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	for _, d := range devices {
		byName[d.Name] = d.ID
	}
	if jobs, err := c.ListJobs(ctx, byName["dropped-0"], ""); err != nil || len(jobs) != 1 || string(jobs[0].Value) != `{"level":2}` {
		t.Errorf("jobs of dropped-0: %+v, %v", jobs, err)
	}
	if f, err := c.GetFOTA(ctx, byName["dropped-1"]); err != nil || f.Value.FirmwareVersion != "1.2.0" {
		t.Errorf("firmware update of dropped-1: %+v, %v", f, err)
	}
	// Every create or scheduling that succeeded on the server lost its
	// answer: the fleet, the devices, the job and the update.
	if drops := fe.Statuses()[0]; drops != n+3 {
		t.Errorf("%d connections dropped after a create; want %d", drops, n+3)
	}
}

// TestAccReliabilityHungServer makes every request hang: reads and creates
// fail within request_timeout (and the retries) with a message that names
// the setting.
func TestAccReliabilityHungServer(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	settings := `  request_timeout = "1s"
  max_retries     = 1`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		Steps: []resource.TestStep{
			{
				PreConfig:   func() { fe.Server.SetFaults(localzdm.Faults{Hang: true}) },
				Config:      fe.Config(settings, `data "zdm_workspaces" "all" {}`),
				ExpectError: acctest.ErrorPattern(`timed out after 1s`, `raise the provider setting request_timeout`),
			},
			{
				Config: fe.Config(settings, `
resource "zdm_device" "slow" {
  name                  = "slow"
  allow_duplicate_names = true # no list before the create: the create itself hangs
}
`),
				ExpectError: acctest.ErrorPattern(`Cannot create device "slow"`, `timed out after 1s`, `request_timeout`),
			},
			{
				// Without the opt-in, the plan first makes sure that no
				// device of the name exists: its list times out, and the
				// plan fails before any create.
				Config: fe.Config(settings, `
resource "zdm_device" "slow" {
  name = "slow"
}
`),
				ExpectError: acctest.ErrorPattern(`Cannot check for devices with the same names`, `timed out after 1s`, `request_timeout`, `Plan again`),
			},
		},
	})
	fe.Server.SetFaults(localzdm.Faults{})
	if names := acctest.DeviceNames(t, fe.Client(t), fe.Bootstrap.WorkspaceID); len(names) != 0 {
		t.Errorf("a hung create created devices: %v", names)
	}
}
