package provider

import (
	"testing"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices/devicestest"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
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

func TestAccDeviceIdentityImport(t *testing.T) {
	e := acctest.NewEnv(t)
	const addr = "zdm_device.test"
	config := e.Config(`
resource "zdm_fleet" "f" {
  name = "imported"
}
resource "zdm_device" "test" {
  name     = "sensor-1"
  fleet_id = zdm_fleet.f.id
}
`)
	steps := []resource.TestStep{{Config: config, ConfigStateChecks: acctest.IdentityChecks(addr, "workspace_id", "id")}}
	steps = append(steps, acctest.ImportSteps(addr, acctest.ImportID(addr, false))...)
	steps = append(steps, resource.TestStep{
		ResourceName:      addr,
		ImportState:       true,
		ImportStateKind:   resource.ImportBlockWithID,
		ImportStateIdFunc: acctest.ImportID(addr, true),
	})
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		ProtoV6ProviderFactories: e.Factories,
		Steps:                    steps,
	})
}

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

// TestReadUnconfiguredFillsIdentity reads a device of a state written before
// resources had identities while the provider is not configured: Read keeps
// the state and still returns the identity Terraform requires.
func TestReadUnconfiguredFillsIdentity(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	r := &devices.DeviceResource{}
	var sr fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sr)
	var ir fwresource.IdentitySchemaResponse
	r.IdentitySchema(ctx, fwresource.IdentitySchemaRequest{}, &ir)

	state := tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(sr.Schema.Type().TerraformType(ctx), nil)}
	model := devices.DeviceResourceModel{DeviceModel: devicestest.TestDeviceModel(), AllowDuplicateNames: types.BoolNull()}
	acctest.MustOK(t, state.Set(ctx, &model))
	nullIdentity := func() *tfsdk.ResourceIdentity {
		return &tfsdk.ResourceIdentity{Schema: ir.IdentitySchema, Raw: tftypes.NewValue(ir.IdentitySchema.Type().TerraformType(ctx), nil)}
	}

	resp := fwresource.ReadResponse{State: state, Identity: nullIdentity()}
	r.Read(ctx, fwresource.ReadRequest{State: state, Identity: nullIdentity()}, &resp)
	acctest.MustOK(t, resp.Diagnostics)
	var got objects.InWorkspaceIdentityModel
	acctest.MustOK(t, resp.Identity.Get(ctx, &got))
	if want := objects.NewInWorkspaceIdentity("wks-1", "dev-1"); got != want {
		t.Errorf("identity = %+v, want %+v", got, want)
	}
}
