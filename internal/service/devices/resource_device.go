package devices

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

var _ objects.ObjectResourceInterfaces = (*DeviceResource)(nil)

func NewDeviceResource() resource.Resource {
	return &DeviceResource{ResourceBase: objects.ResourceBase{TypeSuffix: "_device"}}
}

// DeviceResource manages a device. The API can create, read and update
// (name and fleet) devices but not delete them.
type DeviceResource struct {
	objects.ResourceBase
}

func (r *DeviceResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A device in a fleet of a workspace. `name` and `fleet_id` are updated in place. " +
			"The API has no delete for devices: destroying only removes the device from the Terraform state, and " +
			"changing `workspace_id` creates a new device and leaves the old one in the service (both are announced " +
			"by a warning at plan time). An API key is bound to one workspace: devices can only be created in the key's workspace. " +
			"A plan that would create a device whose name already exists in its fleet (such as a replacement after " +
			"`terraform taint` or `-replace`), or rename or move it to such a name, fails before anything is sent; see " +
			"`allow_duplicate_names`.",
		Attributes: map[string]schema.Attribute{
			"id":           objects.IDAttribute("Device"),
			"workspace_id": objects.WorkspaceIDAttribute("device"),
			"name": schema.StringAttribute{
				MarkdownDescription: "Device name; must not be blank. Changing it updates the device in place.",
				Required:            true,
				Validators:          validators.NotEmpty(),
			},
			"fleet_id": schema.StringAttribute{
				MarkdownDescription: "ID of the fleet of the device, in the same workspace. When not set, the device " +
					"goes to the workspace's default fleet at creation, and later stays in whatever fleet it is in. " +
					"Changing it moves the device in place.",
				Optional:   true,
				Computed:   true,
				Validators: validators.NotEmpty(),
				PlanModifiers: []planmodifier.String{
					stringplanmodifier.UseStateForUnknown(),
				},
			},
			"fleet_name": schema.StringAttribute{
				MarkdownDescription: "Name of the fleet of the device.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{FleetNameUnchanged{}},
			},
			"workspace_name": schema.StringAttribute{
				MarkdownDescription: "Name of the workspace of the device.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"account_id": objects.AccountIDAttribute("device"),
			"created_at": objects.CreatedAtAttribute(),
			"phys_id": schema.StringAttribute{
				MarkdownDescription: "Physical device ID, as reported by the service.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"identities": schema.StringAttribute{
				MarkdownDescription: "Identities associated with the device, as a JSON array (decode it with " +
					"`jsondecode`); null when the device has none.",
				Computed: true,
			},
			AllowDuplicateNamesAttr: schema.BoolAttribute{
				MarkdownDescription: AllowDuplicateNamesDescription,
				Optional:            true,
			},
		},
	}
}

func (r *DeviceResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = objects.InWorkspaceIdentitySchema("device")
}

// DeviceResourceModel is the state of zdm_device: the device, and what only the
// configuration sets.
type DeviceResourceModel struct {
	DeviceModel
	AllowDuplicateNames types.Bool `tfsdk:"allow_duplicate_names"`
}

func (r *DeviceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	objects.PlanWorkspace(ctx, r.Data, "device", req, resp)
	objects.WarnDestroyOrReplace(ctx, "device", req, resp, path.Root("workspace_id"))
	if resp.Diagnostics.HasError() || req.Plan.Raw.IsNull() || r.Data == nil {
		return
	}
	r.checkFleet(ctx, req, resp)
	defer r.claimName(ctx, req, resp) // a name another resource of the walk writes too (name_claims.go)
	if resp.Diagnostics.HasError() {
		return
	}
	r.refuseDuplicates(ctx, req, resp)
}

