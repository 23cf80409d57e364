package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// What resources, data sources, list resources and actions receive from
// the provider's Configure, and the default workspace rules.

// configureData turns the ProviderData handed to Configure of a resource or
// data source (named kind, such as "Resource") into *providerData. It returns
// nil without error before the provider is configured, and when the provider
// configuration had values unknown at plan time.
func configureData(kind string, data any, diags *diag.Diagnostics) *providerData {
	if data == nil {
		return nil
	}
	d, ok := data.(*providerData)
	if !ok {
		diags.AddError("Unexpected "+kind+" Configure Type",
			fmt.Sprintf("Expected *providerData, got %T. Please report this issue to the provider developers.", data))
		return nil
	}
	return d
}

// notConfigured is the error of an operation that needs the API before the
// provider could be configured.
func notConfigured(diags *diag.Diagnostics) {
	diags.AddError("Provider not configured",
		"The zdm provider has no API client: its configuration was not known when this operation ran. "+
			"Make sure base_url and api_key (or ZDM_BASE_URL and ZDM_API_KEY) are known before apply.")
}

// workspaceOrDefault returns ws, or the provider's default workspace when ws
// is null or empty. It reports an error naming attr when neither is set.
func (d *providerData) workspaceOrDefault(ws types.String, attr path.Path, diags *diag.Diagnostics) string {
	if !ws.IsNull() && !ws.IsUnknown() && ws.ValueString() != "" {
		return ws.ValueString()
	}
	if d.workspaceID == "" {
		diags.AddAttributeError(attr, "Missing workspace_id",
			"No workspace given: set "+attr.String()+" here, or workspace_id in the provider block (or the "+
				envWorkspaceID+" environment variable).")
	}
	return d.workspaceID
}

// planWorkspace plans the workspace_id of a resource that lives in a
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
func (d *providerData) planWorkspace(ctx context.Context, kind string, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if d == nil || req.Plan.Raw.IsNull() {
		return
	}
	var cfg types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("workspace_id"), &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !req.State.Raw.IsNull() {
		var prior types.String
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("workspace_id"), &prior)...)
		if resp.Diagnostics.HasError() || !cfg.IsNull() || prior.IsNull() {
			return
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("workspace_id"), prior)...)
		if d.workspaceID != "" && prior.ValueString() != d.workspaceID {
			what := "The " + kind
			var id types.String
			if d := req.State.GetAttribute(ctx, path.Root("id"), &id); !d.HasError() && !id.IsNull() {
				what += " " + quote(id.ValueString()) // resources without an id (zdm_fleet_devices) name no ID
			}
			resp.Diagnostics.AddAttributeWarning(path.Root("workspace_id"), "The "+kind+" stays in its own workspace",
				what+" stays in workspace "+quote(prior.ValueString())+
					", although the provider's workspace_id is now "+quote(d.workspaceID)+": the provider's workspace_id "+
					"is only the default for new objects, and a change of it never moves nor replaces an existing one. "+
					"If the provider's workspace_id (or "+envWorkspaceID+") is wrong, correct it. To keep the "+kind+
					" where it is, set workspace_id = "+quote(prior.ValueString())+" on it. To create a new "+kind+
					" in the other workspace instead (the old one stays in the service), set workspace_id on the resource.")
		}
		return
	}
	if cfg.IsNull() {
		if d.workspaceID == "" {
			resp.Diagnostics.AddAttributeError(path.Root("workspace_id"), "Missing workspace_id",
				"No workspace given: set workspace_id in this resource, or workspace_id in the provider block (or the "+
					envWorkspaceID+" environment variable).")
			return
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("workspace_id"), d.workspaceID)...)
		return
	}
	if d.workspaceID == "" || (!cfg.IsUnknown() && cfg.ValueString() == d.workspaceID) {
		return
	}
	target := "workspace " + quote(cfg.ValueString())
	if cfg.IsUnknown() {
		target = "a workspace that is not known until apply (such as a zdm_workspace created in this run)"
	}
	resp.Diagnostics.AddAttributeWarning(path.Root("workspace_id"), "An API key is bound to one workspace",
		"This "+kind+" is to be created in "+target+", but this provider configuration's workspace_id is "+
			quote(d.workspaceID)+". An API key is bound to one workspace: unless this configuration's api_key belongs to "+
			"that workspace, the create will fail with 403 Forbidden. Use a provider alias whose api_key and "+
			"workspace_id are those of the target workspace (create its key in the web console); see the guide "+
			"\"Workspaces, API keys and provider aliases\" for the two-step flow.")
}

// providerData is what resources and data sources receive from Configure.
type providerData struct {
	client *client.Client
	// workspaceID is the default workspace; empty when not configured.
	workspaceID string
	// hasStorage tells whether storage_url was configured.
	hasStorage bool
	// batch answers reads of devices and fleets from shared list calls.
	batch batchedReads
	// visible remembers which workspaces this base_url and key were shown
	// to see (see visibility.go).
	visible *visibility
	// owned holds the objects the resources manage (see adopt.go).
	owned ownedIDs
	// claims finds devices managed by two resources (device_claims.go).
	claims deviceClaims
	// unfinished holds the schedulings whose wait did not succeed, seen in
	// this walk (see unfinished.go).
	unfinished unfinishedRegistry
}
