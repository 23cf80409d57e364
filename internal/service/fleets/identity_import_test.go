package fleets_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// workspaceImportID is the import ID of a workspace: its ID.
func workspaceImportID(addr string) resource.ImportStateIdFunc {
	return acctest.ImportID(addr, true)
}

func TestAccWorkspaceIdentityImport(t *testing.T) {
	e := acctest.NewEnv(t)
	const addr = "zdm_workspace.test"
	config := e.Config(`
resource "zdm_workspace" "test" {
  name        = "imported"
  description = "a workspace"
}
`)
	steps := []resource.TestStep{{Config: config, ConfigStateChecks: acctest.IdentityChecks(addr, "id")}}
	steps = append(steps, acctest.ImportSteps(addr, workspaceImportID(addr))...)
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		ProtoV6ProviderFactories: e.Factories,
		Steps:                    steps,
	})
}

func TestAccFleetIdentityImport(t *testing.T) {
	e := acctest.NewEnv(t)
	const addr = "zdm_fleet.test"
	config := e.Config(`
resource "zdm_fleet" "test" {
  name        = "imported"
  description = "a fleet"
}
`)
	steps := []resource.TestStep{{
		Config: config,
		ConfigStateChecks: append(acctest.IdentityChecks(addr, "workspace_id", "id"),
			statecheck.ExpectIdentityValue(addr, tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.Bootstrap.WorkspaceID))),
	}}
	steps = append(steps, acctest.ImportSteps(addr, acctest.ImportID(addr, false))...)
	// The plain ID, in the provider's workspace.
	steps = append(steps, resource.TestStep{
		ResourceName:      addr,
		ImportState:       true,
		ImportStateIdFunc: acctest.ImportID(addr, true),
		ImportStateVerify: true,
	})
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		ProtoV6ProviderFactories: e.Factories,
		Steps:                    steps,
	})
}