// refuseDuplicates refuses a second device of the name in the device's
// fleet (see duplicates.go): for a create (perhaps the replacement of a
// device that exists), and for a rename or a move into another fleet.
// Unknown values wait for the final plan at apply.
func (r *DeviceResource) refuseDuplicates(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var plan DeviceResourceModel
	resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.AllowDuplicateNames.ValueBool() || plan.AllowDuplicateNames.IsUnknown() ||
		plan.WorkspaceID.IsUnknown() || plan.WorkspaceID.IsNull() || plan.Name.IsUnknown() {
		return
	}
	ws, fleet, name := plan.WorkspaceID.ValueString(), plan.FleetID.ValueString(), plan.Name.ValueString()
	n := FleetNames{Attr: path.Root("name"), Ws: ws, Fleet: fleet, Import: func(_ string, found []objects.NameClash) string {
		return "into this zdm_device with an import block such as this one, in which to is the address of this " +
			"resource (write it: the provider is not told it), then apply again:" + ImportBlocks("zdm_device",
			"zdm_device.<name of this resource>", clashIDs(found), func(id string) string { return ws + "/" + id }) +
			"\n\nOn Terraform 1.14 and later, terraform query with a list \"zdm_device\" block (config { name = " +
			connection.Quote(name) + " }) lists them, and its -generate-config-out writes the blocks."
	}}
	if req.State.Raw.IsNull() {
		if plan.FleetID.IsUnknown() && !fleetUnset(ctx, req) {
			return
		}
		n.Created = map[string]bool{name: true}
		n.Refuse(ctx, r.Data, &resp.Diagnostics)
		return
	}
	var prior DeviceResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	// A new workspace_id replaces the device: its create is planned, and
	// checked, again with no prior state.
	if resp.Diagnostics.HasError() || plan.FleetID.IsUnknown() || ws != prior.WorkspaceID.ValueString() {
		return
	}
	if fleet == "" {
		fleet = prior.FleetID.ValueString()
	}
	if name == prior.Name.ValueString() && fleet == prior.FleetID.ValueString() {
		return
	}
	n.Fleet, n.Arriving, n.Held = fleet, map[string]bool{name: true}, map[string]bool{prior.ID.ValueString(): true}
	n.Refuse(ctx, r.Data, &resp.Diagnostics)
}

// clashIDs returns the IDs of clashes.
func clashIDs(clashes []objects.NameClash) []string {
	ids := make([]string, len(clashes))
	for i, c := range clashes {
		ids[i] = c.ID
	}
	return ids
}

// checkFleet fails a plan that creates the device in, or moves it to, a
// fleet_id that is not a fleet of its workspace (objects.CheckFleetInWorkspace);
// a plan that keeps the fleet sends nothing for it.
func (r *DeviceResource) checkFleet(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var ws, fleet, prior types.String
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("workspace_id"), &ws)...)
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("fleet_id"), &fleet)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("fleet_id"), &prior)...)
	}
	if resp.Diagnostics.HasError() || ws.IsUnknown() || fleet.IsUnknown() || fleet.IsNull() || fleet.Equal(prior) {
		return
	}
	objects.CheckFleetInWorkspace(ctx, r.Data, path.Root("fleet_id"), ws.ValueString(), fleet.ValueString(), &resp.Diagnostics)
}

// fleetUnset tells whether the configuration leaves fleet_id out (the
// workspace's default fleet).
func fleetUnset(ctx context.Context, req resource.ModifyPlanRequest) bool {
	var fleet types.String
	diags := req.Config.GetAttribute(ctx, path.Root("fleet_id"), &fleet)
	return !diags.HasError() && fleet.IsNull()
}

