package firmware

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
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
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/framework/planmodifiers"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

var (
	_ resource.Resource                     = (*fotaResource)(nil)
	_ resource.ResourceWithConfigure        = (*fotaResource)(nil)
	_ resource.ResourceWithConfigValidators = (*fotaResource)(nil)
	_ resource.ResourceWithImportState      = (*fotaResource)(nil)
	_ resource.ResourceWithIdentity         = (*fotaResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*fotaResource)(nil)
	_ resource.ResourceWithValidateConfig   = (*fotaResource)(nil)
	_ resource.ResourceWithUpgradeState     = (*fotaResource)(nil)
)

func NewFOTAResource() resource.Resource {
	return &fotaResource{}
}

// fotaResource schedules a firmware update on a device or on the devices of
// fleets. The API schedules updates and reads a device's current one, but
// cannot cancel them.
type fotaResource struct {
	data *connection.ProviderData
}

// fotaModel maps the zdm_fota resource.
type fotaModel struct {
	ID              types.String `tfsdk:"id"`
	DeviceID        types.String `tfsdk:"device_id"`
	WorkspaceID     types.String `tfsdk:"workspace_id"`
	FleetIDs        types.Set    `tfsdk:"fleet_ids"`
	AllFleets       types.Bool   `tfsdk:"all_fleets"`
	FirmwareID      types.String `tfsdk:"firmware_id"`
	FirmwareVersion types.String `tfsdk:"firmware_version"`
	Triggers        types.Map    `tfsdk:"triggers"`
	Status          types.String `tfsdk:"status"`
	ScheduledAt     types.String `tfsdk:"scheduled_at"`
	Devices         types.List   `tfsdk:"devices"`
	// Progress, read on refresh.
	StatusCounts   types.Map  `tfsdk:"status_counts"`
	DevicesNotDone types.List `tfsdk:"devices_not_done"`
	scheduling.WaitModel
}

// firmware is the update of m.
func (m *fotaModel) firmware() *fleetstatus.Firmware {
	return &fleetstatus.Firmware{ID: m.FirmwareID.ValueString(), Version: m.FirmwareVersion.ValueString()}
}

// what names the update of m in messages.
func (m *fotaModel) what(ctx context.Context) string {
	var diags diag.Diagnostics
	return "firmware update " + m.FirmwareID.ValueString() + " " + m.FirmwareVersion.ValueString() + " of " +
		m.target(ctx, &diags)
}

// scheduling names the update of m for the registry of unfinished waits
// (unfinished.go); ok is false while it is not known.
func (m *fotaModel) scheduling(ctx context.Context) (scheduling.UnfinishedScheduling, bool) {
	triggers, ok := scheduling.TriggersJSON(m.Triggers)
	if !ok || !values.Known(m.FirmwareID) || !values.Known(m.FirmwareVersion) || m.DeviceID.IsUnknown() || m.WorkspaceID.IsUnknown() ||
		m.FleetIDs.IsUnknown() || m.AllFleets.IsUnknown() {
		return scheduling.UnfinishedScheduling{}, false
	}
	var diags diag.Diagnostics
	key := scheduling.SchedulingKey("zdm_fota", "device", m.DeviceID.ValueString())
	if !m.deviceMode() {
		key = scheduling.SchedulingKey("zdm_fota", "fleets", m.WorkspaceID.ValueString(), scheduling.FleetsKey(ctx, m.FleetIDs, m.AllFleets, &diags))
	}
	return scheduling.UnfinishedScheduling{Key: key, Value: scheduling.FirmwareJSON(m.FirmwareID.ValueString(), m.FirmwareVersion.ValueString()),
			Triggers: triggers, ScheduledAt: m.ScheduledAt.ValueString(), Devices: scheduling.ListStrings(ctx, m.Devices, &diags)},
		!diags.HasError()
}

// record is the record of the update of m that a Delete hands to the
// Create of a replacement (scheduling.RememberSent): the update of the
// device, or of the workspace's fleets whatever the fleets, its firmware
// and triggers, and the devices it reached.
func (m *fotaModel) record(ctx context.Context) (scheduling.UnfinishedScheduling, bool) {
	u, ok := m.scheduling(ctx)
	if !m.deviceMode() {
		u.Key = scheduling.SchedulingKey("zdm_fota", "fleets", m.WorkspaceID.ValueString())
	}
	return u, ok
}

