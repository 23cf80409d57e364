package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccMessageWorkspaceNotFound: a workspace_id the service does not have
// (a typo in the provider block or ZDM_WORKSPACE_ID) fails naming
// workspace_id and ZDM_WORKSPACE_ID, not with a bare "404 workspace not
// found". The control plans the same device in the real workspace.
func TestAccMessageWorkspaceNotFound(t *testing.T) {
	env := acctest.NewEnv(t)
	provider := func(ws string) string {
		return fmt.Sprintf(`
provider "zdm" {
  base_url     = %q
  storage_url  = %q
  api_key      = %q
  workspace_id = %q
}
resource "zdm_device" "d" {
  name = "sensor-01"
}
`, env.Server.BaseURL(), env.Server.StorageURL(), env.Bootstrap.APIKey, ws)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: env.Factories,
		Steps: []resource.TestStep{{
			Config:      provider("wks-00000000000000ff"),
			ExpectError: errorPattern(`"wks-00000000000000ff"`, `workspace_id`, `ZDM_WORKSPACE_ID`),
		}, {
			Config:             provider(env.Bootstrap.WorkspaceID),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}

// TestAccMessageURLsSwapped: base_url and storage_url swapped make the
// storage service answer the management paths with "no route": the error
// says to check both settings. The control reads the same data source with
// the URLs in place.
func TestAccMessageURLsSwapped(t *testing.T) {
	env := acctest.NewEnv(t)
	config := func(base, storage string) string {
		return fmt.Sprintf(`
provider "zdm" {
  base_url     = %q
  storage_url  = %q
  api_key      = %q
  workspace_id = %q
}
data "zdm_workspaces" "all" {}
`, base, storage, env.Bootstrap.APIKey, env.Bootstrap.WorkspaceID)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: env.Factories,
		Steps: []resource.TestStep{{
			Config:      config(env.Server.StorageURL(), env.Server.BaseURL()),
			ExpectError: errorPattern(`404`, `no such path`, `base_url`, `storage_url`, `swapped`),
		}, {
			Config: config(env.Server.BaseURL(), env.Server.StorageURL()),
		}},
	})
}

// TestAccMessageWrongKeyAtPlan: a plan that creates objects reads the
// service before any create (the check for names already taken), so a key
// the service does not accept fails that plan, naming api_key and
// ZDM_API_KEY, for a device and for a fleet. The control plans the same
// creates with the right key.
func TestAccMessageWrongKeyAtPlan(t *testing.T) {
	env := acctest.NewEnv(t)
	config := func(key, resources string) string {
		return fmt.Sprintf(`
provider "zdm" {
  base_url     = %q
  storage_url  = %q
  api_key      = %q
  workspace_id = %q
}
%s
`, env.Server.BaseURL(), env.Server.StorageURL(), key, env.Bootstrap.WorkspaceID, resources)
	}
	const device = `resource "zdm_device" "d" { name = "sensor-01" }`
	const fleet = `resource "zdm_fleet" "f" { name = "east" }`
	wrong := "zdmk_" + strings.Repeat("0badc0de", 5)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: env.Factories,
		Steps: []resource.TestStep{{
			Config:      config(wrong, device),
			PlanOnly:    true,
			ExpectError: errorPattern(`API key not accepted`, `api_key`, `ZDM_API_KEY`),
		}, {
			Config:      config(wrong, fleet),
			PlanOnly:    true,
			ExpectError: errorPattern(`API key not accepted`, `api_key`, `ZDM_API_KEY`),
		}, {
			Config:             config(env.Bootstrap.APIKey, device+"\n"+fleet),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}

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
	refused := errorPattern(`Fleet not in the workspace`, foreign[0].ID, `Nothing was sent`, `Set fleet_id`, `data "zdm_fleets"`)
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