// object is what zdm_device adds to the create and read of the objects in a
// workspace.
func (r *DeviceResource) object() objects.ObjectResource[DeviceResourceModel, client.Device] {
	return objects.ObjectResource[DeviceResourceModel, client.Device]{
		Kind: "device",
		Data: r.Data,
		Name: func(plan DeviceResourceModel) string { return plan.Name.ValueString() },
		// An unknown fleet_id is "": the workspace's default fleet.
		Send: func(ctx context.Context, ws string, plan DeviceResourceModel) (*client.Device, error) {
			return r.Data.Client.CreateDevice(ctx, ws, plan.Name.ValueString(), plan.FleetID.ValueString())
		},
		Wrote: r.Data.WroteDevice,
		Adopt: r.adoptCreated,
		Get:   r.Data.ReadDevice,
		ID:    func(d *client.Device) string { return d.ID },
		Flatten: func(d *client.Device, ws string) DeviceResourceModel {
			return DeviceResourceModel{DeviceModel: FlattenDevice(d, ws)}
		},
		Keep: func(from DeviceResourceModel, to *DeviceResourceModel) {
			to.AllowDuplicateNames = from.AllowDuplicateNames
		},
		Check: func(d *client.Device, diags *diag.Diagnostics) {
			if lines := connection.Registry[DeviceClaims](r.Data).ClaimDevices("zdm_device "+connection.Quote(d.Name), map[string]string{d.ID: ""}); len(lines) > 0 {
				diags.AddWarning(TwiceManagedWarning(lines))
			}
		},
	}
}

func (r *DeviceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.object().Create(ctx, req, resp)
	r.checkTwins(ctx, resp) // another device of its name created at the same time (twins.go)
}

func (r *DeviceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.object().Read(ctx, req, resp)
	r.warnTwins(ctx, req, resp)
}

func (r *DeviceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan, prior, ok := connection.DecodeUpdate[DeviceResourceModel](ctx, r.Data, req.Plan, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	ws, id := prior.WorkspaceID.ValueString(), prior.ID.ValueString()
	fleet := plan.FleetID.ValueString()
	if plan.FleetID.IsUnknown() || fleet == "" {
		fleet = prior.FleetID.ValueString()
	}
	r.Data.Own("device", id)
	d, err := r.Data.UpdateDevice(client.FinishOnceSent(ctx), ws, id, plan.Name.ValueString(), fleet)
	if err != nil {
		r.Data.WroteDevice(ws, nil)
		resp.Diagnostics.AddError("Cannot update device "+id+" of workspace "+ws, connection.DescribeError(err, ws))
		return
	}
	r.Data.WroteDevice(ws, d)
	tflog.Trace(ctx, "updated device", map[string]any{"id": id, "workspace_id": ws})
	state := DeviceResourceModel{DeviceModel: FlattenDevice(d, ws), AllowDuplicateNames: plan.AllowDuplicateNames}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	objects.SetIdentity(ctx, resp.Identity, objects.InWorkspaceIdentityModel{WorkspaceID: state.WorkspaceID, ID: state.ID}, &resp.Diagnostics)
}

func (r *DeviceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.object().Delete(ctx, req, resp)
}

func (r *DeviceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	r.object().ImportState(ctx, req, resp)
}

// adoptCreated resolves the ambiguous create a of the planned device (see
// objects.ResolveCreate); an unknown fleet_id is the workspace's default fleet.
func (r *DeviceResource) adoptCreated(ctx context.Context, a objects.AmbiguousCreate, plan DeviceResourceModel, diags *diag.Diagnostics) *client.Device {
	ws, name, fleet := a.Ws, a.Name, plan.FleetID.ValueString()
	defaultFleet := ""
	list := func(ctx context.Context) ([]client.Device, error) {
		if fleet == "" && defaultFleet == "" {
			fleets, err := r.Data.Client.ListFleets(ctx, ws)
			if err != nil {
				return nil, err
			}
			defaultFleet = objects.DefaultFleetOf(fleets)
		}
		return r.Data.Client.ListDevices(ctx, ws)
	}
	return objects.ResolveCreate(ctx, r.Data, a, list,
		func(d client.Device) objects.Candidate { return objects.DeviceCandidate(d, name, fleet, defaultFleet) },
		func(d client.Device) string { return d.ID }, diags)
}
