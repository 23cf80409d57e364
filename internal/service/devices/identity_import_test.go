package devices_test

import (
	"testing"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices/devicestest"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

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
