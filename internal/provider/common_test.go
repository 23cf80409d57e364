package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestParseImportID(t *testing.T) {
	t.Parallel()
	cases := []struct {
		raw, ws, id string
		wantErr     string
	}{
		{raw: "dev-1", id: "dev-1"},
		{raw: "wks-1/dev-1", ws: "wks-1", id: "dev-1"},
		{raw: "any shape:at all", id: "any shape:at all"},
		{raw: "", wantErr: "empty import ID"},
		{raw: " ", wantErr: "empty import ID"},
		{raw: "/dev-1", wantErr: "empty part"},
		{raw: "wks-1/", wantErr: "empty part"},
		{raw: "a/b/c", wantErr: "has 3 parts"},
	}
	for _, c := range cases {
		ws, id, err := parseImportID(c.raw, "device")
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("parseImportID(%q) error = %v, want %q", c.raw, err, c.wantErr)
			} else if !strings.Contains(err.Error(), `"<workspace_id>/<device_id>" or "<device_id>"`) {
				t.Errorf("parseImportID(%q) error does not show the format: %v", c.raw, err)
			}
			continue
		}
		if err != nil || ws != c.ws || id != c.id {
			t.Errorf("parseImportID(%q) = %q, %q, %v; want %q, %q", c.raw, ws, id, err, c.ws, c.id)
		}
	}
}

func TestAdoptedWarning(t *testing.T) {
	t.Parallel()
	_, detail := adoptedWarning("fleet", "f1", "flt-9")
	if !strings.Contains(detail, `fleet "f1" (id flt-9)`) || !strings.Contains(detail, "service's clock") {
		t.Errorf("adopted: %s", detail)
	}
}

// planRequest builds a ModifyPlanRequest for r from a prior state and a
// planned value (nil for a destroy); the configuration equals the plan.
func planRequest(t *testing.T, r resource.Resource, prior, planned any) resource.ModifyPlanRequest {
	t.Helper()
	ctx := context.Background()
	var sresp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sresp)
	s := sresp.Schema
	null := tftypes.NewValue(s.Type().TerraformType(ctx), nil)

	state := tfsdk.State{Schema: s, Raw: null}
	mustOK(t, state.Set(ctx, prior))
	plan := tfsdk.Plan{Schema: s, Raw: null}
	cfg := tfsdk.Config{Schema: s, Raw: null}
	if planned != nil {
		mustOK(t, plan.Set(ctx, planned))
		cfg.Raw = plan.Raw.Copy()
	}
	return resource.ModifyPlanRequest{State: state, Plan: plan, Config: cfg}
}

func mustOK(t *testing.T, diags diag.Diagnostics) {
	t.Helper()
	if diags.HasError() {
		t.Fatalf("unexpected diagnostics: %v", diags)
	}
}

// warnings returns the summaries and details of the warnings in diags.
func warnings(diags diag.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags.Warnings() {
		b.WriteString(d.Summary() + ": " + d.Detail() + "\n")
	}
	return b.String()
}

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
