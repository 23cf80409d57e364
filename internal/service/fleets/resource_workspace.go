package fleets

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/kit"
)

var (
	_ resource.Resource                = (*WorkspaceResource)(nil)
	_ resource.ResourceWithConfigure   = (*WorkspaceResource)(nil)
	_ resource.ResourceWithImportState = (*WorkspaceResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*WorkspaceResource)(nil)
	_ resource.ResourceWithIdentity    = (*WorkspaceResource)(nil)
)

func NewWorkspaceResource() resource.Resource {
	return &WorkspaceResource{}
}

// WorkspaceResource manages a workspace. The API can create and read
// workspaces but neither update nor delete them.
type WorkspaceResource struct {
	data *connection.ProviderData
}

func (r *WorkspaceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workspace"
}

func (r *WorkspaceResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A workspace of the API key's account. The API has no update and no delete for " +
			"workspaces: changing `name` or `description` creates a new workspace and leaves the old one in the " +
			"service, and destroying only removes the workspace from the Terraform state (both are announced by a " +
			"warning at plan time). An API key is bound to one workspace, so fleets and devices can only be created " +
			"in a new workspace with a key of that workspace.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Workspace ID, assigned by the service.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Workspace name; must not be blank. Changing it **replaces** the workspace " +
					"(the old one stays in the service).",
				Required:      true,
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1), kit.NotBlank{}},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"description": schema.StringAttribute{
				MarkdownDescription: "Workspace description; defaults to the empty string. Changing it **replaces** " +
					"the workspace (the old one stays in the service).",
				Optional:      true,
				Computed:      true,
				Default:       stringdefault.StaticString(""),
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"account_id": schema.StringAttribute{
				MarkdownDescription: "ID of the account that owns the workspace.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "Creation time (RFC 3339).",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
	}
}

func (r *WorkspaceResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = kit.WorkspaceIdentitySchema()
}

func (r *WorkspaceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = connection.ConfigureData("Resource", req.ProviderData, &resp.Diagnostics)
}

func (r *WorkspaceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	kit.WarnDestroyOrReplace(ctx, "workspace", req, resp, path.Root("name"), path.Root("description"))
}

func (r *WorkspaceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if r.data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	var plan kit.WorkspaceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name, desc := plan.Name.ValueString(), plan.Description.ValueString()

	sent := time.Now()
	w, err := r.data.Client.CreateWorkspace(client.FinishOnceSent(ctx), name, desc)
	if errors.Is(err, client.ErrAmbiguous) {
		w = r.adoptCreated(ctx, name, desc, sent, err, resp)
		if w == nil {
			return
		}
	} else if err != nil {
		resp.Diagnostics.AddError("Cannot create workspace "+connection.Quote(name), connection.DescribeError(err, ""))
		return
	}
	r.data.Own("workspace", w.ID)
	tflog.Trace(ctx, "created workspace", map[string]any{"id": w.ID})
	state := kit.FlattenWorkspace(w)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	kit.SetIdentity(ctx, resp.Identity, kit.WorkspaceIdentityModel{ID: state.ID}, &resp.Diagnostics)
}

func (r *WorkspaceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.data == nil {
		// The provider configuration is not known yet: keep the state.
		kit.IdentityFromState(ctx, req.State, resp.Identity, &resp.Diagnostics)
		return
	}
	var state kit.WorkspaceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	kit.SetIdentity(ctx, resp.Identity, kit.WorkspaceIdentityModel{ID: state.ID}, &resp.Diagnostics)
	w, err := findWorkspace(ctx, r.data.Client, state.ID.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Cannot read workspace "+state.ID.ValueString(), connection.DescribeError(err, state.ID.ValueString()))
		return
	}
	if w == nil && kit.FollowsImport(ctx, req, &resp.Diagnostics) {
		kit.NotFoundAtImport(&resp.Diagnostics, "workspace", "workspace "+connection.Quote(state.ID.ValueString()))
		return
	}
	if w == nil {
		tflog.Warn(ctx, "workspace not found; removing it from the state", map[string]any{"id": state.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	r.data.Own("workspace", w.ID)
	state = kit.FlattenWorkspace(w)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	kit.ClearImported(ctx, resp)
}

// Update is never called with a change: every configurable attribute
// requires a replace.
func (r *WorkspaceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan kit.WorkspaceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	kit.SetIdentity(ctx, resp.Identity, kit.WorkspaceIdentityModel{ID: plan.ID}, &resp.Diagnostics)
}

func (r *WorkspaceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state kit.WorkspaceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.AddWarning(kit.ForgetWarning("workspace", state.Name.ValueString(), state.ID.ValueString()))
}

func (r *WorkspaceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	kit.ImportWorkspace(ctx, req, resp)
}

// adoptCreated resolves an ambiguous create of workspace name with
// description desc, sent at local time sent (see resolveCreate).
func (r *WorkspaceResource) adoptCreated(ctx context.Context, name, desc string, sent time.Time, cause error, resp *resource.CreateResponse) *client.Workspace {
	a := kit.AmbiguousCreate{Kind: "workspace", Name: name, Summary: "Cannot create workspace " + connection.Quote(name), Cause: cause, Sent: sent}
	return kit.ResolveCreate(ctx, r.data, a, r.data.Client.ListWorkspaces,
		func(w client.Workspace) kit.Candidate {
			return kit.Candidate{ID: w.ID, CreatedAt: w.CreatedAt, Matches: w.Name == name && w.Description == desc}
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
