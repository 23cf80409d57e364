package fleets

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

var _ objects.ObjectResourceInterfaces = (*FleetResource)(nil)

func NewFleetResource() resource.Resource {
	return &FleetResource{ResourceBase: objects.ResourceBase{TypeSuffix: "_fleet"}}
}

// FleetResource manages a fleet. The API can create and read fleets but
// neither update nor delete them.
type FleetResource struct {
	objects.ResourceBase
}

func (r *FleetResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A fleet of devices in a workspace. The API has no update and no delete for fleets: " +
			"changing `name`, `description` or `workspace_id` creates a new fleet and leaves the old one in the " +
			"service, and destroying only removes the fleet from the Terraform state (both are announced by a " +
			"warning at plan time). Because of that, a plan that creates a fleet (a new one or a replacement) fails when " +
			"the workspace already has a fleet of the same name, unless `allow_duplicate_names` is `true`. An API key is " +
			"bound to one workspace: fleets can only be created in the key's workspace.",
		Attributes: objects.NamedObjectAttributes("fleet", "Fleet", map[string]schema.Attribute{
			"workspace_id":                  objects.WorkspaceIDAttribute("fleet"),
			objects.AllowDuplicateNamesAttr: objects.AllowDuplicateNamesAttribute("fleet", "workspace"),
		}),
	}
}

func (r *FleetResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = objects.InWorkspaceIdentitySchema("fleet")
}

// FleetResourceModel is the state of zdm_fleet: the fleet, and what only
// the configuration sets.
type FleetResourceModel struct {
	FleetModel
	AllowDuplicateNames types.Bool `tfsdk:"allow_duplicate_names"`
}

func (r *FleetResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	objects.PlanWorkspace(ctx, r.Data, "fleet", req, resp)
	objects.WarnDestroyOrReplace(ctx, "fleet", req, resp, path.Root("workspace_id"), path.Root("name"), path.Root("description"))
	if resp.Diagnostics.HasError() || !req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || r.Data == nil {
		return
	}
	// A create, perhaps the replacement of a fleet that exists: refuse a
	// second fleet of the same name in the workspace (see objects.DuplicateNames).
	// Unknown values wait for the final plan at apply.
	var plan FleetResourceModel
	resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.AllowDuplicateNames.ValueBool() || plan.AllowDuplicateNames.IsUnknown() ||
		plan.WorkspaceID.IsUnknown() || plan.WorkspaceID.IsNull() || plan.Name.IsUnknown() {
		return
	}
	ws, name := plan.WorkspaceID.ValueString(), plan.Name.ValueString()
	fleets, err := r.Data.ListFleets(ctx, ws)
	if err == nil {
		r.Data.SawWorkspace(ws)
	}
	clashes := objects.SameNames(fleets, map[string]bool{name: true}, nil,
		func(f client.Fleet) string { return f.Name }, func(f client.Fleet) string { return f.ID })
	objects.DuplicateNames{Kind: "fleet", Attr: path.Root("name"), Where: "Workspace " + connection.Quote(ws), Ws: ws,
		Import:   "as a zdm_fleet resource (terraform import <address> " + ws + "/<fleet_id>, or an import block).",
		Replaced: "description or workspace_id"}.Refuse(ctx, clashes, err, &resp.Diagnostics)
	if !resp.Diagnostics.HasError() { // another resource of the walk creating the name (objects/name_claims.go)
		objects.ClaimOne(r.Data, "fleet", "workspace "+connection.Quote(ws), "fleet\x00"+ws,
			objects.ClaimOwner("zdm_fleet", name, plan.Description.ValueString()), name, path.Root("name"), &resp.Diagnostics)
	}
}

// object is what zdm_fleet adds to the create and read of the objects in a
// workspace.
func (r *FleetResource) object() objects.ObjectResource[FleetResourceModel, client.Fleet] {
	create := func(ctx context.Context, ws string, plan FleetResourceModel) (*client.Fleet, error) {
		return r.Data.Client.CreateFleet(ctx, ws, plan.Name.ValueString(), plan.Description.ValueString())
	}
	name := func(plan FleetResourceModel) string { return plan.Name.ValueString() }
	id := func(f *client.Fleet) string { return f.ID }
	flatten := func(f *client.Fleet, ws string) FleetResourceModel {
		return FleetResourceModel{FleetModel: FlattenFleet(f, ws)}
	}
	keep := func(from FleetResourceModel, to *FleetResourceModel) {
		to.AllowDuplicateNames = from.AllowDuplicateNames
	}
	return objects.ObjectResource[FleetResourceModel, client.Fleet]{Kind: "fleet", Data: r.Data, Name: name, ID: id,
		Send: create, Wrote: r.Data.WroteFleet, Adopt: r.adoptCreated, Get: r.Data.ReadFleet, Flatten: flatten, Keep: keep}
}

func (r *FleetResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.object().Create(ctx, req, resp)
	r.checkTwins(ctx, resp) // another fleet of its name created at the same time (twins.go)
}

func (r *FleetResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.object().Read(ctx, req, resp)
	r.warnTwins(ctx, req, resp)
}

// Update changes only allow_duplicate_names, which the service does not
// hold: every attribute of the fleet requires a replace.
func (r *FleetResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan FleetResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	objects.SetIdentity(ctx, resp.Identity, objects.InWorkspaceIdentityModel{WorkspaceID: plan.WorkspaceID, ID: plan.ID}, &resp.Diagnostics)
}

func (r *FleetResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.object().Delete(ctx, req, resp)
}

func (r *FleetResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.object().ImportState(ctx, req, resp)
}

// adoptCreated resolves the ambiguous create a of the planned fleet (see
// objects.ResolveCreate).
func (r *FleetResource) adoptCreated(ctx context.Context, a objects.AmbiguousCreate, plan FleetResourceModel, diags *diag.Diagnostics) *client.Fleet {
	ws, name, desc := a.Ws, a.Name, plan.Description.ValueString()
	return objects.ResolveCreate(ctx, r.Data, a,
		func(ctx context.Context) ([]client.Fleet, error) { return r.Data.Client.ListFleets(ctx, ws) },
		func(f client.Fleet) objects.Candidate {
			return objects.Candidate{ID: f.ID, CreatedAt: f.CreatedAt, Matches: f.Name == name && f.Description == desc}
		},
		func(f client.Fleet) string { return f.ID }, diags)
}
