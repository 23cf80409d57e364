package jobs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

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
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
	"github.com/zdm/terraform-provider-zdm/internal/service/jobs/jobvalue"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

var (
	_ resource.Resource                   = (*fleetJobResource)(nil)
	_ resource.ResourceWithConfigure      = (*fleetJobResource)(nil)
	_ resource.ResourceWithImportState    = (*fleetJobResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*fleetJobResource)(nil)
	_ resource.ResourceWithUpgradeState   = (*fleetJobResource)(nil)
	_ resource.ResourceWithValidateConfig = (*fleetJobResource)(nil)
)

func NewFleetJobResource() resource.Resource {
	return &fleetJobResource{}
}

// fleetJobResource schedules a named job on every device of fleets of a
// workspace. The service schedules fleet-wide but has no fleet-wide read.
type fleetJobResource struct {
	data *connection.ProviderData
}

// fleetJobModel maps the zdm_fleet_job resource.
type fleetJobModel struct {
	ID          types.String  `tfsdk:"id"`
	WorkspaceID types.String  `tfsdk:"workspace_id"`
	Name        types.String  `tfsdk:"name"`
	Value       types.Dynamic `tfsdk:"value"`
	FleetIDs    types.Set     `tfsdk:"fleet_ids"`
	AllFleets   types.Bool    `tfsdk:"all_fleets"`
	Triggers    types.Map     `tfsdk:"triggers"`
	Devices     types.List    `tfsdk:"devices"`
	ScheduledAt types.String  `tfsdk:"scheduled_at"`
	// Progress, read on refresh.
	StatusCounts   types.Map  `tfsdk:"status_counts"`
	DevicesNotDone types.List `tfsdk:"devices_not_done"`
	scheduling.WaitModel
}

// valueText is the JSON text of the job's value (see jobvalue.Text).
func (m *fleetJobModel) valueText() types.String { return jobvalue.Text(m.Value) }

// scheduling names the job of m for the registry of unfinished waits
// (unfinished.go); ok is false while it is not known.
func (m *fleetJobModel) scheduling(ctx context.Context) (scheduling.UnfinishedScheduling, bool) {
	triggers, ok := scheduling.TriggersJSON(m.Triggers)
	if !ok || !values.Known(m.WorkspaceID) || !values.Known(m.Name) || !values.Known(m.valueText()) || m.FleetIDs.IsUnknown() || m.AllFleets.IsUnknown() {
		return scheduling.UnfinishedScheduling{}, false
	}
	var diags diag.Diagnostics
	key := scheduling.SchedulingKey("zdm_fleet_job", m.WorkspaceID.ValueString(), scheduling.FleetsKey(ctx, m.FleetIDs, m.AllFleets, &diags),
		m.Name.ValueString())
	return scheduling.UnfinishedScheduling{Key: key, Value: m.valueText().ValueString(), Triggers: triggers,
		ScheduledAt: m.ScheduledAt.ValueString(), Devices: scheduling.ListStrings(ctx, m.Devices, &diags)}, !diags.HasError()
}

// record is the record of the job of m that a Delete hands to the Create of
// a replacement (scheduling.RememberSent): the job of the workspace, its
// value and triggers, and the devices it reached, whatever the fleets.
func (m *fleetJobModel) record(ctx context.Context) (scheduling.UnfinishedScheduling, bool) {
	u, ok := m.scheduling(ctx)
	u.Key = scheduling.SchedulingKey("zdm_fleet_job", m.WorkspaceID.ValueString(), m.Name.ValueString())
	return u, ok
}

// what names the job of m in messages.
func (m *fleetJobModel) what(ctx context.Context) string {
	var diags diag.Diagnostics
	return "job " + connection.Quote(m.Name.ValueString()) + " of " +
		objects.DescribeFleets(m.WorkspaceID.ValueString(), values.SetStrings(ctx, m.FleetIDs, &diags))
}

