package fleets

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

func TestAccFleetResource(t *testing.T) {
	e := acctest.NewEnv(t)
	const addr = "zdm_fleet.test"
	sameID := statecheck.CompareValue(compare.ValuesSame())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: e.Config(`
resource "zdm_fleet" "test" {
  name = "east"
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
						// The provider's workspace is known at plan time.
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.Bootstrap.WorkspaceID)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("name"), knownvalue.StringExact("east")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("description"), knownvalue.StringExact("")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.Bootstrap.WorkspaceID)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("account_id"), knownvalue.StringExact(e.Bootstrap.AccountID)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("created_at"), knownvalue.NotNull()),
					sameID.AddStateValue(addr, tfjsonpath.New("id")),
				},
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateIdFunc: acctest.ImportID(addr, false),
				ImportStateVerify: true,
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateIdFunc: acctest.ImportID(addr, true),
				ImportStateVerify: true,
			},
			{
				// Setting workspace_id to the provider's default changes nothing.
				Config: e.Config(fmt.Sprintf(`
resource "zdm_fleet" "test" {
  workspace_id = %q
  name         = "east"
}
`, e.Bootstrap.WorkspaceID)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(addr, tfjsonpath.New("id"))},
			},
			{
				// A second fleet named "east" is asked for (the refusal
				// without it is TestAccFleetReplacementRefused).
				Config: e.Config(`
resource "zdm_fleet" "test" {
  name                  = "east"
  description           = "east coast"
  allow_duplicate_names = true
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("description"), knownvalue.StringExact("east coast")),
				},
			},
		},
	})
	// Nothing is deleted: both fleets named "east" and the default fleet remain.
	fleets, err := acctest.APIClient(t, e).ListFleets(context.Background(), e.Bootstrap.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	if len(fleets) != 3 {
		t.Errorf("workspace has %d fleets after destroy, want 3 (default and two \"east\"): %+v", len(fleets), fleets)
	}
}

func TestAccFleetResourceErrors(t *testing.T) {
	e := acctest.NewEnv(t)
	other, err := e.Server.Bootstrap("other")
	if err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:      e.Config(`resource "zdm_fleet" "test" { name = " " }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Blank value`),
			},
			{
				Config: e.Config(`
resource "zdm_fleet" "test" {
  name         = "x"
  workspace_id = ""
}
`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)workspace_id string length must be at least 1`),
			},
			{
				// The key is bound to its own workspace.
				Config: e.Config(fmt.Sprintf(`
resource "zdm_fleet" "test" {
  workspace_id = %q
  name         = "x"
}
`, other.WorkspaceID)),
				// The check for a second fleet cannot list the fleets
				// there: refused at plan, before any create.
				ExpectError: regexp.MustCompile(`(?s)Cannot\s+check\s+for\s+fleets\s+with\s+the\s+same\s+names.*403\s+Forbidden.*An\s+API\s+key\s+is\s+bound\s+to\s+one\s+workspace.*Nothing\s+was\s+sent`),
			},
			{
				Config:        e.Config(`resource "zdm_fleet" "test" { name = "x" }`),
				ResourceName:  "zdm_fleet.test",
				ImportState:   true,
				ImportStateId: "a/b/c",
				ExpectError:   regexp.MustCompile(`(?s)Invalid import ID.*has 3 parts.*<workspace_id>/<fleet_id>`),
			},
			{
				Config:        e.Config(`resource "zdm_fleet" "test" { name = "x" }`),
				ResourceName:  "zdm_fleet.test",
				ImportState:   true,
				ImportStateId: "/flt-1",
				ExpectError:   regexp.MustCompile(`(?s)Invalid import ID.*empty part`),
			},
		},
	})
}
