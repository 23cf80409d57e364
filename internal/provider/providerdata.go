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

// planWorkspace fills a null workspace_id of the plan with the provider's
// default workspace and asks for a replace when the workspace of an existing
// object changes. It is called from ModifyPlan of resources that live in a
// workspace.
func (d *providerData) planWorkspace(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if d == nil || req.Plan.Raw.IsNull() {
		return
	}
	var cfg types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("workspace_id"), &cfg)...)
	if resp.Diagnostics.HasError() || !cfg.IsNull() {
		return
	}
	if d.workspaceID == "" {
		resp.Diagnostics.AddAttributeError(path.Root("workspace_id"), "Missing workspace_id",
			"No workspace given: set workspace_id in this resource, or workspace_id in the provider block (or the "+
				envWorkspaceID+" environment variable).")
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("workspace_id"), d.workspaceID)...)
	if req.State.Raw.IsNull() {
		return
	}
	var prior types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("workspace_id"), &prior)...)
	if !prior.IsNull() && prior.ValueString() != d.workspaceID {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("workspace_id"))
	}
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
}
