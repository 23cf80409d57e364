package fleets

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

func TestAccWorkspaceDataSources(t *testing.T) {
	e := acctest.NewEnv(t)
	config := e.Config(fmt.Sprintf(`
resource "zdm_workspace" "extra" {
  name        = "extra"
  description = "an extra workspace"
}
data "zdm_workspace" "by_id" {
  id = %q
}
data "zdm_workspace" "by_name" {
  name       = "extra"
  depends_on = [zdm_workspace.extra]
}
data "zdm_workspaces" "all" {
  depends_on = [zdm_workspace.extra]
}
`, e.Bootstrap.WorkspaceID))
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.zdm_workspace.by_id", tfjsonpath.New("name"),
						knownvalue.StringExact(e.Bootstrap.WorkspaceName)),
					statecheck.ExpectKnownValue("data.zdm_workspace.by_id", tfjsonpath.New("account_id"),
						knownvalue.StringExact(e.Bootstrap.AccountID)),
					statecheck.CompareValuePairs("data.zdm_workspace.by_name", tfjsonpath.New("id"),
						"zdm_workspace.extra", tfjsonpath.New("id"), compare.ValuesSame()),
					statecheck.ExpectKnownValue("data.zdm_workspace.by_name", tfjsonpath.New("description"),
						knownvalue.StringExact("an extra workspace")),
					statecheck.ExpectKnownValue("data.zdm_workspaces.all", tfjsonpath.New("workspaces"), knownvalue.ListSizeExact(2)),
				},
			},
			{
				PreConfig: func() {
					for range 2 {
						if _, err := e.Server.CreateWorkspace(e.Bootstrap.AccountID, "twin"); err != nil {
							t.Fatalf("create workspace: %v", err)
						}
					}
				},
				Config:      config + `data "zdm_workspace" "twin" { name = "twin" }`,
				ExpectError: regexp.MustCompile(`(?s)Several workspaces found.*"twin" is not unique.*wks-`),
			},
			{
				Config:      config + `data "zdm_workspace" "missing" { id = "wks-missing" }`,
				ExpectError: regexp.MustCompile(`(?s)No workspace found.*id "wks-missing"`),
			},
			{
				Config:      config + `data "zdm_workspace" "blank" { name = " " }`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Blank value`),
			},
			{
				Config: config,
			},
		},
	})
}
