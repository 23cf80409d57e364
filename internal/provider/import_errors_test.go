// Several families: the errors of malformed import IDs, incomplete identities and missing objects, for zdm_workspace and zdm_fleet (fleets) and zdm_device (devices) in one configuration.

package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccImportErrors checks the errors of malformed import IDs, of
// incomplete identities and of objects that do not exist.
func TestAccImportErrors(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	config := e.Config(`
resource "zdm_workspace" "w" {
  name = "w"
}
resource "zdm_fleet" "f" {
  name = "f"
}
resource "zdm_device" "d" {
  name = "d"
}
`)
	badID := func(addr, id, want string) resource.TestStep {
		return resource.TestStep{
			ResourceName:  addr,
			ImportState:   true,
			ImportStateId: id,
			ExpectError:   acctest.Wrapped(want),
		}
	}
	byIdentity := func(body, want string) resource.TestStep {
		return resource.TestStep{
			Config:      e.Config(body),
			ExpectError: acctest.Wrapped(want),
		}
	}
	const (
		deviceFormat = `expected "<workspace_id>/<device_id>" or "<device_id>"`
		fleetFormat  = `expected "<workspace_id>/<fleet_id>" or "<fleet_id>"`
	)
	notFound := func(kind string) string {
		return `Cannot import ` + kind + `: not found`
	}
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{Config: config},
			badID("zdm_device.d", ws+"/dev-1/extra", `has 3 parts: `+deviceFormat),
			badID("zdm_device.d", "/dev-1", `has an empty part: `+deviceFormat),
			badID("zdm_device.d", ws+"/", deviceFormat),
			badID("zdm_fleet.f", "a/b/c", fleetFormat),
			badID("zdm_workspace.w", ws+"/x", `Expected the workspace ID`),
			badID("zdm_device.d", "dev-doesnotexist", notFound("device")),
			badID("zdm_device.d", ws+"/dev-doesnotexist", `The device "dev-doesnotexist" of workspace "`+ws+`" does not exist`),
			badID("zdm_fleet.f", "flt-doesnotexist", notFound("fleet")),
			badID("zdm_workspace.w", "wks-doesnotexist", notFound("workspace")),
			byIdentity(`
import {
  to       = zdm_device.x
  identity = { id = "dev-doesnotexist" }
}
resource "zdm_device" "x" {
  name = "x"
}
`, notFound("device")),
			byIdentity(`
import {
  to       = zdm_fleet.x
  identity = { workspace_id = "`+ws+`", id = "flt-doesnotexist" }
}
resource "zdm_fleet" "x" {
  name = "x"
}
`, notFound("fleet")),
			byIdentity(`
import {
  to       = zdm_device.x
  identity = { workspace_id = "", id = "dev-1" }
}
resource "zdm_device" "x" {
  name = "x"
}
`, `The workspace_id of the identity is empty`),
			byIdentity(`
import {
  to       = zdm_workspace.x
  identity = { name = "x" }
}
resource "zdm_workspace" "x" {
  name = "x"
}
`, `attribute "id" is required`),
			// Back to a valid configuration for the destroy that ends the test.
			{Config: config},
		},
	})
}