// wait waits, with wait = true, for the job on the devices of plan, and
// stores their progress in plan (update: which timeout bounds it). It
// reports whether every device is done (true without wait).
func (r *fleetJobResource) wait(ctx context.Context, plan *fleetJobModel, update bool, diags *diag.Diagnostics) bool {
	_, ok := scheduling.WaitDevices(ctx, r.data, plan.WaitModel, scheduling.ListStrings(ctx, plan.Devices, diags), fleetstatus.Job(plan.Name.ValueString()),
		nil, update, plan.what(ctx), "job", &plan.StatusCounts, &plan.DevicesNotDone, diags)
	return ok
}

// markWait records in the private state whether the wait of plan succeeded.
func (m *fleetJobModel) markWait(ctx context.Context, private scheduling.PrivateData, ok bool, diags *diag.Diagnostics) {
	if u, known := m.scheduling(ctx); known {
		scheduling.MarkWait(ctx, private, u, ok, diags)
	}
}

func (r *fleetJobResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_fleet_job"
}

func (r *fleetJobResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	notEmpty := validators.NotEmpty()
	resp.Schema = schema.Schema{
		// Version 1: value is dynamic (an object or JSON text); see UpgradeState.
		Version: 1,
		MarkdownDescription: "A named job scheduled on every device of fleets of a workspace (named in `fleet_ids`, " +
			"or every fleet with `all_fleets = true`) with one request. Creating the resource schedules the job, one request to the fleets when no device of them " +
			"already holds the job with this value, otherwise one request to each device that lacks it; changing `value` or `triggers` " +
			"schedules it again, in place, on the devices of the fleets at that time; adding fleets sends it to the " +
			"added fleets only. The service has no " +
			"fleet-wide read of a scheduling: the state keeps what was scheduled (`devices`, `scheduled_at`), and " +
			"each refresh reads the job on every device of `devices` (16 at a time) for the progress " +
			"(`status_counts`, `devices_not_done`). The API cannot cancel jobs: destroying " +
			"only removes the resource from the Terraform state (a warning says so at plan time), and changing " +
			"`workspace_id` or `name` schedules a new job and leaves the old one. With `wait = true`, the apply waits " +
			"until every device of `devices` has run the job (see `wait`). Works with every Terraform and " +
			"OpenTofu version.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "`<workspace_id>/<job_name>`, the import ID.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"workspace_id": schema.StringAttribute{
				MarkdownDescription: "ID of the workspace of the fleets. It must be set explicitly: the provider's " +
					"`workspace_id` is not used, so that a job never reaches devices nobody named. Changing it " +
					"**replaces** the resource: the job is scheduled in the new workspace and stays in the old one.",
				Required:      true,
				Validators:    notEmpty,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Name of the job, one of the jobs the devices' firmware exposes. Changing it " +
					"**replaces** the resource: the new job is scheduled and the old one stays on the devices.",
				Required:      true,
				Validators:    notEmpty,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"value": scheduling.JobValueAttribute("schedules the job again on the devices of the fleets"),
			"fleet_ids": scheduling.FleetIDsAttribute("IDs of the fleets whose devices run the job. Exactly one of `fleet_ids` " +
				"and `all_fleets = true` must be set (an empty set is an error). Changing it alone sends the job only to " +
				"the fleets it adds (the plan warns which): the devices of the fleets already targeted do not run it " +
				"again, and fleets left out keep their job. Before any fleet-wide request of an update, each device of " +
				"the fleets is read: when some already have the job with this value (such as a device moved from a " +
				"targeted fleet), it is sent only to the others, one request each. To send it again to every targeted " +
				"device, change `triggers`."),
			"all_fleets": scheduling.AllFleetsAttribute("the job"),
			"triggers":   scheduling.TriggersAttribute("schedule the job on the devices of the fleets"),
			"devices": schema.ListAttribute{
				MarkdownDescription: "IDs of the devices the job was scheduled on, sorted: those of the fleets when " +
					"it was last scheduled, and those of fleets added or removed since. Devices added to the fleets later do " +
					"not get the job until it is scheduled again. It is the resource's record: the job is never sent again " +
					"to a device listed here (even when the service no longer shows it there, such as after another value " +
					"replaced it) until `value` or `triggers` change.",
				ElementType: types.StringType,
				Computed:    true,
			},
			"scheduled_at": schema.StringAttribute{
				MarkdownDescription: "When the job was last scheduled (RFC 3339).",
				Computed:            true,
			},
		},
	}
	for name, attr := range scheduling.ProgressSchema("job") {
		resp.Schema.Attributes[name] = attr
	}
	scheduling.AddWaitSchema(ctx, &resp.Schema, "job")
}

