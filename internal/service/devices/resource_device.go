package devices

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/kit"
)

var (
	_ resource.Resource                = (*DeviceResource)(nil)
	_ resource.ResourceWithConfigure   = (*DeviceResource)(nil)
	_ resource.ResourceWithImportState = (*DeviceResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*DeviceResource)(nil)
	_ resource.ResourceWithIdentity    = (*DeviceResource)(nil)
)

func NewDeviceResource() resource.Resource {
	return &DeviceResource{}
}

// DeviceResource manages a device. The API can create, read and update
// (name and fleet) devices but not delete them.
type DeviceResource struct {
	Data *connection.ProviderData
}

func (r *DeviceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_device"
}

func (r *DeviceResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A device in a fleet of a workspace. `name` and `fleet_id` are updated in place. " +
			"The API has no delete for devices: destroying only removes the device from the Terraform state, and " +
			"changing `workspace_id` creates a new device and leaves the old one in the service (both are announced " +
			"by a warning at plan time). An API key is bound to one workspace: devices can only be created in the key's workspace.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Device ID, assigned by the service.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"workspace_id": schema.StringAttribute{
				MarkdownDescription: "ID of the workspace of the device; defaults to the provider's `workspace_id`. " +
					"The provider's `workspace_id` is used only when the device is created: a later change of it never " +
					"moves nor replaces the device (a plan-time warning names both workspaces). Changing this attribute " +
					"**replaces** the device (the old one stays in the service). An API key is bound to one workspace: " +
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
				MarkdownDescription: "Device name; must not be blank. Changing it updates the device in place.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1), kit.NotBlank{}},
			},
			"fleet_id": schema.StringAttribute{
				MarkdownDescription: "ID of the fleet of the device, in the same workspace. When not set, the device " +
					"goes to the workspace's default fleet at creation, and later stays in whatever fleet it is in. " +
					"Changing it moves the device in place.",
				Optional:   true,
				Computed:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1), kit.NotBlank{}},
				PlanModifiers: []planmodifier.String{
					stringplanmodifier.UseStateForUnknown(),
				},
			},
			"fleet_name": schema.StringAttribute{
				MarkdownDescription: "Name of the fleet of the device.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{kit.FleetNameUnchanged{}},
			},
			"workspace_name": schema.StringAttribute{
				MarkdownDescription: "Name of the workspace of the device.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"account_id": schema.StringAttribute{
				MarkdownDescription: "ID of the account that owns the device.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: "Creation time (RFC 3339).",
				Computed:            true,
				PlanModifiers:       keep,
			},
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
		},
	}
}

func (r *DeviceResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = kit.InWorkspaceIdentitySchema("device")
}

func (r *DeviceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.Data = connection.ConfigureData("Resource", req.ProviderData, &resp.Diagnostics)
}

func (r *DeviceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	kit.PlanWorkspace(ctx, r.Data, "device", req, resp)
	kit.WarnDestroyOrReplace(ctx, "device", req, resp, path.Root("workspace_id"))
}

