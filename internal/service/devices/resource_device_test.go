package devices

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

func TestFlattenIdentities(t *testing.T) {
	t.Parallel()
	cases := map[string]types.String{
		``:                 types.StringNull(),
		`null`:             types.StringNull(),
		` null `:           types.StringNull(),
		`[]`:               types.StringNull(),
		`[ ]`:              types.StringNull(),
		`[{"a": 1}]`:       types.StringValue(`[{"a":1}]`),
		`{"unexpected":1}`: types.StringValue(`{"unexpected":1}`),
		`not json`:         types.StringValue(`not json`),
	}
	for raw, want := range cases {
		var in json.RawMessage
		if raw != "" {
			in = json.RawMessage(raw)
		}
		if got := FlattenIdentities(in); !got.Equal(want) {
			t.Errorf("flattenIdentities(%q) = %v, want %v", raw, got, want)
		}
	}
}

func TestAccDeviceResource(t *testing.T) {
	e := acctest.NewEnv(t)
	defaultID := acctest.DefaultFleetID(t, e)
	const addr = "zdm_device.test"
	sameID := statecheck.CompareValue(compare.ValuesSame())
	fleets := `
resource "zdm_fleet" "a" {
  name = "fleet-a"
}
resource "zdm_fleet" "b" {
  name = "fleet-b"
}
`
	var deviceID string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				// No fleet_id: the device goes to the default fleet.
				Config: e.Config(fleets + `
resource "zdm_device" "test" {
  name = "sensor-1"
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("fleet_id")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("name"), knownvalue.StringExact("sensor-1")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("fleet_name"), knownvalue.StringExact("default")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("fleet_id"), knownvalue.StringExact(defaultID)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.Bootstrap.WorkspaceID)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("workspace_name"), knownvalue.StringExact(e.Bootstrap.WorkspaceName)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("account_id"), knownvalue.StringExact(e.Bootstrap.AccountID)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("created_at"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("phys_id"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("identities"), knownvalue.Null()),
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
				// Moving the device to a fleet is an in-place update.
				Config: e.Config(fleets + `
resource "zdm_device" "test" {
  name     = "sensor-1"
  fleet_id = zdm_fleet.a.id
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("fleet_name")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("fleet_name"), knownvalue.StringExact("fleet-a")),
					statecheck.CompareValuePairs(addr, tfjsonpath.New("fleet_id"), "zdm_fleet.a", tfjsonpath.New("id"), compare.ValuesSame()),
					sameID.AddStateValue(addr, tfjsonpath.New("id")),
				},
			},
			{
				// Renaming and moving at once.
				Config: e.Config(fleets + `
resource "zdm_device" "test" {
  name     = "sensor-1b"
  fleet_id = zdm_fleet.b.id
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("fleet_name")),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("created_at"), knownvalue.NotNull()),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("name"), knownvalue.StringExact("sensor-1b")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("fleet_name"), knownvalue.StringExact("fleet-b")),
					sameID.AddStateValue(addr, tfjsonpath.New("id")),
				},
			},
			{
				// Dropping fleet_id from the configuration keeps the device where it is.
				Config: e.Config(fleets + `
resource "zdm_device" "test" {
  name = "sensor-1b"
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("fleet_name"), knownvalue.StringExact("fleet-b")),
				},
			},
			{
				// A rename alone: in place, and the fleet name is read again.
				Config: e.Config(fleets + `
resource "zdm_device" "test" {
  name = "sensor-1c"
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("fleet_id"), knownvalue.NotNull()),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("name"), knownvalue.StringExact("sensor-1c")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("fleet_name"), knownvalue.StringExact("fleet-b")),
					sameID.AddStateValue(addr, tfjsonpath.New("id")),
				},
				Check: acctest.CaptureID(addr, &deviceID),
			},
			{
				// Drift: the device was deleted outside Terraform, so it is created again.
				PreConfig: func() {
					if err := e.Server.DeleteDevice(deviceID); err != nil {
						t.Fatalf("delete device %s: %v", deviceID, err)
					}
				},
				Config: e.Config(fleets + `
resource "zdm_device" "test" {
  name = "sensor-1c"
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectNonEmptyPlan(),
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("fleet_name"), knownvalue.StringExact("default")),
				},
			},
		},
	})
}

