package objects

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/framework/planmodifiers"
)

// WarnDestroyOrReplace adds the plan-time warning of a destroy (the plan is
// null) or of a replace (one of replacePaths differs between the plan, as
// modified so far, and the state): either way, the object stays in the
// service.
func WarnDestroyOrReplace(ctx context.Context, kind string, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, replacePaths ...path.Path) {
	if req.State.Raw.IsNull() {
		return
	}
	var name, id types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref := ObjectRef(kind, name.ValueString(), id.ValueString())
	if req.Plan.Raw.IsNull() {
		resp.Diagnostics.AddWarning("Destroying a "+kind+" only removes it from the Terraform state",
			"The ZDM API has no delete operation: "+ref+" will stay in the service after this destroy. "+
				"Terraform will stop managing it.")
		return
	}
	changed := planmodifiers.ReplacedPaths(ctx, resp.Plan, req.State, replacePaths, &resp.Diagnostics)
	if len(changed) == 0 {
		return
	}
	names := make([]string, 0, len(changed))
	for _, p := range changed {
		names = append(names, p.String())
	}
	resp.Diagnostics.AddWarning("Replacing a "+kind+" leaves the old one in the service",
		"A change of "+strings.Join(names, ", ")+" needs a new "+kind+". The ZDM API has no delete operation: "+
			ref+" will stay in the service and Terraform will stop managing it; a new "+kind+" will be created.")
}