// statuses are the last-read statuses of the devices of m.
func (m *fotaModel) statuses() []string {
	if m.deviceMode() {
		return []string{m.Status.ValueString()}
	}
	return scheduling.StatusCountKeys(m.StatusCounts)
}

// markWait records in the private state whether the wait of m succeeded.
func (m *fotaModel) markWait(ctx context.Context, private scheduling.PrivateData, ok bool, diags *diag.Diagnostics) {
	if u, known := m.scheduling(ctx); known {
		scheduling.MarkWait(ctx, private, u, ok, diags)
	}
}

// command tells whether a change from prior to m sends the update again:
// a change of the firmware or of triggers.
func (m *fotaModel) command(prior fotaModel) bool {
	return !prior.FirmwareID.Equal(m.FirmwareID) || !prior.FirmwareVersion.Equal(m.FirmwareVersion) ||
		!prior.Triggers.Equal(m.Triggers)
}

// deviceMode tells whether the update targets one device.
func (m *fotaModel) deviceMode() bool {
	return !m.DeviceID.IsNull()
}

// target names the target of the update in messages.
func (m *fotaModel) target(ctx context.Context, diags *diag.Diagnostics) string {
	if m.deviceMode() {
		return "device " + m.DeviceID.ValueString()
	}
	return objects.DescribeFleets(m.WorkspaceID.ValueString(), values.SetStrings(ctx, m.FleetIDs, diags))
}

func (r *fotaResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_fota"
}

func (r *fotaResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	notEmpty := validators.NotEmpty()
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		Version: fotaSchemaVersion,
		MarkdownDescription: "A firmware-over-the-air (FOTA) update scheduled on one device (`device_id`) or on " +
			"every device of fleets of a workspace (`workspace_id`, with `fleet_ids`, or `all_fleets = true` for every " +
			"fleet). Creating the " +
			"resource schedules the update: on one device, unless the device already holds this firmware and " +
			"version (then it is adopted into the state without sending, with a warning, so `terraform taint`, " +
			"`-replace` or a resource removed and added back never update it twice); on fleets, with one request " +
			"when no device of the fleets holds it yet, otherwise one request to each device that lacks it. Changing `firmware_id`, `firmware_version` or `triggers` " +
			"schedules it again in place (the service replaces each device's current update); adding fleets sends " +
			"it to the added fleets only. On one device, " +
			"`status` is read back on every refresh; when the device holds another update since (another resource's, " +
			"such as an update of its fleets, or one scheduled outside Terraform), the refresh keeps this " +
			"resource's firmware, counts the device as `replaced` in `status_counts` and warns with what it holds: " +
			"nothing is sent again until `firmware_id`, `firmware_version` or `triggers` change. On fleets, the service has no fleet-wide read of a scheduling: the state keeps " +
			"what was scheduled, and each refresh reads the update on every device of `devices` (16 at a time) for " +
			"the progress (`status_counts`, `devices_not_done`). The API cannot cancel updates: destroying only " +
			"removes the resource from the Terraform state (a warning says so at plan time). With `wait = true`, the " +
			"apply waits until every targeted device reports the update in a success status (see `wait`). Works " +
			"with every " +
			"Terraform and OpenTofu version; with Terraform 1.14 and later, the `zdm_schedule_fota` action " +
			"schedules updates without keeping them in state.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The device ID for an update of one device; " +
					"`<workspace_id>/<firmware_id>/<firmware_version>` for an update of fleets (a `/` inside a part is " +
					"written `%2F`). Either imports the update back.",
				Computed:      true,
				PlanModifiers: keep,
			},
			"device_id": schema.StringAttribute{
				MarkdownDescription: "ID of the device to update. Exactly one of `device_id` and `workspace_id` " +
					"must be set. Changing it **replaces** the resource (the update of the old device stays).",
				Optional:      true,
				Validators:    notEmpty,
				PlanModifiers: replace,
			},
			"workspace_id": schema.StringAttribute{
				MarkdownDescription: "ID of the workspace whose fleets are updated. It must be set explicitly (the " +
					"provider's `workspace_id` is not used here, so that leaving out `device_id` cannot update a whole " +
					"workspace by mistake). Exactly one of `device_id` and `workspace_id` must be set. Changing it " +
					"**replaces** the resource (the updates already scheduled stay).",
				Optional:      true,
				Validators:    notEmpty,
				PlanModifiers: replace,
			},
			"fleet_ids": scheduling.FleetIDsAttribute("IDs of the fleets of `workspace_id` to update. With `workspace_id`, " +
				"exactly one of `fleet_ids` and `all_fleets = true` must be set (an empty set is an error). Changing " +
				"it alone sends the update only to the fleets it adds (the plan warns which): the devices of the fleets " +
				"already targeted do not get it again. Before any fleet-wide request of an update, each device of the " +
				"fleets is read: when some already have this firmware and version (such as a device moved from a " +
				"targeted fleet), it is sent only to the others, one request each. To send it again to every targeted " +
				"device, change `triggers`."),
			"all_fleets": scheduling.AllFleetsAttribute("the update (only with `workspace_id`)"),
			"firmware_id": schema.StringAttribute{
				MarkdownDescription: "ID of the firmware to install. Changing it schedules the update again, in place.",
				Required:            true,
				Validators:          notEmpty,
			},
			"firmware_version": schema.StringAttribute{
				MarkdownDescription: "Version of the firmware to install. Changing it schedules the new version, in place.",
				Required:            true,
				Validators:          notEmpty,
			},
			"triggers": scheduling.TriggersAttribute("schedule the update"),
			"status": schema.StringAttribute{
				MarkdownDescription: "Status of the update: `pending` when scheduled, then as the service reports it " +
					"(for example `done`). Read on every refresh for one device; for fleets, the status answered " +
					"when the update was scheduled.",
				Computed: true,
			},
			"scheduled_at": schema.StringAttribute{
				MarkdownDescription: "When the update was last scheduled (RFC 3339).",
				Computed:            true,
			},
			"devices": schema.ListAttribute{
				MarkdownDescription: "IDs of the devices the update was scheduled on, sorted: those of the fleets when it " +
					"was scheduled, and those of fleets added or removed since (devices added to the fleets later are not " +
					"updated until it is scheduled again), or `device_id` alone. It is the resource's record: the update is " +
					"never sent again to a device listed here (even when the service no longer shows it there, such as " +
					"after another firmware replaced it) until the firmware or `triggers` change.",
				ElementType: types.StringType,
				Computed:    true,
			},
		},
	}
	for name, attr := range scheduling.ProgressSchema("update") {
		resp.Schema.Attributes[name] = attr
	}
	scheduling.AddWaitSchema(ctx, &resp.Schema, "firmware update")
}