func TestAccDeviceResourceErrors(t *testing.T) {
	e := acctest.NewEnv(t)
	other, err := e.Server.Bootstrap("other")
	if err != nil {
		t.Fatal(err)
	}
	otherFleets, err := acctest.APIClientWithKey(t, e, other.APIKey).ListFleets(context.Background(), other.WorkspaceID)
	if err != nil || len(otherFleets) == 0 {
		t.Fatalf("fleets of the other workspace: %v, %v", otherFleets, err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:      e.Config(`resource "zdm_device" "test" { name = "\t" }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Blank value.*name must contain`),
			},
			{
				Config: e.Config(`
resource "zdm_device" "test" {
  name     = "d"
  fleet_id = ""
}
`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)fleet_id string length must be at least 1`),
			},
			{
				// A fleet of another workspace is refused at plan.
				Config: e.Config(fmt.Sprintf(`
resource "zdm_device" "test" {
  name     = "d"
  fleet_id = %q
}
`, otherFleets[0].ID)),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Fleet not in the workspace.*is not a fleet of workspace`),
			},
			{
				// The key of the provider cannot reach another workspace.
				Config: e.Config(fmt.Sprintf(`
resource "zdm_device" "test" {
  workspace_id = %q
  name         = "d"
}
`, other.WorkspaceID)),
				// The check for a second device cannot list the
				// workspace: refused at plan, before any create.
				ExpectError: regexp.MustCompile(`(?s)Cannot\s+check\s+for\s+devices\s+with\s+the\s+same\s+names.*403\s+Forbidden.*An\s+API\s+key\s+is\s+bound\s+to\s+one\s+workspace.*Nothing\s+was\s+sent`),
			},
			{
				Config:        e.Config(`resource "zdm_device" "test" { name = "d" }`),
				ResourceName:  "zdm_device.test",
				ImportState:   true,
				ImportStateId: "wks/dev/extra",
				ExpectError:   regexp.MustCompile(`(?s)has 3 parts.*<workspace_id>/<device_id>`),
			},
		},
	})
}

// TestAccAmbiguousCreate drops the connection after every create: each
// resource finds the object its request created instead of creating another.
func TestAccAmbiguousCreate(t *testing.T) {
	e := acctest.NewEnv(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { e.Server.SetFaults(localzdm.Faults{DropAfterCreate: true}) },
				Config: e.Config(`
resource "zdm_workspace" "w" {
  name = "adopted-ws"
}
resource "zdm_fleet" "f" {
  name = "adopted-fleet"
}
resource "zdm_device" "d" {
  name     = "adopted-device"
  fleet_id = zdm_fleet.f.id
}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					// The ID of the one workspace of that name the server has.
					statecheck.ExpectKnownValue("zdm_workspace.w", tfjsonpath.New("id"), knownvalue.StringFunc(func(id string) error {
						return onlyWorkspaceNamed(t, e, "adopted-ws", id)
					})),
					statecheck.ExpectKnownValue("zdm_device.d", tfjsonpath.New("fleet_name"), knownvalue.StringExact("adopted-fleet")),
				},
			},
		},
	})
	e.Server.SetFaults(localzdm.Faults{})
	ctx := context.Background()
	c := acctest.APIClient(t, e)
	devices, err := c.ListDevices(ctx, e.Bootstrap.WorkspaceID)
	if err != nil || len(devices) != 1 {
		t.Errorf("devices after ambiguous create: %+v, %v", devices, err)
	}
	fleets, err := c.ListFleets(ctx, e.Bootstrap.WorkspaceID)
	if err != nil || len(fleets) != 2 {
		t.Errorf("fleets after ambiguous create: %+v, %v", fleets, err)
	}
	workspaces, err := c.ListWorkspaces(ctx)
	if err != nil || len(workspaces) != 2 {
		t.Errorf("workspaces after ambiguous create: %+v, %v", workspaces, err)
	}
}

// onlyWorkspaceNamed fails unless the server has exactly one workspace named
// name (among those the test's key sees), with the ID id.
func onlyWorkspaceNamed(t *testing.T, e *acctest.Env, name, id string) error {
	t.Helper()
	all, err := acctest.APIClient(t, e).ListWorkspaces(context.Background())
	if err != nil {
		return err
	}
	var ids []string
	for _, w := range all {
		if w.Name == name {
			ids = append(ids, w.ID)
		}
	}
	if len(ids) != 1 || ids[0] != id {
		return fmt.Errorf("the server has the workspaces %q named %q; want exactly [%q], the ID in state", ids, name, id)
	}
	return nil
}
