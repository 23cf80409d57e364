package objects

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/protoval"
)

// WorkspaceOrDefault returns ws, or the provider's default workspace when ws
// is null or empty. It reports an error naming attr when neither is set.
func WorkspaceOrDefault(d *connection.ProviderData, ws types.String, attr path.Path, diags *diag.Diagnostics) string {
	if !ws.IsNull() && !ws.IsUnknown() && ws.ValueString() != "" {
		return ws.ValueString()
	}
	if d.WorkspaceID == "" {
		diags.AddAttributeError(attr, "Missing workspace_id",
			"No workspace given: set "+attr.String()+" here, or workspace_id in the provider block (or the "+
				connection.EnvWorkspaceID+" environment variable).")
	}
	return d.WorkspaceID
}

// PlanWorkspace plans the workspace_id of a resource that lives in a
// workspace (called from ModifyPlan; see DESIGN.md, "The provider's
// workspace_id is a default for new objects only"):
//
//   - a new object whose configuration does not set workspace_id gets the
//     provider's;
//   - an existing object whose configuration does not set it keeps its own
//     workspace, with a warning when the provider's differs; a change of the
//     provider's workspace_id never replaces anything;
//   - a new object in a workspace other than the provider's (or one not known
//     until apply) gets a warning: the key is bound to one workspace.
//
// A change of the resource's own workspace_id is replaced by the attribute's
// RequiresReplace.
func PlanWorkspace(ctx context.Context, d *connection.ProviderData, kind string, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if d == nil || req.Plan.Raw.IsNull() {
		return
	}
	var cfg types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("workspace_id"), &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var prior *protoval.String
	what := "The " + kind
	if !req.State.Raw.IsNull() {
		var p types.String
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("workspace_id"), &p)...)
		if resp.Diagnostics.HasError() {
			return
		}
		prior = &protoval.String{S: p.ValueString(), Null: p.IsNull(), Unknown: p.IsUnknown()}
		var id types.String
		if d := req.State.GetAttribute(ctx, path.Root("id"), &id); !d.HasError() && !id.IsNull() {
			what += " " + connection.Quote(id.ValueString())
		}
	}
	planned, set := PlanWorkspaceRule(d, kind, what, protoval.String{S: cfg.ValueString(), Null: cfg.IsNull(), Unknown: cfg.IsUnknown()},
		prior, &resp.Diagnostics)
	if set {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("workspace_id"), planned.S)...)
	}
}

// PlanWorkspaceRule is the rule of PlanWorkspace on plain values: cfg is
// the configured workspace_id, prior the object's (nil for a new object),
// and what names the existing object in messages (such as `The zdm_device
// "dev-1"`). It returns the planned workspace_id when the rule sets it.
func PlanWorkspaceRule(d *connection.ProviderData, kind, what string, cfg protoval.String, prior *protoval.String, diags *diag.Diagnostics) (protoval.String, bool) {
	if prior != nil {
		if !cfg.Null || prior.Null {
			return protoval.String{}, false
		}
		if d.WorkspaceID != "" && prior.S != d.WorkspaceID {
			diags.AddAttributeWarning(path.Root("workspace_id"), "The "+kind+" stays in its own workspace",
				what+" stays in workspace "+connection.Quote(prior.S)+
					", although the provider's workspace_id is now "+connection.Quote(d.WorkspaceID)+": the provider's workspace_id "+
					"is only the default for new objects, and a change of it never moves nor replaces an existing one. "+
					"If the provider's workspace_id (or "+connection.EnvWorkspaceID+") is wrong, correct it. To keep the "+kind+
					" where it is, set workspace_id = "+connection.Quote(prior.S)+" on it. To create a new "+kind+
					" in the other workspace instead (the old one stays in the service), set workspace_id on the resource.")
		}
		return *prior, true
	}
	if cfg.Null {
		if d.WorkspaceID == "" {
			diags.AddAttributeError(path.Root("workspace_id"), "Missing workspace_id",
				"No workspace given: set workspace_id in this resource, or workspace_id in the provider block (or the "+
					connection.EnvWorkspaceID+" environment variable).")
			return protoval.String{}, false
		}
		return protoval.KnownString(d.WorkspaceID), true
	}
	if d.WorkspaceID == "" || (!cfg.Unknown && cfg.S == d.WorkspaceID) {
		return protoval.String{}, false
	}
	target := "workspace " + connection.Quote(cfg.S)
	if cfg.Unknown {
		target = "a workspace that is not known until apply (such as a zdm_workspace created in this run)"
	}
	diags.AddAttributeWarning(path.Root("workspace_id"), "An API key is bound to one workspace",
		"This "+kind+" is to be created in "+target+", but this provider configuration's workspace_id is "+
			connection.Quote(d.WorkspaceID)+". An API key is bound to one workspace: unless this configuration's api_key belongs to "+
			"that workspace, the create will fail with 403 Forbidden. Use a provider alias whose api_key and "+
			"workspace_id are those of the target workspace (create its key in the web console); see the guide "+
			"\"Workspaces, API keys and provider aliases\" for the two-step flow.")
	return protoval.String{}, false
}

// CheckFleetInWorkspace fails the plan at attr (a fleet_id) when fleet is
// not a fleet of workspace ws, which the service would only refuse at
// apply. It reads the shared fleet list of ws, so a plan that writes the
// devices of many fleets lists the fleets once; a fleet missing from that
// list (perhaps created in this apply after the list was read) is asked
// for by ID before the plan fails, and only a 404 for it, once the list
// proved the workspace visible, fails the plan. A wrong key or a missing
// workspace fails it as every plan does (connection.PlanStopper); any
// other error leaves the check to the write. It sends nothing when ws or
// fleet is empty.
func CheckFleetInWorkspace(ctx context.Context, d *connection.ProviderData, attr path.Path, ws, fleet string, diags *diag.Diagnostics) {
	if d == nil || ws == "" || fleet == "" {
		return
	}
	fleets, err := d.ListFleets(ctx, ws)
	if err == nil {
		for i := range fleets {
			if fleets[i].ID == fleet {
				return
			}
		}
		_, err = d.Client.GetFleet(ctx, ws, fleet)
		if err == nil {
			return
		}
		if client.IsNotFound(err) {
			diags.AddAttributeError(attr, "Fleet not in the workspace",
				"Fleet "+connection.Quote(fleet)+" is not a fleet of workspace "+connection.Quote(ws)+": it does not "+
					"exist, or it belongs to another workspace, and the service would refuse the write at apply. "+
					"Nothing was sent. Set "+attr.String()+" to a fleet of workspace "+connection.Quote(ws)+
					" (data \"zdm_fleets\" lists them), or, to write in the fleet's own workspace, set workspace_id "+
					"on this resource and use a provider alias whose api_key belongs to that workspace.")
			return
		}
	}
	if summary := connection.PlanStopper(err, ws); summary != "" {
		diags.AddAttributeError(attr, summary, connection.DescribeError(err, ws))
		return
	}
	tflog.Debug(ctx, "the check that the fleet is in the workspace could not read the service; the write checks it",
		map[string]any{"workspace_id": ws, "fleet_id": fleet, "error": err.Error()})
}