func (r *fotaResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.ExactlyOneOf(path.MatchRoot("device_id"), path.MatchRoot("workspace_id")),
		resourcevalidator.Conflicting(path.MatchRoot("device_id"), path.MatchRoot("fleet_ids")),
		resourcevalidator.Conflicting(path.MatchRoot("device_id"), path.MatchRoot("all_fleets")),
	}
}

func (r *fotaResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = objects.FOTAIdentitySchema()
}

func (r *fotaResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg fotaModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg.Validate(ctx, &resp.Diagnostics)
	if cfg.WorkspaceID.IsNull() || !cfg.DeviceID.IsNull() {
		return
	}
	scheduling.ValidateFleetTargets(cfg.FleetIDs, cfg.AllFleets, "the firmware", &resp.Diagnostics)
}

func (r *fotaResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = connection.ConfigureData("Resource", req.ProviderData, &resp.Diagnostics)
}

func (r *fotaResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !req.Plan.Raw.IsNull() {
		var plan fotaModel
		resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
		if !resp.Diagnostics.HasError() && !plan.DeviceID.IsUnknown() && !plan.deviceMode() && values.Known(plan.FirmwareID) &&
			values.Known(plan.FirmwareVersion) {
			fw := plan.firmware()
			scheduling.ClaimFleets(ctx, r.data, plan.WorkspaceID, plan.FleetIDs, plan.AllFleets, "firmware",
				fw.ID+" "+fw.Version, "zdm_fota of fleets", &resp.Diagnostics)
		}
		if !resp.Diagnostics.HasError() && plan.deviceMode() && values.Known(plan.FirmwareID) && values.Known(plan.FirmwareVersion) {
			fw := plan.firmware()
			scheduling.ClaimDevice(ctx, r.data, plan.DeviceID, "firmware", fw.ID+" "+fw.Version,
				"zdm_fota of device "+plan.DeviceID.ValueString(), &resp.Diagnostics)
		}
		if resp.Diagnostics.HasError() {
			return
		}
	}
	planmodifiers.KeepComputedUnlessChanged(ctx, req, resp,
		[]string{"device_id", "workspace_id", "fleet_ids", "firmware_id", "firmware_version", "triggers"},
		append([]string{"id", "status", "scheduled_at", "devices"}, scheduling.ProgressAttributes...))
	planID(ctx, resp)
	if req.State.Raw.IsNull() {
		var plan fotaModel
		resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
		if u, ok := plan.scheduling(ctx); ok && !resp.Diagnostics.HasError() {
			if u, ok = scheduling.PlanAdoption(ctx, r.data, u, resp.Private, plan.what(ctx), "firmware update", &resp.Diagnostics); ok {
				plan.ScheduledAt, plan.Devices = types.StringValue(u.ScheduledAt), values.SortedList(u.Devices)
				resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
			}
		}
		return
	}
	var prior fotaModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	what := "The firmware update " + prior.FirmwareID.ValueString() + " " + prior.FirmwareVersion.ValueString() +
		" of " + prior.target(ctx, &resp.Diagnostics)
	if req.Plan.Raw.IsNull() {
		resp.Diagnostics.AddWarning("Destroying a firmware update only removes it from the Terraform state",
			what+" stays scheduled: the ZDM API cannot cancel updates. Terraform will stop managing it.")
		return
	}
	if changed := planmodifiers.ReplacedPaths(ctx, resp.Plan, req.State, []path.Path{path.Root("device_id"), path.Root("workspace_id")}, &resp.Diagnostics); len(changed) > 0 {
		resp.Diagnostics.AddWarning("Replacing a firmware update leaves the old one scheduled",
			what+" stays scheduled (the ZDM API cannot cancel updates); the update will be scheduled on the new target.")
	}
	var plan fotaModel
	resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
	if !resp.Diagnostics.HasError() && !plan.deviceMode() && !prior.deviceMode() && prior.WorkspaceID.Equal(plan.WorkspaceID) &&
		prior.FirmwareID.Equal(plan.FirmwareID) && prior.FirmwareVersion.Equal(plan.FirmwareVersion) &&
		!plan.Triggers.IsUnknown() && prior.Triggers.Equal(plan.Triggers) {
		scheduling.WarnTargetsOnly(ctx, "firmware update", prior.FleetIDs, plan.FleetIDs, plan.AllFleets, &resp.Diagnostics)
	}
	if resp.Diagnostics.HasError() || plan.Triggers.IsUnknown() || plan.FirmwareID.IsUnknown() ||
		plan.FirmwareVersion.IsUnknown() || plan.command(prior) || plan.deviceMode() != prior.deviceMode() ||
		(!plan.deviceMode() && !scheduling.SameTargets(prior.FleetIDs, plan.FleetIDs, plan.AllFleets)) ||
		!plan.Unfinished(ctx, prior.statuses(), &resp.Diagnostics) {
		return
	}
	// Not done yet: the update only waits again.
	plan.Status = types.StringUnknown()
	plan.StatusCounts, plan.DevicesNotDone = types.MapUnknown(types.Int64Type), types.ListUnknown(types.StringType)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
	status := scheduling.DescribeCounts(prior.StatusCounts)
	if prior.deviceMode() {
		status = prior.Status.ValueString()
	}
	resp.Diagnostics.AddWarning(scheduling.WaitsAgain(plan.what(ctx), "firmware update", status))
}