func (r *fleetJobResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = connection.ConfigureData("Resource", req.ProviderData, &resp.Diagnostics)
}

func (r *fleetJobResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg fleetJobModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	scheduling.ValidateFleetTargets(cfg.FleetIDs, cfg.AllFleets, "the job", &resp.Diagnostics)
	cfg.Validate(ctx, &resp.Diagnostics)
}

func (r *fleetJobResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !req.Plan.Raw.IsNull() {
		var plan fleetJobModel
		resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
		if !resp.Diagnostics.HasError() && values.Known(plan.Name) && values.Known(plan.valueText()) {
			scheduling.ClaimFleets(ctx, r.data, plan.WorkspaceID, plan.FleetIDs, plan.AllFleets, "job "+connection.Quote(plan.Name.ValueString()),
				plan.valueText().ValueString(), "zdm_fleet_job", &resp.Diagnostics)
		}
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if req.State.Raw.IsNull() && !req.Plan.Raw.IsNull() {
		var plan fleetJobModel
		resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
		if u, ok := plan.scheduling(ctx); ok && !resp.Diagnostics.HasError() {
			if u, ok = scheduling.PlanAdoption(ctx, r.data, u, resp.Private, plan.what(ctx), "job", &resp.Diagnostics); ok {
				plan.ID = types.StringValue(objects.DeviceJobID(plan.WorkspaceID.ValueString(), plan.Name.ValueString()))
				plan.ScheduledAt, plan.Devices = types.StringValue(u.ScheduledAt), values.SortedList(u.Devices)
				resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
			}
		}
		return
	}
	planmodifiers.KeepComputedUnlessChanged(ctx, req, resp, []string{"workspace_id", "name", "value", "fleet_ids", "triggers"},
		append([]string{"id", "devices", "scheduled_at"}, scheduling.ProgressAttributes...))
	objects.WarnDestroyOrReplace(ctx, "job", req, resp, path.Root("workspace_id"), path.Root("name"))
	if !req.State.Raw.IsNull() && !req.Plan.Raw.IsNull() && scheduling.FollowsImport(ctx, req.Private) {
		// The first plan after an import is always an update, which reads
		// the configured fleets, records the configuration and clears the
		// mark (Update): a plan with no change would keep the mark for a
		// later change of the command, which must send it.
		var plan fleetJobModel
		resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
		plan.Devices, plan.ScheduledAt = types.ListUnknown(types.StringType), types.StringUnknown()
		plan.StatusCounts, plan.DevicesNotDone = types.MapUnknown(types.Int64Type), types.ListUnknown(types.StringType)
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		resp.Diagnostics.AddWarning("The first apply after the import records the job, and sends it to no device that has it",
			"The import cannot tell which fleets and devices this resource had reached, so the apply reads the job on "+
				"the devices of the configured fleets, keeps those that have it as devices, records value and "+
				"triggers, and sends nothing to them. A later change of value or triggers sends it again.")
		return
	}
	if !req.State.Raw.IsNull() && !req.Plan.Raw.IsNull() {
		var plan, prior fleetJobModel
		resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
		resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
		if !resp.Diagnostics.HasError() && !plan.valueText().IsUnknown() && !plan.Triggers.IsUnknown() &&
			jsonvalue.Equal(prior.valueText().ValueString(), plan.valueText().ValueString()) && prior.Triggers.Equal(plan.Triggers) &&
			prior.WorkspaceID.Equal(plan.WorkspaceID) {
			scheduling.WarnTargetsOnly(ctx, "job", prior.FleetIDs, plan.FleetIDs, plan.AllFleets, &resp.Diagnostics)
			if scheduling.SameTargets(prior.FleetIDs, plan.FleetIDs, plan.AllFleets) &&
				plan.Unfinished(ctx, scheduling.StatusCountKeys(prior.StatusCounts), &resp.Diagnostics) {
				// Not done yet: the update only waits again.
				plan.StatusCounts, plan.DevicesNotDone = types.MapUnknown(types.Int64Type), types.ListUnknown(types.StringType)
				resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
				resp.Diagnostics.AddWarning(scheduling.WaitsAgain(plan.what(ctx), "job", scheduling.DescribeCounts(prior.StatusCounts)))
			}
		}
	}
}

func (r *fleetJobResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := connection.Decode[fleetJobModel](ctx, r.data, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	planned, known := plan.scheduling(ctx)
	if adopted, adopt := scheduling.TakeAdoption(r.data, planned, known); adopt {
		// A replacement of a job whose wait did not succeed: nothing is
		// sent; the job is checked on the devices, then waited for.
		name := plan.Name.ValueString()
		got, ok := scheduling.VerifyAdoption(ctx, r.data, adopted, fleetstatus.Job(name),
			scheduling.JobMatches(values.CompactJSON([]byte(plan.valueText().ValueString()))), plan.what(ctx), &resp.Diagnostics)
		plan.ID = types.StringValue(objects.DeviceJobID(plan.WorkspaceID.ValueString(), name))
		plan.Devices, plan.ScheduledAt = values.SortedList(adopted.Devices), types.StringValue(adopted.ScheduledAt)
		plan.StatusCounts, plan.DevicesNotDone = scheduling.FleetProgress(adopted.Devices, client.JobStatusPending, got, nil, plan.DoneStatuses())
		if !ok {
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
			plan.markWait(ctx, resp.Private, false, &resp.Diagnostics)
			return
		}
	} else {
		// The record of the object this one replaces, if any: the devices
		// it reached with this job and value do not get it again.
		gate, prior := (*scheduling.Gate)(nil), ""
		if u, known := plan.record(ctx); known {
			if rec := scheduling.TakeSent(r.data, u, known); rec != nil {
				gate, prior = &scheduling.Gate{Record: rec.Devices}, rec.ScheduledAt
			}
		}
		if !r.schedule(ctx, &plan, prior, nil, gate, &resp.Diagnostics) {
			return
		}
	}
	ok = r.wait(ctx, &plan, false, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	plan.markWait(ctx, resp.Private, ok, &resp.Diagnostics)
}

// Read reads the job on each device it was scheduled on (the fleet-status
// reader): status_counts and devices_not_done show the progress. What was
// scheduled (devices, value, scheduled_at) is kept: the service has no
// fleet-wide read of a scheduling.
func (r *fleetJobResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.data == nil {
		return
	}
	var state fleetJobModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	scheduling.NoteRead(ctx, r.data, req.Private)
	if resp.Diagnostics.HasError() || state.Devices.IsNull() || state.Devices.IsUnknown() {
		return
	}
	var devices []string
	resp.Diagnostics.Append(state.Devices.ElementsAs(ctx, &devices, false)...)
	res, ok := scheduling.ReadProgress(ctx, r.data, devices, fleetstatus.Job(state.Name.ValueString()), &resp.Diagnostics)
	if !ok {
		return
	}
	state.StatusCounts, state.DevicesNotDone = scheduling.FleetProgress(devices, "", res, nil, state.DoneStatuses())
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *fleetJobResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	imported := scheduling.FollowsImport(ctx, req.Private)
	scheduling.UpdateFleetScheduling(ctx, r.data, req, resp, func(plan, prior *fleetJobModel) scheduling.FleetUpdate {
		diags := &resp.Diagnostics
		if imported {
			// The first apply after an import sends nothing to a device that
			// holds the job (see importedDevices).
			r.importedDevices(ctx, plan, prior, diags)
		}
		return scheduling.FleetUpdate{
			Command: !imported && (!jsonvalue.Equal(prior.valueText().ValueString(), plan.valueText().ValueString()) ||
				!prior.Triggers.Equal(plan.Triggers)),
			Workspace: plan.WorkspaceID.ValueString(), PriorFleets: prior.FleetIDs, PlanFleets: plan.FleetIDs, AllFleets: plan.AllFleets,
			PriorDevices: prior.Devices, PlanDevices: &plan.Devices,
			Schedule: func(added []string, gate *scheduling.Gate) bool {
				return r.schedule(ctx, plan, prior.ScheduledAt.ValueString(), added, gate, diags)
			},
			PriorScheduledAt: prior.ScheduledAt.ValueString(),
			KeepPrior: func() bool {
				plan.Devices, plan.ScheduledAt, plan.ID = prior.Devices, prior.ScheduledAt, prior.ID
				plan.StatusCounts, plan.DevicesNotDone = prior.StatusCounts, prior.DevicesNotDone
				return plan.Unfinished(ctx, scheduling.StatusCountKeys(prior.StatusCounts), diags)
			},
			Wait: func() bool { return r.wait(ctx, plan, true, diags) },
			Save: func() {
				diags.Append(resp.State.Set(ctx, plan)...)
				scheduling.ClearImported(ctx, resp.Private, diags)
			},
			MarkWait: func(ok bool) { plan.markWait(ctx, resp.Private, ok, diags) },
		}
	})
}

// importedDevices, in the first apply after an import, reads the job on the
// devices of the fleets the configuration of plan targets (not the whole
// workspace the import read): prior then holds those of them that have a
// record of the job, and the latest scheduled_at of these. The update sends
// it to none of them, whatever value they hold: the import cannot tell
// which devices this resource had reached. A read that fails is an error
// in diags, and the update keeps the state.
func (r *fleetJobResource) importedDevices(ctx context.Context, plan, prior *fleetJobModel, diags *diag.Diagnostics) {
	scope := fleetstatus.Scope{WorkspaceID: plan.WorkspaceID.ValueString()}
	if !plan.AllFleets.ValueBool() {
		scope.FleetIDs = values.SetStrings(ctx, plan.FleetIDs, diags)
	}
	res, err := scheduling.ReadFleetStatus(ctx, r.data.Client, scope, fleetstatus.Job(plan.Name.ValueString()), 0)
	if err != nil {
		diags.AddError("Cannot read the imported "+plan.what(ctx), "The first apply after an import reads the job on "+
			"every device of the configured fleets, so that none that has it gets it again; that read failed, and "+
			"nothing was sent: "+err.Error()+". Applying again reads them again.")
		return
	}
	reached, got, at := []string{}, []fleetstatus.Device{}, ""
	for _, dev := range res.Devices {
		if dev.Found && (len(scope.FleetIDs) > 0 || dev.FleetID != "") {
			reached, got = append(reached, dev.ID), append(got, dev)
			if at == "" || scheduling.ScheduledLater(dev.ScheduledAt, at) {
				at = dev.ScheduledAt
			}
		}
	}
	prior.Devices = values.SortedList(reached)
	prior.StatusCounts, prior.DevicesNotDone = scheduling.FleetProgress(reached, "", got, nil, plan.DoneStatuses())
	if at != "" {
		prior.ScheduledAt = types.StringValue(at)
	}
	diags.AddWarning(scheduling.ImportRecorded(plan.what(ctx), len(reached), "value or triggers"))
}

func (r *fleetJobResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state fleetJobModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.AddWarning(scheduling.ForgetScheduling("job", objects.ObjectRef("job", state.Name.ValueString(), state.ID.ValueString())))
	if u, ok := state.scheduling(ctx); ok {
		scheduling.NoteDelete(ctx, r.data, req.Private, u, state.Unfinished(ctx, scheduling.StatusCountKeys(state.StatusCounts), &resp.Diagnostics))
	}
	if u, ok := state.record(ctx); ok {
		scheduling.RememberSent(r.data, u, "")
	}
}

// ImportState rebuilds the state of "<workspace_id>/<job_name>" from the
// jobs of the workspace's devices (one request per device): devices are
// those that have the job, scheduled_at the latest. The value is taken only
// when every one of them holds the same: the import cannot tell the fleets
// of the configuration, and the job of another fleet (or a zdm_device_job)
// may hold another value; otherwise it stays null. fleet_ids and triggers
// cannot be known. The first apply after it reads the configured fleets
// only and sends nothing to their devices that hold the job (Update).
func (r *fleetJobResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ws, name, ok := strings.Cut(req.ID, "/")
	if !ok || strings.TrimSpace(ws) == "" || strings.TrimSpace(name) == "" {
		resp.Diagnostics.AddError("Invalid import ID", "The import ID "+connection.Quote(req.ID)+" is not "+
			"\"<workspace_id>/<job_name>\" (the job name is everything after the first \"/\").")
		return
	}
	if r.data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	devices, err := r.data.Client.ListDevices(ctx, ws)
	if err != nil {
		resp.Diagnostics.AddError("Cannot import job "+connection.Quote(name)+" of workspace "+ws, err.Error())
		return
	}
	var latest *client.Job
	reached, held := []string{}, []string{}
	for _, d := range devices {
		job, err := r.data.Client.GetJob(ctx, d.ID, name)
		if client.IsNotFound(err) {
			continue
		}
		if err != nil {
			resp.Diagnostics.AddError("Cannot import job "+connection.Quote(name)+" of workspace "+ws, err.Error())
			return
		}
		reached = append(reached, d.ID)
		if v := values.CompactJSON(job.Value); !slices.ContainsFunc(held, func(h string) bool { return jsonvalue.Equal(h, v) }) {
			held = append(held, v)
		}
		if latest == nil || scheduling.ScheduledLater(job.ScheduledAt, latest.ScheduledAt) {
			latest = job
		}
	}
	if latest == nil {
		resp.Diagnostics.AddError("Cannot import job "+connection.Quote(name)+" of workspace "+ws,
			"No device of workspace "+ws+" has a job named "+connection.Quote(name)+".")
		return
	}
	value := types.DynamicNull()
	if len(held) == 1 {
		value = types.DynamicValue(types.StringValue(held[0]))
	} else {
		resp.Diagnostics.AddWarning("The value of the imported job is not known",
			fmt.Sprintf("The devices of workspace %s hold job %s with %d different values (%s), for example from "+
				"several fleets or a zdm_device_job, so the import takes none of them. The first apply records the "+
				"configured value, reads the configured fleets only, and sends nothing to their devices that hold the "+
				"job.", ws, connection.Quote(name), len(held), connection.Abbreviate(held)))
	}
	state := fleetJobModel{
		ID:          types.StringValue(objects.DeviceJobID(ws, name)),
		WorkspaceID: types.StringValue(ws),
		Name:        types.StringValue(name),
		Value:       value,
		FleetIDs:    types.SetNull(types.StringType),
		AllFleets:   types.BoolValue(true),
		Triggers:    types.MapNull(types.StringType),
		Devices:     values.SortedList(reached),
		ScheduledAt: types.StringValue(latest.ScheduledAt),
		// Read fills the progress.
		StatusCounts:   types.MapNull(types.Int64Type),
		DevicesNotDone: types.ListNull(types.StringType),
		WaitModel:      scheduling.NullWaitModel(),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	scheduling.MarkImported(ctx, resp.Private, &resp.Diagnostics)
}

// schedule schedules the job of plan on its fleets and stores the answer in
// plan.
//
// prior is the scheduled_at of the state ("" on create). The request is
// finished even when Terraform is interrupted once it is sent; when its
// answer is lost, every targeted device is read back and the job adopted
// where it shows this request's scheduling (see schedule.go).
//
// only, when not nil, are the fleets to schedule on instead of the plan's
// (the fleets a change of the targets alone adds). gate, on an update, sends
// only to the devices that lack the job (scheduling.SendFleetCommand).
func (r *fleetJobResource) schedule(ctx context.Context, plan *fleetJobModel, prior string, only []string, gate *scheduling.Gate, diags *diag.Diagnostics) bool {
	ws := plan.WorkspaceID.ValueString()
	fleets := values.SetStrings(ctx, plan.FleetIDs, diags)
	if only != nil {
		fleets = only
	}
	scheduling.ValidateFleetTargets(plan.FleetIDs, plan.AllFleets, "the job", diags)
	if diags.HasError() {
		return false
	}
	name := plan.Name.ValueString()
	value, err := jobvalue.JSON(plan.valueText())
	if err != nil {
		diags.AddError("Invalid value", "The value of value "+err.Error()+".")
		return false
	}
	summary := "Cannot schedule job " + connection.Quote(name) + " on " + objects.DescribeFleets(ws, fleets)
	scope := fleetstatus.Scope{WorkspaceID: ws, FleetIDs: fleets}
	what := "job " + connection.Quote(name)
	matches := scheduling.JobMatches(string(value))
	fleetWide := func() *scheduling.Sent {
		sent := time.Now()
		job, err := r.data.Client.ScheduleFleetJob(client.FinishOnceSent(ctx), ws, name, fleets, value)
		switch {
		case errors.Is(err, client.ErrNotSent):
			diags.AddError(summary, scheduling.NotSent("job", err))
			return nil
		case errors.Is(err, client.ErrAmbiguous):
			s := scheduling.SentSchedule{Cause: err, Sent: sent, Prior: prior}
			check := scheduling.FleetStatusCheck(scope, name)
			have, lack, at, rerr := scheduling.ReadBackFleet(ctx, r.data, s, scope, fleetstatus.Job(name), matches)
			switch {
			case rerr != nil:
				diags.AddError(summary, scheduling.FleetMaySchedule(r.data.Client, s, what, objects.DescribeFleets(ws, fleets),
					"reading the devices back failed: "+rerr.Error(), check))
				return nil
			case len(have) == 0:
				diags.AddError(summary, scheduling.FleetMaySchedule(r.data.Client, s, what, objects.DescribeFleets(ws, fleets),
					fmt.Sprintf("none of the %d devices of the fleets shows it scheduled since the request", len(lack)), check))
				return nil
			}
			diags.AddWarning(scheduling.AdoptedFleetWarning(s, what, have, lack))
			return &scheduling.Sent{Devices: have, ScheduledAt: at, Value: value}
		case err != nil:
			diags.AddError(summary, err.Error())
			return nil
		}
		return &scheduling.Sent{Devices: job.Devices, ScheduledAt: job.ScheduledAt, Status: job.Status, Value: job.Value}
	}
	job := scheduling.SendFleetCommand(ctx, r.data, scheduling.FleetCommand{Scope: scope, Kind: fleetstatus.Job(name),
		Matches: matches, What: what, Prior: prior, Fleet: fleetWide,
		Device: func(ctx context.Context, dev string) (string, string, error) {
			j, err := r.data.Client.ScheduleJob(ctx, dev, name, value)
			if err != nil {
				return "", "", err
			}
			return j.ScheduledAt, j.Status, nil
		}}, gate, diags)
	if job == nil {
		return false
	}
	if job.Value == nil {
		job.Value = value
	}
	tflog.Trace(ctx, "scheduled fleet job", map[string]any{"workspace_id": ws, "name": name, "devices": len(job.Devices)})
	plan.ID = types.StringValue(objects.DeviceJobID(ws, name))
	plan.WorkspaceID = types.StringValue(ws)
	plan.Value = jobvalue.Dynamic(plan.Value, values.RefreshedJSON(plan.valueText(), job.Value))
	plan.Devices = values.SortedList(job.Devices)
	plan.ScheduledAt = types.StringValue(job.ScheduledAt)
	status := job.Status
	if status == "" {
		status = client.JobStatusPending
	}
	plan.StatusCounts, plan.DevicesNotDone = scheduling.FleetProgress(job.Devices, status, nil, nil, plan.DoneStatuses())
	return true
}

// UpgradeState upgrades a state of version 0, whose value was JSON text.
func (r *fleetJobResource) UpgradeState(ctx context.Context) map[int64]resource.StateUpgrader {
	return scheduling.JobValueUpgrade(ctx, r)
}
