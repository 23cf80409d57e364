package fleets

import (
	"context"
	"errors"
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
	_ resource.Resource                = (*FleetResource)(nil)
	_ resource.ResourceWithConfigure   = (*FleetResource)(nil)
	_ resource.ResourceWithImportState = (*FleetResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*FleetResource)(nil)
	_ resource.ResourceWithIdentity    = (*FleetResource)(nil)
)

func NewFleetResource() resource.Resource {
	return &FleetResource{}
}

// FleetResource manages a fleet. The API can create and read fleets but
// neither update nor delete them.
type FleetResource struct {
	data *connection.ProviderData
}

func (r *FleetResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_fleet"
}

func (r *FleetResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A fleet of devices in a workspace. The API has no update and no delete for fleets: " +
			"changing `name`, `description` or `workspace_id` creates a new fleet and leaves the old one in the " +
			"service, and destroying only removes the fleet from the Terraform state (both are announced by a " +
			"warning at plan time). An API key is bound to one workspace: fleets can only be created in the key's workspace.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Fleet ID, assigned by the service.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"workspace_id": schema.StringAttribute{
				MarkdownDescription: "ID of the workspace of the fleet; defaults to the provider's `workspace_id`. " +
					"The provider's `workspace_id` is used only when the fleet is created: a later change of it never " +
					"moves nor replaces the fleet (a plan-time warning names both workspaces). Changing this attribute " +
					"**replaces** the fleet (the old one stays in the service). An API key is bound to one workspace: " +
					"a workspace other than the provider's needs a provider alias with that workspace's key.",
				Optional:   true,
				Computed:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1), kit.NotBlank{}},
				PlanModifiers: []planmodifier.String{
					stringplanmodifier.UseStateForUnknown(),
					stringplanmodifier.RequiresReplace(),
				},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Fleet name; must not be blank. Changing it **replaces** the fleet " +
					"(the old one stays in the service).",
				Required:      true,
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1), kit.NotBlank{}},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"description": schema.StringAttribute{
				MarkdownDescription: "Fleet description; defaults to the empty string. Changing it **replaces** " +
					"the fleet (the old one stays in the service).",
				Optional:      true,
				Computed:      true,
				Default:       stringdefault.StaticString(""),
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"account_id": schema.StringAttribute{
				MarkdownDescription: "ID of the account that owns the fleet.",
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

func (r *FleetResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = kit.InWorkspaceIdentitySchema("fleet")
}

func (r *FleetResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = connection.ConfigureData("Resource", req.ProviderData, &resp.Diagnostics)
}

func (r *FleetResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	kit.PlanWorkspace(ctx, r.data, "fleet", req, resp)
	kit.WarnDestroyOrReplace(ctx, "fleet", req, resp, path.Root("workspace_id"), path.Root("name"), path.Root("description"))
}

func (r *FleetResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if r.data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	var plan kit.FleetModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ws := kit.WorkspaceOrDefault(r.data, plan.WorkspaceID, path.Root("workspace_id"), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	name, desc := plan.Name.ValueString(), plan.Description.ValueString()

	sent := time.Now()
	f, err := r.data.Client.CreateFleet(client.FinishOnceSent(ctx), ws, name, desc)
	r.data.WroteFleet(ws)
	if errors.Is(err, client.ErrAmbiguous) {
		f = r.adoptCreated(ctx, ws, name, desc, sent, err, resp)
		if f == nil {
			return
		}
	} else if err != nil {
		resp.Diagnostics.AddError("Cannot create fleet "+connection.Quote(name)+" in workspace "+ws, connection.DescribeError(err, ws))
		return
	}
	r.data.Own("fleet", f.ID)
	tflog.Trace(ctx, "created fleet", map[string]any{"id": f.ID, "workspace_id": ws})
	state := kit.FlattenFleet(f, ws)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	kit.SetIdentity(ctx, resp.Identity, kit.InWorkspaceIdentityModel{WorkspaceID: state.WorkspaceID, ID: state.ID}, &resp.Diagnostics)
}

func (r *FleetResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.data == nil {
		// The provider configuration is not known yet: keep the state.
		kit.IdentityFromState(ctx, req.State, resp.Identity, &resp.Diagnostics)
		return
	}
	var state kit.FleetModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ws, id := state.WorkspaceID.ValueString(), state.ID.ValueString()
	kit.SetIdentity(ctx, resp.Identity, kit.NewInWorkspaceIdentity(ws, id), &resp.Diagnostics)
	f, err := r.data.ReadFleet(ctx, ws, id)
	if client.IsNotFound(err) && kit.FollowsImport(ctx, req, &resp.Diagnostics) {
		kit.NotFoundAtImport(&resp.Diagnostics, "fleet", "fleet "+connection.Quote(id)+" of workspace "+connection.Quote(ws))
		return
	}
	if client.IsNotFound(err) {
		if err := r.data.ConfirmGone(ctx, "fleet", ws, id, err); err != nil {
			resp.Diagnostics.AddError("Cannot read fleet "+id+" of workspace "+ws, err.Error())
			return
		}
		tflog.Warn(ctx, "fleet not found; removing it from the state", map[string]any{"id": id, "workspace_id": ws})
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read fleet "+id+" of workspace "+ws, connection.DescribeError(err, ws))
		return
	}
	r.data.Own("fleet", f.ID)
	state = kit.FlattenFleet(f, ws)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	kit.ClearImported(ctx, resp)
}

// Update is never called with a change: every configurable attribute
// requires a replace.
func (r *FleetResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan kit.FleetModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	kit.SetIdentity(ctx, resp.Identity, kit.InWorkspaceIdentityModel{WorkspaceID: plan.WorkspaceID, ID: plan.ID}, &resp.Diagnostics)
}

func (r *FleetResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state kit.FleetModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.AddWarning(kit.ForgetWarning("fleet", state.Name.ValueString(), state.ID.ValueString()))
}

func (r *FleetResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	kit.ImportInWorkspaceWithIdentity(ctx, r.data, "fleet", req, resp)
}

// adoptCreated resolves an ambiguous create of fleet name with description
// desc in ws, sent at local time sent (see resolveCreate).
func (r *FleetResource) adoptCreated(ctx context.Context, ws, name, desc string, sent time.Time, cause error, resp *resource.CreateResponse) *client.Fleet {
	a := kit.AmbiguousCreate{Kind: "fleet", Name: name, Summary: "Cannot create fleet " + connection.Quote(name) + " in workspace " + ws,
		Ws: ws, Cause: cause, Sent: sent}
	return kit.ResolveCreate(ctx, r.data, a,
		func(ctx context.Context) ([]client.Fleet, error) { return r.data.Client.ListFleets(ctx, ws) },
		func(f client.Fleet) kit.Candidate {
			return kit.Candidate{ID: f.ID, CreatedAt: f.CreatedAt, Matches: f.Name == name && f.Description == desc}
		},
		func(f client.Fleet) string { return f.ID }, &resp.Diagnostics)
}
