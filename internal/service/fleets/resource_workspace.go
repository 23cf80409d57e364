package fleets

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

var _ objects.ObjectResourceInterfaces = (*WorkspaceResource)(nil)

func NewWorkspaceResource() resource.Resource {
	return &WorkspaceResource{ResourceBase: objects.ResourceBase{TypeSuffix: "_workspace"}}
}

// WorkspaceResource manages a workspace. The API can create and read
// workspaces but neither update nor delete them.
type WorkspaceResource struct {
	objects.ResourceBase
}

func (r *WorkspaceResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A workspace of the API key's account. The API has no update and no delete for " +
			"workspaces: changing `name` or `description` creates a new workspace and leaves the old one in the " +
			"service, and destroying only removes the workspace from the Terraform state (both are announced by a " +
			"warning at plan time). Because of that, a plan that creates a workspace (a new one or a replacement) fails " +
			"when the account already has a workspace of the same name, unless `allow_duplicate_names` is `true`. An API " +
			"key is bound to one workspace, so fleets and devices can only be created in a new workspace with a key of " +
			"that workspace.",
		Attributes: objects.NamedObjectAttributes("workspace", "Workspace", map[string]schema.Attribute{
			objects.AllowDuplicateNamesAttr: objects.AllowDuplicateNamesAttribute("workspace", "account"),
		}),
	}
}

func (r *WorkspaceResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = objects.WorkspaceIdentitySchema()
}

// WorkspaceResourceModel is the state of zdm_workspace: the workspace, and
// what only the configuration sets.
type WorkspaceResourceModel struct {
	WorkspaceModel
	AllowDuplicateNames types.Bool `tfsdk:"allow_duplicate_names"`
}

func (r *WorkspaceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	objects.WarnDestroyOrReplace(ctx, "workspace", req, resp, path.Root("name"), path.Root("description"))
	if resp.Diagnostics.HasError() || !req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || r.Data == nil {
		return
	}
	// A create, perhaps the replacement of a workspace that exists: refuse
	// a second workspace of the same name in the account (see
	// objects.DuplicateNames). An unknown name waits for the final plan at apply.
	var plan WorkspaceResourceModel
	resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.AllowDuplicateNames.ValueBool() || plan.AllowDuplicateNames.IsUnknown() ||
		plan.Name.IsUnknown() {
		return
	}
	all, err := r.Data.Client.ListWorkspaces(ctx)
	clashes := objects.SameNames(all, map[string]bool{plan.Name.ValueString(): true}, nil,
		func(w client.Workspace) string { return w.Name }, func(w client.Workspace) string { return w.ID })
	objects.DuplicateNames{Kind: "workspace", Attr: path.Root("name"), Where: "The account",
		Import:   "as a zdm_workspace resource (terraform import <address> <workspace_id>, or an import block).",
		Replaced: "description"}.Refuse(ctx, clashes, err, &resp.Diagnostics)
	if !resp.Diagnostics.HasError() { // another resource of the walk creating the name (objects/name_claims.go)
		objects.ClaimOne(r.Data, "workspace", "the account", "workspace",
			objects.ClaimOwner("zdm_workspace", plan.Name.ValueString(), plan.Description.ValueString()),
			plan.Name.ValueString(), path.Root("name"), &resp.Diagnostics)
	}
}

