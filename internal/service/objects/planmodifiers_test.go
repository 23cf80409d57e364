package objects_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices/devicestest"
	"github.com/zdm/terraform-provider-zdm/internal/service/fleets"
	"github.com/zdm/terraform-provider-zdm/internal/service/fleets/fleetstest"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

func TestModifyPlanWarnsOnDestroy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		r     resource.ResourceWithModifyPlan
		prior any
		want  string
	}{
		{&devices.DeviceResource{}, testDevice(), `device "sensor-1" (id dev-1)`},
		{&fleets.FleetResource{}, fleets.FleetResourceModel{FleetModel: fleetstest.TestFleetModel()}, `fleet "east" (id flt-1)`},
		{&fleets.WorkspaceResource{}, fleets.WorkspaceResourceModel{WorkspaceModel: fleetstest.TestWorkspaceModel()}, `workspace "prod" (id wks-1)`},
	}
	for _, c := range cases {
		req := acctest.PlanRequest(t, c.r, c.prior, nil)
		resp := resource.ModifyPlanResponse{Plan: req.Plan}
		c.r.ModifyPlan(ctx, req, &resp)
		acctest.MustOK(t, resp.Diagnostics)
		got := acctest.Warnings(resp.Diagnostics)
		for _, want := range []string{"only removes it from the Terraform state", c.want, "will stay in the service"} {
			if !strings.Contains(got, want) {
				t.Errorf("destroy warning does not contain %q:\n%s", want, got)
			}
		}
	}
}

func TestModifyPlanWarnsOnReplace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	prior := fleets.FleetResourceModel{FleetModel: fleetstest.TestFleetModel()}
	planned := fleets.FleetResourceModel{FleetModel: fleetstest.TestFleetModel()}
	planned.Description = types.StringValue("changed")
	r := &fleets.FleetResource{}
	req := acctest.PlanRequest(t, r, prior, planned)
	resp := resource.ModifyPlanResponse{Plan: req.Plan}
	r.ModifyPlan(ctx, req, &resp)
	acctest.MustOK(t, resp.Diagnostics)
	got := acctest.Warnings(resp.Diagnostics)
	for _, want := range []string{"leaves the old one in the service", "A change of description", `fleet "east" (id flt-1) will stay`} {
		if !strings.Contains(got, want) {
			t.Errorf("replace warning does not contain %q:\n%s", want, got)
		}
	}

	// An in-place update of a device warns about nothing.
	dprior, dplanned := testDevice(), testDevice()
	dplanned.Name = types.StringValue("renamed")
	d := &devices.DeviceResource{}
	req = acctest.PlanRequest(t, d, dprior, dplanned)
	resp = resource.ModifyPlanResponse{Plan: req.Plan}
	d.ModifyPlan(ctx, req, &resp)
	if len(resp.Diagnostics) != 0 {
		t.Errorf("in-place update gave diagnostics: %v", resp.Diagnostics)
	}

	// A change of the provider's default workspace never replaces an
	// existing device: it stays in its own workspace, with a warning.
	d = &devices.DeviceResource{ResourceBase: objects.ResourceBase{Data: &connection.ProviderData{WorkspaceID: "wks-2"}}}
	req = acctest.PlanRequest(t, d, dprior, dprior)
	cfg := tfsdk.Plan{Schema: req.Plan.Schema, Raw: req.Plan.Raw.Copy()}
	acctest.MustOK(t, cfg.SetAttribute(ctx, path.Root("workspace_id"), types.StringNull()))
	req.Config.Raw = cfg.Raw
	resp = resource.ModifyPlanResponse{Plan: req.Plan}
	d.ModifyPlan(ctx, req, &resp)
	acctest.MustOK(t, resp.Diagnostics)
	var plannedWS types.String
	acctest.MustOK(t, resp.Plan.GetAttribute(ctx, path.Root("workspace_id"), &plannedWS))
	if len(resp.RequiresReplace) != 0 || plannedWS.ValueString() != dprior.WorkspaceID.ValueString() ||
		!strings.Contains(acctest.Warnings(resp.Diagnostics), "stays in workspace") {
		t.Errorf("default workspace change: replace %v, planned workspace %s, warnings %s",
			resp.RequiresReplace, plannedWS, acctest.Warnings(resp.Diagnostics))
	}
}

// testDevice is the state of a zdm_device resource.
func testDevice() devices.DeviceResourceModel {
	return devices.DeviceResourceModel{DeviceModel: devicestest.TestDeviceModel(), AllowDuplicateNames: types.BoolNull()}
}