func (r *fotaResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := connection.Decode[fotaModel](ctx, r.data, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	planned, known := plan.scheduling(ctx)
	if adopted, adopt := scheduling.TakeAdoption(r.data, planned, known); adopt {
		// A replacement of an update whose wait did not succeed: nothing is
		// sent; the update is checked on the devices, then waited for.
		fw := plan.firmware()
		got, ok := scheduling.VerifyAdoption(ctx, r.data, adopted, fleetstatus.FOTA, scheduling.FirmwareMatches(fw.ID, fw.Version),
			plan.what(ctx), &resp.Diagnostics)
		status := client.JobStatusPending
		if plan.deviceMode() && len(got) == 1 && got[0].Found {
			status = got[0].Status
		}
		fotaFlatten(&plan, &client.FOTA{ScheduledAt: adopted.ScheduledAt, Status: status,
			Value: client.FOTAValue{FirmwareID: fw.ID, FirmwareVersion: fw.Version}, Devices: adopted.Devices})
		if got != nil {
			plan.StatusCounts, plan.DevicesNotDone = scheduling.FleetProgress(adopted.Devices, "", got, fw, plan.DoneStatuses())
		}
		if !ok {
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
			objects.SetIdentity(ctx, resp.Identity, objects.NewFOTAIdentity(plan.DeviceID, plan.WorkspaceID), &resp.Diagnostics)
			plan.markWait(ctx, resp.Private, false, &resp.Diagnostics)
			return
		}
	} else {
		// The record of the object this one replaces, if any: the devices
		// it reached with this firmware do not get it again.
		u, known := plan.record(ctx)
		rec := scheduling.TakeSent(r.data, u, known)
		gate, prior := (*scheduling.Gate)(nil), ""
		if rec != nil {
			gate, prior = &scheduling.Gate{Record: rec.Devices}, rec.ScheduledAt
		}
		if !r.adoptHeld(ctx, &plan, rec, &resp.Diagnostics) {
			if resp.Diagnostics.HasError() || !r.schedule(ctx, &plan, prior, nil, gate, &resp.Diagnostics) {
				return
			}
		}
	}
	ok = r.wait(ctx, &plan, false, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	objects.SetIdentity(ctx, resp.Identity, objects.NewFOTAIdentity(plan.DeviceID, plan.WorkspaceID), &resp.Diagnostics)
	plan.markWait(ctx, resp.Private, ok, &resp.Diagnostics)
}

// wait waits, with wait = true, for the update on the devices of plan, and
// stores their progress (and, for one device, its status) in plan (update:
// which timeout bounds it). It reports whether every device is done (true
// without wait).
func (r *fotaResource) wait(ctx context.Context, plan *fotaModel, update bool, diags *diag.Diagnostics) bool {
	got, ok := scheduling.WaitDevices(ctx, r.data, plan.WaitModel, scheduling.ListStrings(ctx, plan.Devices, diags), fleetstatus.FOTA,
		plan.firmware(), update, plan.what(ctx), "firmware update", &plan.StatusCounts, &plan.DevicesNotDone, diags)
	if plan.deviceMode() && len(got) == 1 && got[0].Found {
		plan.Status = types.StringValue(got[0].Status)
	}
	return ok
}

func (r *fotaResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	objects.IdentityFromState(ctx, req.State, resp.Identity, &resp.Diagnostics)
	if r.data == nil {
		// The provider configuration is not known yet: keep the state.
		return
	}
	var state fotaModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	scheduling.NoteRead(ctx, r.data, req.Private)
	if !state.deviceMode() {
		// No fleet-wide read of a scheduling: the state keeps what was
		// scheduled, and the devices are read for the progress.
		r.readFleetProgress(ctx, &state, resp)
		return
	}
	dev := state.DeviceID.ValueString()
	f, err := r.data.Client.GetFOTA(ctx, dev)
	if client.IsNotFound(err) || client.IsNeverScheduled(err) {
		// The update leaves the state only when its device is proven gone;
		// a record the service no longer returns keeps the state, so that
		// nothing is scheduled again without a change of the configuration.
		gone := false
		if client.IsNotFound(err) {
			var perr error
			if gone, perr = scheduling.DeviceGone(ctx, r.data, dev, err); perr != nil {
				resp.Diagnostics.AddError("Cannot read the firmware update of device "+dev, perr.Error())
				return
			}
		}
		switch {
		case gone:
			tflog.Warn(ctx, "device not found; removing its firmware update from the state", map[string]any{"device_id": dev})
			resp.State.RemoveResource(ctx)
		case state.Status.IsNull():
			resp.Diagnostics.AddError("Cannot import the firmware update of device "+dev,
				"Device "+dev+" has no firmware update.")
		default:
			resp.Diagnostics.AddWarning(scheduling.RecordMissing("firmware update", dev, "firmware_id, firmware_version or triggers"))
		}
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the firmware update of device "+dev, err.Error())
		return
	}
	if fw, ver := f.Value.FirmwareID, f.Value.FirmwareVersion; !state.Status.IsNull() && fw != "" &&
		(fw != state.FirmwareID.ValueString() || ver != state.FirmwareVersion.ValueString()) {
		// The device holds another update now (another resource's, such as
		// an update of its fleets, or one scheduled outside Terraform): the
		// state keeps this resource's firmware, so the plan sends nothing;
		// the progress counts the device as replaced.
		resp.Diagnostics.AddWarning(scheduling.HeldElsewhere("firmware update "+state.FirmwareID.ValueString()+" "+
			state.FirmwareVersion.ValueString(), dev, "firmware update "+fw+" "+ver, f.ScheduledAt, f.Status,
			"firmware_id, firmware_version or triggers"))
		state.StatusCounts, state.DevicesNotDone = scheduling.FleetProgress([]string{dev}, "",
			[]fleetstatus.Device{{ID: dev, Found: true, Status: f.Status, ScheduledAt: f.ScheduledAt, FirmwareID: fw, FirmwareVersion: ver}},
			state.firmware(), state.DoneStatuses())
	} else {
		fotaFlatten(&state, f)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	objects.SetIdentity(ctx, resp.Identity, objects.NewFOTAIdentity(state.DeviceID, state.WorkspaceID), &resp.Diagnostics)
}

// Update sends the update again on a change of firmware or triggers, and
// only to the fleets added on a change of the targets alone (a scheduling of
// one device has no fleets: nothing is added).
func (r *fotaResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	scheduling.UpdateFleetScheduling(ctx, r.data, req, resp, func(plan, prior *fotaModel) scheduling.FleetUpdate {
		diags := &resp.Diagnostics
		save := func() {
			diags.Append(resp.State.Set(ctx, plan)...)
			objects.SetIdentity(ctx, resp.Identity, objects.NewFOTAIdentity(plan.DeviceID, plan.WorkspaceID), diags)
		}
		keepPrior := func() bool {
			plan.ID, plan.Status, plan.ScheduledAt, plan.Devices = prior.ID, prior.Status, prior.ScheduledAt, prior.Devices
			plan.StatusCounts, plan.DevicesNotDone = prior.StatusCounts, prior.DevicesNotDone
			return plan.Unfinished(ctx, prior.statuses(), diags)
		}
		return scheduling.FleetUpdate{Command: plan.command(*prior), Workspace: plan.WorkspaceID.ValueString(),
			PriorFleets: prior.FleetIDs, PlanFleets: plan.FleetIDs, AllFleets: plan.AllFleets, PriorDevices: prior.Devices, PlanDevices: &plan.Devices,
			Schedule: func(added []string, gate *scheduling.Gate) bool {
				return r.schedule(ctx, plan, prior.ScheduledAt.ValueString(), added, gate, diags)
			},
			PriorScheduledAt: prior.ScheduledAt.ValueString(),
			KeepPrior:        keepPrior, Save: save,
			Wait:     func() bool { return r.wait(ctx, plan, true, diags) },
			MarkWait: func(ok bool) { plan.markWait(ctx, resp.Private, ok, diags) }}
	})
}

func (r *fotaResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state fotaModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.AddWarning(scheduling.ForgetScheduling("firmware update", "firmware "+state.FirmwareID.ValueString()+" "+
		state.FirmwareVersion.ValueString()+" of "+state.target(ctx, &resp.Diagnostics)))
	if u, ok := state.scheduling(ctx); ok {
		scheduling.NoteDelete(ctx, r.data, req.Private, u, state.Unfinished(ctx, state.statuses(), &resp.Diagnostics))
	}
	if u, ok := state.record(ctx); ok && !state.ScheduledAt.IsNull() {
		status := ""
		if state.deviceMode() {
			status = state.Status.ValueString()
		}
		scheduling.RememberSent(r.data, u, status)
	}
}

// ImportState imports the update of one device by its device ID (or the
// identity), or the update of fleets by its id (see fota_id.go).
func (r *fotaResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if parts, err := values.SplitID(req.ID, 3); req.ID != "" && err == nil && r.importFleets(ctx, parts[0], parts[1], parts[2], resp) {
		return
	}
	objects.ImportFOTA(ctx, req, resp)
}

// fotaFlatten copies the answer of the service into the model.
func fotaFlatten(m *fotaModel, f *client.FOTA) {
	m.Status = types.StringValue(f.Status)
	m.ScheduledAt = types.StringValue(f.ScheduledAt)
	if f.Value.FirmwareID != "" {
		m.FirmwareID = types.StringValue(f.Value.FirmwareID)
	}
	if f.Value.FirmwareVersion != "" {
		m.FirmwareVersion = types.StringValue(f.Value.FirmwareVersion)
	}
	m.setID()
	if m.deviceMode() {
		m.Devices = values.StringList([]string{m.DeviceID.ValueString()})
		m.StatusCounts, m.DevicesNotDone = scheduling.FleetProgress([]string{m.DeviceID.ValueString()}, f.Status, nil, nil, m.DoneStatuses())
		return
	}
	m.Devices = values.SortedList(f.Devices)
	m.StatusCounts, m.DevicesNotDone = scheduling.FleetProgress(f.Devices, f.Status, nil, nil, m.DoneStatuses())
}

// readFleetProgress reads the update on each device of a fleet-wide
// scheduling (the fleet-status reader) into status_counts and
// devices_not_done.
func (r *fotaResource) readFleetProgress(ctx context.Context, state *fotaModel, resp *resource.ReadResponse) {
	if state.Devices.IsNull() || state.Devices.IsUnknown() {
		return
	}
	var devices []string
	resp.Diagnostics.Append(state.Devices.ElementsAs(ctx, &devices, false)...)
	res, ok := scheduling.ReadProgress(ctx, r.data, devices, fleetstatus.FOTA, &resp.Diagnostics)
	if !ok {
		return
	}
	fw := &fleetstatus.Firmware{ID: state.FirmwareID.ValueString(), Version: state.FirmwareVersion.ValueString()}
	state.StatusCounts, state.DevicesNotDone = scheduling.FleetProgress(devices, "", res, fw, state.DoneStatuses())
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

// schedule schedules the update of plan and stores the answer in plan.
// prior is the scheduled_at of the state ("" on create). The request is
// finished even when Terraform is interrupted once it is sent; when its
// answer is lost, the devices are read back and the update adopted only
// where it shows this request's scheduling (see schedule.go).
//
// only, when not nil, are the fleets to schedule on instead of the plan's
// (the fleets a change of the targets alone adds). gate, on an update of a
// fleet-wide update, sends only to the devices that lack it
// (scheduling.SendFleetCommand).
func (r *fotaResource) schedule(ctx context.Context, plan *fotaModel, prior string, only []string, gate *scheduling.Gate, diags *diag.Diagnostics) bool {
	fw, ver := plan.FirmwareID.ValueString(), plan.FirmwareVersion.ValueString()
	target := plan.target(ctx, diags)
	if diags.HasError() {
		return false
	}
	summary := "Cannot schedule firmware " + fw + " " + ver + " on " + target
	what := "firmware update " + fw + " " + ver
	if plan.deviceMode() {
		sent := time.Now()
		f, err := r.data.Client.ScheduleFOTA(client.FinishOnceSent(ctx), plan.DeviceID.ValueString(), fw, ver)
		if f = r.answer(ctx, plan, f, err, sent, prior, fleetstatus.Scope{}, summary, what, diags); f == nil {
			return false
		}
		fotaFlatten(plan, f)
		return true
	}
	fleets := values.SetStrings(ctx, plan.FleetIDs, diags)
	if only != nil {
		fleets = only
	}
	scheduling.ValidateFleetTargets(plan.FleetIDs, plan.AllFleets, "the firmware", diags)
	if diags.HasError() {
		return false
	}
	scope := fleetstatus.Scope{WorkspaceID: plan.WorkspaceID.ValueString(), FleetIDs: fleets}
	fleetWide := func() *scheduling.Sent {
		sent := time.Now()
		f, err := r.data.Client.ScheduleFleetFOTA(client.FinishOnceSent(ctx), scope.WorkspaceID, fw, ver, fleets)
		if f = r.answer(ctx, plan, f, err, sent, prior, scope, summary, what, diags); f == nil {
			return nil
		}
		return &scheduling.Sent{Devices: f.Devices, ScheduledAt: f.ScheduledAt, Status: f.Status}
	}
	res := scheduling.SendFleetCommand(ctx, r.data, scheduling.FleetCommand{Scope: scope, Kind: fleetstatus.FOTA,
		Matches: scheduling.FirmwareMatches(fw, ver), What: what, Prior: prior, Fleet: fleetWide,
		Device: func(ctx context.Context, dev string) (string, string, error) {
			f, err := r.data.Client.ScheduleFOTA(ctx, dev, fw, ver)
			if err != nil {
				return "", "", err
			}
			return f.ScheduledAt, f.Status, nil
		}}, gate, diags)
	if res == nil {
		return false
	}
	f := &client.FOTA{ScheduledAt: res.ScheduledAt, Status: res.Status, Devices: res.Devices,
		Value: client.FOTAValue{FirmwareID: fw, FirmwareVersion: ver}}
	tflog.Trace(ctx, "scheduled firmware update", map[string]any{"target": target, "devices": len(f.Devices)})
	fotaFlatten(plan, f)
	return true
}

// adoptHeld reads the device's firmware update right before the create of
// an update on one device sends it (the gate, scheduling.HeldOnDevice):
// when the device already holds this firmware and version, or when
// recorded (the record of the object this one replaces, nil when none) has
// it, it is stored in plan and reported true, and nothing is sent. It reports false when the
// update is to be sent (always for a fleet-wide update, whose gate is in
// schedule), or, with an error in diags, when the read failed.
func (r *fotaResource) adoptHeld(ctx context.Context, plan *fotaModel, recorded *scheduling.Sent, diags *diag.Diagnostics) bool {
	if !plan.deviceMode() {
		return false
	}
	fw, ver := plan.FirmwareID.ValueString(), plan.FirmwareVersion.ValueString()
	got, ok := scheduling.HeldOnDevice(ctx, r.data, plan.DeviceID.ValueString(), fleetstatus.FOTA,
		scheduling.FirmwareMatches(fw, ver), "firmware update "+fw+" "+ver, recorded, diags)
	if !ok {
		return false
	}
	fotaFlatten(plan, &client.FOTA{ScheduledAt: got.ScheduledAt, Status: got.Status,
		Value: client.FOTAValue{FirmwareID: fw, FirmwareVersion: ver}})
	return true
}

// answer checks the answer f, err of a scheduling request sent at sent:
// it returns f, or what the read-back shows after a lost answer, or
// reports the error and returns nil.
func (r *fotaResource) answer(ctx context.Context, plan *fotaModel, f *client.FOTA, err error, sent time.Time, prior string, scope fleetstatus.Scope, summary, what string, diags *diag.Diagnostics) *client.FOTA {
	switch {
	case errors.Is(err, client.ErrNotSent):
		diags.AddError(summary, scheduling.NotSent(what, err))
		return nil
	case errors.Is(err, client.ErrAmbiguous):
		return r.readBack(ctx, plan, scheduling.SentSchedule{Cause: err, Sent: sent, Prior: prior}, scope, summary, what, diags)
	case err != nil:
		diags.AddError(summary, err.Error())
		return nil
	}
	return f
}

// readBack resolves the ambiguous scheduling s of plan: it returns what the
// devices show of this request's scheduling, with a warning, or reports the
// error and returns nil.
func (r *fotaResource) readBack(ctx context.Context, plan *fotaModel, s scheduling.SentSchedule, scope fleetstatus.Scope, summary, what string, diags *diag.Diagnostics) *client.FOTA {
	fw, ver := plan.FirmwareID.ValueString(), plan.FirmwareVersion.ValueString()
	matches := scheduling.FirmwareMatches(fw, ver)
	if plan.deviceMode() {
		dev := plan.DeviceID.ValueString()
		got, ok, seen := scheduling.ReadBackDevice(ctx, r.data, s, dev, fleetstatus.FOTA, matches)
		if !ok {
			diags.AddError(summary, scheduling.DeviceMaySchedule(r.data.Client, s, what, dev, seen,
				fmt.Sprintf(`Read it with data "zdm_fota_status" { device_id = %q }.`, dev)))
			return nil
		}
		diags.AddWarning("Adopted a firmware update after an interrupted request",
			"The answer to the request scheduling the "+what+" on device "+dev+" was lost ("+s.Cause.Error()+"); "+
				"reading it back showed it scheduled at "+got.ScheduledAt+", after the request, so it is taken as "+
				"scheduled (status "+got.Status+"). It was sent once.")
		return &client.FOTA{ScheduledAt: got.ScheduledAt, Status: got.Status,
			Value: client.FOTAValue{FirmwareID: fw, FirmwareVersion: ver}}
	}
	target := objects.DescribeFleets(scope.WorkspaceID, scope.FleetIDs)
	check := scheduling.FleetStatusCheck(scope, "")
	have, lack, at, err := scheduling.ReadBackFleet(ctx, r.data, s, scope, fleetstatus.FOTA, matches)
	switch {
	case err != nil:
		diags.AddError(summary, scheduling.FleetMaySchedule(r.data.Client, s, what, target, "reading the devices back failed: "+
			err.Error(), check))
		return nil
	case len(have) == 0:
		diags.AddError(summary, scheduling.FleetMaySchedule(r.data.Client, s, what, target,
			fmt.Sprintf("none of the %d devices of the fleets shows it scheduled since the request", len(lack)), check))
		return nil
	}
	diags.AddWarning(scheduling.AdoptedFleetWarning(s, what, have, lack))
	return &client.FOTA{ScheduledAt: at, Status: client.JobStatusPending,
		Value: client.FOTAValue{FirmwareID: fw, FirmwareVersion: ver}, Devices: have}
}
