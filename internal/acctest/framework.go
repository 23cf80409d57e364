package acctest

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// PlanRequest builds a ModifyPlanRequest for r from a prior state and a
// planned value (nil for a destroy); the configuration equals the plan.
func PlanRequest(t *testing.T, r resource.Resource, prior, planned any) resource.ModifyPlanRequest {
	t.Helper()
	ctx := context.Background()
	var sresp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sresp)
	s := sresp.Schema
	null := tftypes.NewValue(s.Type().TerraformType(ctx), nil)

	state := tfsdk.State{Schema: s, Raw: null}
	MustOK(t, state.Set(ctx, prior))
	plan := tfsdk.Plan{Schema: s, Raw: null}
	cfg := tfsdk.Config{Schema: s, Raw: null}
	if planned != nil {
		MustOK(t, plan.Set(ctx, planned))
		cfg.Raw = plan.Raw.Copy()
	}
	return resource.ModifyPlanRequest{State: state, Plan: plan, Config: cfg}
}

func MustOK(t *testing.T, diags diag.Diagnostics) {
	t.Helper()
	if diags.HasError() {
		t.Fatalf("unexpected diagnostics: %v", diags)
	}
}

// Warnings returns the summaries and details of the warnings in diags.
func Warnings(diags diag.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags.Warnings() {
		b.WriteString(d.Summary() + ": " + d.Detail() + "\n")
	}
	return b.String()
}
