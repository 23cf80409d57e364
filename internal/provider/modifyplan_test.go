package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestModifyPlanWarnsOnDestroy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := []struct {
		r     resource.ResourceWithModifyPlan
		prior any
		want  string
	}{
		{&deviceResource{}, testDeviceModel(), `device "sensor-1" (id dev-1)`},
		{&fleetResource{}, testFleetModel(), `fleet "east" (id flt-1)`},
		{&workspaceResource{}, testWorkspaceModel(), `workspace "prod" (id wks-1)`},
	}
	for _, c := range cases {
		req := planRequest(t, c.r, c.prior, nil)
		resp := resource.ModifyPlanResponse{Plan: req.Plan}
		c.r.ModifyPlan(ctx, req, &resp)
		mustOK(t, resp.Diagnostics)
		got := warnings(resp.Diagnostics)
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

	prior := testFleetModel()
	planned := testFleetModel()
	planned.Description = types.StringValue("changed")
	r := &fleetResource{}
	req := planRequest(t, r, prior, planned)
	resp := resource.ModifyPlanResponse{Plan: req.Plan}
	r.ModifyPlan(ctx, req, &resp)
	mustOK(t, resp.Diagnostics)
	got := warnings(resp.Diagnostics)
	for _, want := range []string{"leaves the old one in the service", "A change of description", `fleet "east" (id flt-1) will stay`} {
		if !strings.Contains(got, want) {
			t.Errorf("replace warning does not contain %q:\n%s", want, got)
		}
	}

	// An in-place update of a device warns about nothing.
	dprior, dplanned := testDeviceModel(), testDeviceModel()
	dplanned.Name = types.StringValue("renamed")
	d := &deviceResource{}
	req = planRequest(t, d, dprior, dplanned)
	resp = resource.ModifyPlanResponse{Plan: req.Plan}
	d.ModifyPlan(ctx, req, &resp)
	if len(resp.Diagnostics) != 0 {
		t.Errorf("in-place update gave diagnostics: %v", resp.Diagnostics)
	}

	// A change of the provider's default workspace never replaces an
	// existing device: it stays in its own workspace, with a warning.
	d = &deviceResource{data: &providerData{workspaceID: "wks-2"}}
	req = planRequest(t, d, dprior, dprior)
	cfg := tfsdk.Plan{Schema: req.Plan.Schema, Raw: req.Plan.Raw.Copy()}
	mustOK(t, cfg.SetAttribute(ctx, path.Root("workspace_id"), types.StringNull()))
	req.Config.Raw = cfg.Raw
	resp = resource.ModifyPlanResponse{Plan: req.Plan}
	d.ModifyPlan(ctx, req, &resp)
	mustOK(t, resp.Diagnostics)
	var plannedWS types.String
	mustOK(t, resp.Plan.GetAttribute(ctx, path.Root("workspace_id"), &plannedWS))
	if len(resp.RequiresReplace) != 0 || plannedWS.ValueString() != dprior.WorkspaceID.ValueString() ||
		!strings.Contains(warnings(resp.Diagnostics), "stays in workspace") {
		t.Errorf("default workspace change: replace %v, planned workspace %s, warnings %s",
			resp.RequiresReplace, plannedWS, warnings(resp.Diagnostics))
	}
}
