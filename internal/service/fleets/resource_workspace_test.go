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
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

func TestAccWorkspaceResource(t *testing.T) {
	e := acctest.NewEnv(t)
	const addr = "zdm_workspace.test"
	sameID := statecheck.CompareValue(compare.ValuesSame())
	var firstID string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: e.Config(`
resource "zdm_workspace" "test" {
  name = "staging"
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("name"), knownvalue.StringExact("staging")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("description"), knownvalue.StringExact("")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("account_id"), knownvalue.StringExact(e.Bootstrap.AccountID)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("created_at"), knownvalue.NotNull()),
					sameID.AddStateValue(addr, tfjsonpath.New("id")),
				},
				Check: acctest.CaptureID(addr, &firstID),
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				// Same configuration, explicit empty description: no change.
				Config: e.Config(`
resource "zdm_workspace" "test" {
  name        = "staging"
  description = ""
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(addr, tfjsonpath.New("id"))},
			},
			{
				// No update in the API: a new description replaces the
				// workspace, here with a second workspace named "staging"
				// asked for (the refusal without it is
				// TestAccWorkspaceReplacementRefused).
				Config: e.Config(`
resource "zdm_workspace" "test" {
  name                  = "staging"
  description           = "second"
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
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("description"), knownvalue.StringExact("second")),
				},
				Check: func(s *terraform.State) error {
					// The old workspace stays in the service beside the new one.
					all, err := acctest.APIClient(t, e).ListWorkspaces(context.Background())
					if err != nil {
						return err
					}
					newID := s.RootModule().Resources[addr].Primary.ID
					var sawOld, sawNew bool
					for _, w := range all {
						sawOld = sawOld || w.ID == firstID
						sawNew = sawNew || w.ID == newID
					}
					if !sawOld || !sawNew || firstID == newID {
						return fmt.Errorf("old %s (seen %v), new %s (seen %v)", firstID, sawOld, newID, sawNew)
					}
					return nil
				},
			},
			{
				// A rename replaces it too.
				Config: e.Config(`
resource "zdm_workspace" "test" {
  name        = "staging-2"
  description = "second"
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
					},
				},
			},
		},
	})
}

func TestAccWorkspaceResourceErrors(t *testing.T) {
	e := acctest.NewEnv(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:      e.Config(`resource "zdm_workspace" "test" { name = "  " }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Blank value.*name must contain at least one character`),
			},
			{
				Config:      e.Config(`resource "zdm_workspace" "test" { name = "" }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Attribute name string length must be at least 1`),
			},
			{
				Config:        e.Config(`resource "zdm_workspace" "test" { name = "x" }`),
				ResourceName:  "zdm_workspace.test",
				ImportState:   true,
				ImportStateId: "wks-does-not-exist",
				ExpectError:   regexp.MustCompile(`Cannot import (non-existent remote object|workspace: not found)`),
			},
		},
	})
}