func (r *DeviceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if r.Data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	var plan kit.DeviceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ws := kit.WorkspaceOrDefault(r.Data, plan.WorkspaceID, path.Root("workspace_id"), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	name, fleet := plan.Name.ValueString(), plan.FleetID.ValueString() // "" (unknown) => default fleet

	sent := time.Now()
	d, err := r.Data.Client.CreateDevice(client.FinishOnceSent(ctx), ws, name, fleet)
	r.Data.WroteDevice(ws)
	if errors.Is(err, client.ErrAmbiguous) {
		d = r.adoptCreated(ctx, ws, name, fleet, sent, err, resp)
		if d == nil {
			return
		}
	} else if err != nil {
		resp.Diagnostics.AddError("Cannot create device "+connection.Quote(name)+" in workspace "+ws, connection.DescribeError(err, ws))
		return
	}
	r.Data.Own("device", d.ID)
	tflog.Trace(ctx, "created device", map[string]any{"id": d.ID, "workspace_id": ws})
	state := kit.FlattenDevice(d, ws)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	kit.SetIdentity(ctx, resp.Identity, kit.InWorkspaceIdentityModel{WorkspaceID: state.WorkspaceID, ID: state.ID}, &resp.Diagnostics)
}

func (r *DeviceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.Data == nil {
		// The provider configuration is not known yet: keep the state.
		kit.IdentityFromState(ctx, req.State, resp.Identity, &resp.Diagnostics)
		return
	}
	var state kit.DeviceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ws, id := state.WorkspaceID.ValueString(), state.ID.ValueString()
	kit.SetIdentity(ctx, resp.Identity, kit.NewInWorkspaceIdentity(ws, id), &resp.Diagnostics)
	d, err := r.Data.ReadDevice(ctx, ws, id)
	if client.IsNotFound(err) && kit.FollowsImport(ctx, req, &resp.Diagnostics) {
		kit.NotFoundAtImport(&resp.Diagnostics, "device", "device "+connection.Quote(id)+" of workspace "+connection.Quote(ws))
		return
	}
	if client.IsNotFound(err) {
		if err := r.Data.ConfirmGone(ctx, "device", ws, id, err); err != nil {
			resp.Diagnostics.AddError("Cannot read device "+id+" of workspace "+ws, err.Error())
			return
		}
		tflog.Warn(ctx, "device not found; removing it from the state", map[string]any{"id": id, "workspace_id": ws})
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read device "+id+" of workspace "+ws, connection.DescribeError(err, ws))
		return
	}
	r.Data.Own("device", d.ID)
	state = kit.FlattenDevice(d, ws)
	if lines := connection.Registry[deviceClaims](r.Data).claimDevices("zdm_device "+connection.Quote(d.Name), map[string]string{d.ID: ""}); len(lines) > 0 {
		resp.Diagnostics.AddWarning(twiceManagedWarning(lines))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	kit.ClearImported(ctx, resp)
}

func (r *DeviceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if r.Data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	var plan, prior kit.DeviceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ws, id := prior.WorkspaceID.ValueString(), prior.ID.ValueString()
	fleet := plan.FleetID.ValueString()
	if plan.FleetID.IsUnknown() || fleet == "" {
		fleet = prior.FleetID.ValueString()
	}
	r.Data.Own("device", id)
	d, err := r.Data.Client.UpdateDevice(client.FinishOnceSent(ctx), ws, id, plan.Name.ValueString(), fleet)
	r.Data.WroteDevice(ws)
	if err != nil {
		resp.Diagnostics.AddError("Cannot update device "+id+" of workspace "+ws, connection.DescribeError(err, ws))
		return
	}
	tflog.Trace(ctx, "updated device", map[string]any{"id": id, "workspace_id": ws})
	state := kit.FlattenDevice(d, ws)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	kit.SetIdentity(ctx, resp.Identity, kit.InWorkspaceIdentityModel{WorkspaceID: state.WorkspaceID, ID: state.ID}, &resp.Diagnostics)
}

func (r *DeviceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state kit.DeviceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.AddWarning(kit.ForgetWarning("device", state.Name.ValueString(), state.ID.ValueString()))
}

func (r *DeviceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	kit.ImportInWorkspaceWithIdentity(ctx, r.Data, "device", req, resp)
}

// adoptCreated resolves an ambiguous create of device name in fleet ("":
// the default fleet) of ws, sent at local time sent (see resolveCreate).
func (r *DeviceResource) adoptCreated(ctx context.Context, ws, name, fleet string, sent time.Time, cause error, resp *resource.CreateResponse) *client.Device {
	a := kit.AmbiguousCreate{Kind: "device", Name: name, Summary: "Cannot create device " + connection.Quote(name) + " in workspace " + ws,
		Ws: ws, Cause: cause, Sent: sent}
	defaultFleet := ""
	list := func(ctx context.Context) ([]client.Device, error) {
		if fleet == "" && defaultFleet == "" {
			fleets, err := r.Data.Client.ListFleets(ctx, ws)
			if err != nil {
				return nil, err
			}
			defaultFleet = kit.DefaultFleetOf(fleets)
		}
		return r.Data.Client.ListDevices(ctx, ws)
	}
	return kit.ResolveCreate(ctx, r.Data, a, list,
		func(d client.Device) kit.Candidate { return kit.DeviceCandidate(d, name, fleet, defaultFleet) },
		func(d client.Device) string { return d.ID }, &resp.Diagnostics)
}
