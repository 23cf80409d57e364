package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

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

// objectRef names an object in messages: "device "name" (id dev-1)".
func objectRef(kind, name, id string) string {
	return fmt.Sprintf("%s %q (id %s)", kind, name, id)
}

// forgetWarning is emitted by Delete: the API cannot delete the object.
func forgetWarning(kind, name, id string) (string, string) {
	return "The " + kind + " was only removed from the Terraform state",
		"The ZDM API has no delete operation: " + objectRef(kind, name, id) +
			" stays in the service. Terraform no longer manages it; import it again to manage it."
}

// warnDestroyOrReplace adds the plan-time warning of a destroy (the plan is
// null) or of a replace (one of replacePaths differs between the plan, as
// modified so far, and the state): either way, the object stays in the
// service.
func warnDestroyOrReplace(ctx context.Context, kind string, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, replacePaths ...path.Path) {
	if req.State.Raw.IsNull() {
		return
	}
	var name, id types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ref := objectRef(kind, name.ValueString(), id.ValueString())
	if req.Plan.Raw.IsNull() {
		resp.Diagnostics.AddWarning("Destroying a "+kind+" only removes it from the Terraform state",
			"The ZDM API has no delete operation: "+ref+" will stay in the service after this destroy. "+
				"Terraform will stop managing it.")
		return
	}
	changed := replacedPaths(ctx, resp.Plan, req.State, replacePaths, &resp.Diagnostics)
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

// replacedPaths returns the paths whose planned value differs from the state
// (unknown planned values count as changes).
func replacedPaths(ctx context.Context, plan tfsdk.Plan, state tfsdk.State, paths []path.Path, diags *diag.Diagnostics) []path.Path {
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

// parseImportID splits an import ID of an object that lives in a workspace:
// "<workspace_id>/<id>", or "<id>" for the provider's default workspace
// (returned as an empty workspace).
func parseImportID(raw, kind string) (workspaceID, id string, err error) {
	format := fmt.Sprintf("expected \"<workspace_id>/<%s_id>\" or \"<%s_id>\" (in the provider's workspace)", kind, kind)
	parts := strings.Split(raw, "/")
	switch len(parts) {
	case 1:
		if strings.TrimSpace(parts[0]) == "" {
			return "", "", fmt.Errorf("empty import ID: %s", format)
		}
		return "", parts[0], nil
	case 2:
		if strings.TrimSpace(parts[0]) == "" || strings.TrimSpace(parts[1]) == "" {
			return "", "", fmt.Errorf("import ID %q has an empty part: %s", raw, format)
		}
		return parts[0], parts[1], nil
	default:
		return "", "", fmt.Errorf("import ID %q has %d parts: %s", raw, len(parts), format)
	}
}

// createSkew is how much older than the local clock just before a POST an
// object may look and still be adopted after an ambiguous create, to absorb
// clock differences between this machine and the service.
const createSkew = 2 * time.Minute

// createdSince reports whether the RFC 3339 timestamp createdAt is not
// before since minus createSkew. Unreadable timestamps do not match.
func createdSince(createdAt string, since time.Time) bool {
	t, err := time.Parse(time.RFC3339Nano, createdAt)
	if err != nil {
		return false
	}
	return !t.Before(since.Add(-createSkew))
}

// adoptCreated resolves an ambiguous create of a kind object named name
// from a listing of its collection taken after the create failed (all, or
// listErr when the listing failed too): it returns the only object that
// match accepts, with a warning, or reports an error under summary and
// returns nil. cause is the error of the create.
func adoptCreated[T any](kind, name, summary string, all []T, listErr, cause error, match func(T) bool, id func(T) string, diags *diag.Diagnostics) *T {
	if listErr != nil {
		diags.AddError(summary,
			"The create request may have reached the service ("+cause.Error()+"), and listing the "+kind+"s "+
				"to find out failed too: "+listErr.Error()+". Check the service before applying again.")
		return nil
	}
	var found []T
	var ids []string
	for _, o := range all {
		if match(o) {
			found = append(found, o)
			ids = append(ids, id(o))
		}
	}
	if len(found) != 1 {
		diags.AddError(ambiguousError(kind, name, ids, cause))
		return nil
	}
	diags.AddWarning(adoptedWarning(kind, name, ids[0]))
	return &found[0]
}

// adoptedWarning is emitted when an ambiguous create was resolved by
// adopting the object found in a listing.
func adoptedWarning(kind, name, id string) (string, string) {
	return "Adopted a " + kind + " after an interrupted create",
		"The connection failed after the create request of " + kind + " " + fmt.Sprintf("%q", name) +
			" was sent, so the service may have created it. One matching " + kind + " created since the request " +
			"was found (" + objectRef(kind, name, id) + ") and is now managed by Terraform instead of creating another one."
}

// ambiguousError is the error of an ambiguous create that could not be
// resolved: nothing or several objects matched.
func ambiguousError(kind, name string, matches []string, cause error) (string, string) {
	detail := "The connection failed after the create request of " + kind + " " + fmt.Sprintf("%q", name) +
		" was sent, so the service may or may not have created it (" + cause.Error() + "). "
	switch len(matches) {
	case 0:
		detail += "No matching " + kind + " created since the request exists, so nothing was created: run apply again."
	default:
		detail += fmt.Sprintf("%d matching %ss were created since the request (%s), so the provider cannot tell which is "+
			"its own. Import the right one with terraform import, then apply again.", len(matches), kind, strings.Join(matches, ", "))
	}
	return "Create of " + kind + " " + fmt.Sprintf("%q", name) + " interrupted", detail
}

// quote returns s in double quotes, for messages.
func quote(s string) string {
	return fmt.Sprintf("%q", s)
}

// importInWorkspace imports an object of kind that lives in a workspace from
// "<workspace_id>/<id>" or "<id>" (in the provider's default workspace).
func importInWorkspace(ctx context.Context, d *providerData, kind string, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ws, id, err := parseImportID(req.ID, kind)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error()+".")
		return
	}
	if ws == "" {
		if d == nil || d.workspaceID == "" {
			resp.Diagnostics.AddError("Invalid import ID",
				"The import ID "+quote(req.ID)+" names no workspace and the provider has no workspace_id (nor "+
					envWorkspaceID+"): use \"<workspace_id>/<"+kind+"_id>\".")
			return
		}
		ws = d.workspaceID
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("workspace_id"), ws)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}