func (r *WorkspaceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := connection.Decode[WorkspaceResourceModel](ctx, r.Data, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	name, desc := plan.Name.ValueString(), plan.Description.ValueString()
	a := objects.AmbiguousCreate{Kind: "workspace", Name: name, Summary: "Cannot create workspace " + connection.Quote(name)}
	w := objects.CreateObject(ctx, r.Data, a,
		func(ctx context.Context) (*client.Workspace, error) {
			return r.Data.Client.CreateWorkspace(ctx, name, desc)
		},
		func(a objects.AmbiguousCreate) *client.Workspace { return r.adoptCreated(ctx, a, desc, resp) },
		func(w *client.Workspace) string { return w.ID }, &resp.Diagnostics)
	if w == nil {
		return
	}
	state := WorkspaceResourceModel{WorkspaceModel: FlattenWorkspace(w), AllowDuplicateNames: plan.AllowDuplicateNames}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	objects.SetIdentity(ctx, resp.Identity, objects.WorkspaceIdentityModel{ID: state.ID}, &resp.Diagnostics)
}

func (r *WorkspaceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.Data == nil {
		// The provider configuration is not known yet: keep the state.
		objects.IdentityFromState(ctx, req.State, resp.Identity, &resp.Diagnostics)
		return
	}
	var state WorkspaceResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	objects.SetIdentity(ctx, resp.Identity, objects.WorkspaceIdentityModel{ID: state.ID}, &resp.Diagnostics)
	w, err := findWorkspace(ctx, r.Data.Client, state.ID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Cannot read workspace "+state.ID.ValueString(), connection.DescribeError(err, state.ID.ValueString()))
		return
	}
	if w == nil && objects.FollowsImport(ctx, req, &resp.Diagnostics) {
		objects.NotFoundAtImport(&resp.Diagnostics, "workspace", "workspace "+connection.Quote(state.ID.ValueString()))
		return
	}
	if w == nil {
		tflog.Warn(ctx, "workspace not found; removing it from the state", map[string]any{"id": state.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	r.Data.Own("workspace", w.ID)
	state = WorkspaceResourceModel{WorkspaceModel: FlattenWorkspace(w), AllowDuplicateNames: state.AllowDuplicateNames}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	objects.ClearImported(ctx, resp)
}

// Update changes only allow_duplicate_names, which the service does not
// hold: every attribute of the workspace requires a replace.
func (r *WorkspaceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan WorkspaceResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	objects.SetIdentity(ctx, resp.Identity, objects.WorkspaceIdentityModel{ID: plan.ID}, &resp.Diagnostics)
}

func (r *WorkspaceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state WorkspaceResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.AddWarning(objects.ForgetWarning("workspace", state.Name.ValueString(), state.ID.ValueString()))
}

func (r *WorkspaceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	objects.ImportWorkspace(ctx, req, resp)
}

// adoptCreated resolves the ambiguous create a of a workspace with
// description desc (see objects.ResolveCreate).
func (r *WorkspaceResource) adoptCreated(ctx context.Context, a objects.AmbiguousCreate, desc string, resp *resource.CreateResponse) *client.Workspace {
	name := a.Name
	return objects.ResolveCreate(ctx, r.Data, a, r.Data.Client.ListWorkspaces,
		func(w client.Workspace) objects.Candidate {
			return objects.Candidate{ID: w.ID, CreatedAt: w.CreatedAt, Matches: w.Name == name && w.Description == desc}
		},
		func(w client.Workspace) string { return w.ID }, &resp.Diagnostics)
}

// findWorkspace returns the workspace id of the key's account, or nil when
// it is gone. It reads the list of the account's workspaces, which a key
// may read even when it cannot read every workspace of it. When the list
// does not show the workspace (a service that pages its lists, or hides
// workspaces from some keys), GET /workspaces/{id} decides: 200 returns it,
// 404 (the successful list having shown that this base_url and key reach the
// account) means gone, and anything else is an error: nothing is concluded.
func findWorkspace(ctx context.Context, c *client.Client, id string) (*client.Workspace, error) {
	all, err := c.ListWorkspaces(ctx)
	if err != nil {
		return nil, err
	}
	for i := range all {
		if all[i].ID == id {
			return &all[i], nil
		}
	}
	w, err := c.GetWorkspace(ctx, id)
	switch {
	case client.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("the list of workspaces does not show workspace %s, and reading it failed: %w", connection.Quote(id), err)
	}
	return w, nil
}
