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

func TestAccFleetListResource(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	c := acctest.APIClient(t, e)
	east, err := c.CreateFleet(t.Context(), ws, "east", "eastern sites")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateFleet(t.Context(), ws, "west", ""); err != nil {
		t.Fatal(err)
	}
	eastIdentity := map[string]knownvalue.Check{
		"workspace_id": knownvalue.StringExact(ws),
		"id":           knownvalue.StringExact(east.ID),
	}
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{Config: e.Config(""), PostApplyFunc: e.Server.ResetCounters},
			{
				Query: true,
				Config: `
list "zdm_fleet" "all" {
  provider         = zdm
  include_resource = true
  config {}
}

list "zdm_fleet" "east" {
  provider = zdm
  config {
    workspace_id = "` + ws + `"
    name         = "east"
  }
}
`,
				QueryResultChecks: []querycheck.QueryResultCheck{
					// The default fleet, east and west.
					querycheck.ExpectLength("zdm_fleet.all", 3),
					querycheck.ExpectIdentity("zdm_fleet.all", eastIdentity),
					querycheck.ExpectResourceDisplayName("zdm_fleet.all", queryfilter.ByResourceIdentity(eastIdentity),
						knownvalue.StringExact("east ("+east.ID+")")),
					querycheck.ExpectResourceKnownValues("zdm_fleet.all", queryfilter.ByResourceIdentity(eastIdentity),
						[]querycheck.KnownValueCheck{
							{Path: tfjsonpath.New("id"), KnownValue: knownvalue.StringExact(east.ID)},
							{Path: tfjsonpath.New("workspace_id"), KnownValue: knownvalue.StringExact(ws)},
							{Path: tfjsonpath.New("name"), KnownValue: knownvalue.StringExact("east")},
							{Path: tfjsonpath.New("description"), KnownValue: knownvalue.StringExact("eastern sites")},
							{Path: tfjsonpath.New("account_id"), KnownValue: knownvalue.StringExact(e.Bootstrap.AccountID)},
							{Path: tfjsonpath.New("created_at"), KnownValue: knownvalue.NotNull()},
						}),
					querycheck.ExpectLength("zdm_fleet.east", 1),
					querycheck.ExpectIdentity("zdm_fleet.east", eastIdentity),
				},
			},
			{
				// Two list blocks, two API calls.
				PreConfig: func() {
					if got := e.Server.Counters()[acctest.RouteListFleets]; got != 2 {
						t.Errorf("%s: %d calls, want 2", acctest.RouteListFleets, got)
					}
					if got := e.Server.TotalRequests(); got != 2 {
						t.Errorf("the query made %d API calls, want 2: %v", got, e.Server.Counters())
					}
				},
				Config: e.Config(""),
			},
		},
	})
}
