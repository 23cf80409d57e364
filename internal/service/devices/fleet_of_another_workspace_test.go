package devices_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccMessageFleetOfAnotherWorkspace: a fleet_id of another workspace is
// refused at plan, naming fleet_id and the fix, for a zdm_device and a
// zdm_fleet_devices created there and for a zdm_device moved there, with no
// device written. The controls: the same plans with a fleet of the
// workspace pass, and a fleet created in the same apply, after the
// workspace's fleets were listed, is found (asked for by ID).
func TestAccMessageFleetOfAnotherWorkspace(t *testing.T) {
	env := acctest.NewEnv(t)
	other, err := env.Server.Bootstrap("other")
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := acctest.APIClientWithKey(t, env, other.APIKey).ListFleets(context.Background(), other.WorkspaceID)
	if err != nil || len(foreign) == 0 {
		t.Fatalf("fleets of the other workspace: %v, %v", foreign, err)
	}
	own := acctest.DefaultFleetID(t, env)
	device := func(fleet string) string {
		return env.Config(fmt.Sprintf(`
resource "zdm_device" "d" {
  name     = "sensor-01"
  fleet_id = %q
}
`, fleet))
	}
	bulk := func(fleet string) string {
		return env.Config(fmt.Sprintf(`
resource "zdm_fleet_devices" "b" {
  fleet_id = %q
  devices  = { a = "bulk-a", b = "bulk-b" }
}
`, fleet))
	}
	refused := acctest.ErrorPattern(`Fleet not in the workspace`, foreign[0].ID, `Nothing was sent`, `Set fleet_id`, `data "zdm_fleets"`)
	noWrites := func(*terraform.State) error {
		c := env.Server.Counters()
		if n := c[acctest.RouteCreateDevice] + c[acctest.RouteUpdateDevice]; n != 1 {
			return fmt.Errorf("device writes: %d, want 1 (the create of sensor-01 only)", n)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: env.Factories,
		Steps: []resource.TestStep{{
			Config:      device(foreign[0].ID),
			PlanOnly:    true,
			ExpectError: refused,
		}, {
			Config:      bulk(foreign[0].ID),
			PlanOnly:    true,
			ExpectError: refused,
		}, {
			Config:             bulk(own),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}, {
			Config: device(own),
		}, {
			// A move to the other workspace's fleet is refused too.
			Config:      device(foreign[0].ID),
			ExpectError: refused,
		}, {
			Config: device(own),
			Check:  noWrites,
		}, {
			// A fleet created in this apply, after the fleet's duplicate
			// check listed the workspace's fleets: the device's final plan
			// finds it by ID.
			Config: env.Config(`
resource "zdm_fleet" "new" {
  name = "created-in-this-apply"
}
resource "zdm_device" "d" {
  name     = "sensor-01"
  fleet_id = zdm_fleet.new.id
}
`),
			Check: resource.TestCheckResourceAttrPair("zdm_device.d", "fleet_id", "zdm_fleet.new", "id"),
		}},
	})
}
