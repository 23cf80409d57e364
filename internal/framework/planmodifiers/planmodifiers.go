package planmodifiers

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Plan modifiers and the plan helpers called from ModifyPlan.

// KeepComputedUnlessChanged plans the computed attributes of a scheduling
// resource: while none of the inputs changes, they keep the values of the
// state; otherwise they stay unknown until the service answers. (The
// framework marks them unknown as soon as the configuration's text differs
// from the state, even when a plan modifier then keeps the state's value, as
// the plan of a job value does for a rewritten value.) It is called from ModifyPlan,
// after the attribute plan modifiers.
func KeepComputedUnlessChanged(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, inputs, computed []string) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	for _, name := range inputs {
		var planned, prior attr.Value
		resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root(name), &planned)...)
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(name), &prior)...)
		if resp.Diagnostics.HasError() || !planned.Equal(prior) {
			return
		}
	}
	for _, name := range computed {
		var prior attr.Value
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(name), &prior)...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), prior)...)
	}
}

// ReplacedPaths returns the paths whose planned value differs from the state
// (unknown planned values count as changes).
func ReplacedPaths(ctx context.Context, plan tfsdk.Plan, state tfsdk.State, paths []path.Path, diags *diag.Diagnostics) []path.Path {
	var out []path.Path
	for _, p := range paths {
		var pv, sv types.String
		diags.Append(plan.GetAttribute(ctx, p, &pv)...)
		diags.Append(state.GetAttribute(ctx, p, &sv)...)
		if !pv.Equal(sv) {
			out = append(out, p)
		}
	}
	return out
}
