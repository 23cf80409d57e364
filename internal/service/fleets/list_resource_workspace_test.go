package fleets

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

func TestAccWorkspaceListResource(t *testing.T) {
	e := acctest.NewEnv(t)
	other, err := acctest.APIClient(t, e).CreateWorkspace(t.Context(), "staging", "pre-production")
	if err != nil {
		t.Fatal(err)
	}
	mine := map[string]knownvalue.Check{"id": knownvalue.StringExact(e.Bootstrap.WorkspaceID)}
	staging := map[string]knownvalue.Check{"id": knownvalue.StringExact(other.ID)}
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{Config: e.Config(""), PostApplyFunc: e.Server.ResetCounters},
			{
				Query: true,
				Config: `
list "zdm_workspace" "all" {
  provider         = zdm
  include_resource = true
  config {}
}

list "zdm_workspace" "staging" {
  provider = zdm
  config {
    name = "staging"
  }
}
`,
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("zdm_workspace.all", 2),
					querycheck.ExpectIdentity("zdm_workspace.all", mine),
					querycheck.ExpectIdentity("zdm_workspace.all", staging),
					querycheck.ExpectResourceDisplayName("zdm_workspace.all", queryfilter.ByResourceIdentity(mine),
						knownvalue.StringExact(e.Bootstrap.WorkspaceName+" ("+e.Bootstrap.WorkspaceID+")")),
					querycheck.ExpectResourceKnownValues("zdm_workspace.all", queryfilter.ByResourceIdentity(staging),
						[]querycheck.KnownValueCheck{
							{Path: tfjsonpath.New("id"), KnownValue: knownvalue.StringExact(other.ID)},
							{Path: tfjsonpath.New("name"), KnownValue: knownvalue.StringExact("staging")},
							{Path: tfjsonpath.New("description"), KnownValue: knownvalue.StringExact("pre-production")},
							{Path: tfjsonpath.New("account_id"), KnownValue: knownvalue.StringExact(e.Bootstrap.AccountID)},
							{Path: tfjsonpath.New("created_at"), KnownValue: knownvalue.NotNull()},
						}),
					querycheck.ExpectLength("zdm_workspace.staging", 1),
					querycheck.ExpectIdentity("zdm_workspace.staging", staging),
				},
			},
			{
				PreConfig: func() {
					if got := e.Server.Counters()[acctest.RouteListWorkspaces]; got != 2 {
						t.Errorf("%s: %d calls, want 2", acctest.RouteListWorkspaces, got)
					}
				},
				Config: e.Config(""),
			},
		},
	})
}
