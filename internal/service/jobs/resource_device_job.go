package jobs

import (
	"context"
	"errors"
	"fmt"
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
	_ resource.Resource                 = (*deviceJobResource)(nil)
	_ resource.ResourceWithConfigure    = (*deviceJobResource)(nil)
	_ resource.ResourceWithImportState  = (*deviceJobResource)(nil)
	_ resource.ResourceWithIdentity     = (*deviceJobResource)(nil)
	_ resource.ResourceWithModifyPlan   = (*deviceJobResource)(nil)
	_ resource.ResourceWithUpgradeState = (*deviceJobResource)(nil)

	_ resource.ResourceWithValidateConfig = (*deviceJobResource)(nil)
)

func NewDeviceJobResource() resource.Resource {
	return &deviceJobResource{}
}

// deviceJobResource schedules a named job on a device. The API schedules
// (and re-schedules) and reads jobs, but cannot cancel or delete them.
type deviceJobResource struct {
	data *connection.ProviderData
}

// deviceJobModel maps the zdm_device_job resource.
type deviceJobModel struct {
	ID          types.String  `tfsdk:"id"`
	DeviceID    types.String  `tfsdk:"device_id"`
	Name        types.String  `tfsdk:"name"`
	Value       types.Dynamic `tfsdk:"value"`
	Triggers    types.Map     `tfsdk:"triggers"`
	Status      types.String  `tfsdk:"status"`
	ScheduledAt types.String  `tfsdk:"scheduled_at"`
	scheduling.WaitModel
}

// valueText is the JSON text of the job's value (see jobvalue.Text).
func (m *deviceJobModel) valueText() types.String { return jobvalue.Text(m.Value) }

// scheduling names the job of m for the registry of unfinished waits
// (unfinished.go); ok is false while it is not known.
func (m *deviceJobModel) scheduling() (scheduling.UnfinishedScheduling, bool) {
	triggers, ok := scheduling.TriggersJSON(m.Triggers)
	if !ok || !values.Known(m.DeviceID) || !values.Known(m.Name) || !values.Known(m.valueText()) {
		return scheduling.UnfinishedScheduling{}, false
	}
	return scheduling.UnfinishedScheduling{Key: scheduling.SchedulingKey("zdm_device_job", m.DeviceID.ValueString(), m.Name.ValueString()),
		Value: m.valueText().ValueString(), Triggers: triggers, ScheduledAt: m.ScheduledAt.ValueString(),
		Devices: []string{m.DeviceID.ValueString()}}, true
}

// what names the job of m in messages.
func (m *deviceJobModel) what() string {
	return "job " + connection.Quote(m.Name.ValueString()) + " of device " + m.DeviceID.ValueString()
}

func (r *deviceJobResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_device_job"
}

func (r *deviceJobResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	notEmpty := validators.NotEmpty()
	resp.Schema = schema.Schema{
		// Version 1: value is dynamic (an object or JSON text); see UpgradeState.
		Version: 1,
		MarkdownDescription: "A named job scheduled on a device, with its arguments. Creating the resource schedules " +
			"the job, unless the device already holds a job of this name with the same value: then that job is " +
			"adopted into the state without sending it (a warning gives when it was scheduled), so `terraform " +
			"taint`, `-replace` or a resource removed and added back never run it twice; changing `value` or `triggers` schedules it again in place (the service replaces the job of " +
			"that name and sets it back to `pending`). `status` is read back on every refresh, so it moves from " +
			"`pending` to `done` once the device has run the job. When the device holds the job with another value " +
			"since (another resource's, such as a `zdm_fleet_job` of its fleet, or one scheduled outside Terraform), " +
			"the refresh keeps this resource's value, status and `scheduled_at` and warns with what the device " +
			"holds: nothing is sent again until `value` or `triggers` change. A job record the service no longer returns while " +
			"the device exists keeps its last-read status (a warning says so) and is not scheduled again; the job " +
			"leaves the state only when its device is gone. With `wait = true`, the apply waits until the device has " +
			"run the job (see `wait`). A job imported from a service that does not return job " +
			"values is not scheduled again by the first apply: the configured `value` is recorded without sending it " +
			"(a warning says so); change `triggers` to send it. The API cannot cancel jobs: destroying only " +
			"removes the job from the Terraform state (a warning says so at plan time), and changing `device_id` " +
			"or `name` schedules a new job and leaves the old one. Works with every Terraform and OpenTofu " +
			"version; with Terraform 1.14 and later, the `zdm_schedule_job` action schedules jobs without keeping them in state.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "`<device_id>/<job_name>`, the import ID.",
				Computed:            true,
				PlanModifiers:       keep,
			},
			"device_id": schema.StringAttribute{
				MarkdownDescription: "ID of the device that runs the job. Changing it **replaces** the resource: the " +
					"job is scheduled on the new device and stays on the old one.",
				Required:      true,
				Validators:    notEmpty,
				PlanModifiers: replace,
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Name of the job, one of the jobs the device's firmware exposes. Changing it " +
					"**replaces** the resource: the new job is scheduled and the old one stays on the device.",
				Required:      true,
				Validators:    notEmpty,
				PlanModifiers: replace,
			},
			"value":    scheduling.JobValueAttribute("schedules the job again"),
			"triggers": scheduling.TriggersAttribute("schedule the job"),
			"status": schema.StringAttribute{
				MarkdownDescription: "Status of the job, read on every refresh: `pending` until the device has run " +
					"it, then `done`. Scheduling again sets it back to `pending`.",
				Computed: true,
			},
			"scheduled_at": schema.StringAttribute{
				MarkdownDescription: "When the job was last scheduled (RFC 3339).",
				Computed:            true,
			},
		},
	}
	scheduling.AddWaitSchema(ctx, &resp.Schema, "job")
}

func (r *deviceJobResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg deviceJobModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if !resp.Diagnostics.HasError() {
		cfg.Validate(ctx, &resp.Diagnostics)
	}
}

func (r *deviceJobResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = objects.DeviceJobIdentitySchema()
}

func (r *deviceJobResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = connection.ConfigureData("Resource", req.ProviderData, &resp.Diagnostics)
}

func (r *deviceJobResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !req.Plan.Raw.IsNull() {
		// One value of a command per device: against the fleet-wide claims
		// of the device's fleet (scheduling.ClaimCommand).
		var plan deviceJobModel
		resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
		if !resp.Diagnostics.HasError() && values.Known(plan.Name) && values.Known(plan.valueText()) {
			scheduling.ClaimDevice(ctx, r.data, plan.DeviceID, "job "+connection.Quote(plan.Name.ValueString()),
				plan.valueText().ValueString(), "zdm_device_job of device "+plan.DeviceID.ValueString(), &resp.Diagnostics)
		}
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if req.State.Raw.IsNull() && !req.Plan.Raw.IsNull() {
		var plan deviceJobModel
		resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
		if u, ok := plan.scheduling(); ok && !resp.Diagnostics.HasError() {
			if u, ok = scheduling.PlanAdoption(ctx, r.data, u, resp.Private, plan.what(), "job", &resp.Diagnostics); ok {
				plan.ID = types.StringValue(objects.DeviceJobID(plan.DeviceID.ValueString(), plan.Name.ValueString()))
				plan.ScheduledAt = types.StringValue(u.ScheduledAt)
				resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
			}
		}
		return
	}
	if !req.State.Raw.IsNull() && !req.Plan.Raw.IsNull() {
		var plan, prior deviceJobModel
		resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
		resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
		if resp.Diagnostics.HasError() {
			return
		}
		if recordOnly(plan, prior) {
			// Nothing is sent: the computed attributes keep the state's.
			plan.ID, plan.Status, plan.ScheduledAt = prior.ID, prior.Status, prior.ScheduledAt
			resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
			resp.Diagnostics.AddWarning(scheduling.ValueRecordedOnly(prior.Name.ValueString(), prior.DeviceID.ValueString()))
			return
		}
	}
	planmodifiers.KeepComputedUnlessChanged(ctx, req, resp, []string{"device_id", "name", "value", "triggers"},
		[]string{"id", "status", "scheduled_at"})
	objects.WarnDestroyOrReplace(ctx, "job", req, resp, path.Root("device_id"), path.Root("name"))
	if !req.State.Raw.IsNull() && !req.Plan.Raw.IsNull() {
		var plan, prior deviceJobModel
		resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
		resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
		if resp.Diagnostics.HasError() || plan.valueText().IsUnknown() || plan.Triggers.IsUnknown() || jobCommand(plan, prior) ||
			!plan.Unfinished(ctx, []string{prior.Status.ValueString()}, &resp.Diagnostics) {
			return
		}
		// Not done yet: the update only waits again.
		plan.Status = types.StringUnknown()
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		resp.Diagnostics.AddWarning(scheduling.WaitsAgain(plan.what(), "job", prior.Status.ValueString()))
	}
}

// jobCommand tells whether a change from prior to plan sends the job again:
// a change of its value or triggers.
func jobCommand(plan, prior deviceJobModel) bool {
	return !jsonvalue.Equal(prior.valueText().ValueString(), plan.valueText().ValueString()) || !prior.Triggers.Equal(plan.Triggers)
}

func (r *deviceJobResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := connection.Decode[deviceJobModel](ctx, r.data, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	planned, known := plan.scheduling()
	adopted, adopt := scheduling.TakeAdoption(r.data, planned, known)
	if adopt {
		// A replacement of a job whose wait did not succeed: nothing is
		// sent; the job is checked on the device, then waited for.
		got, ok := scheduling.VerifyAdoption(ctx, r.data, adopted, fleetstatus.Job(plan.Name.ValueString()),
			scheduling.JobMatches(values.CompactJSON([]byte(plan.valueText().ValueString()))), plan.what(), &resp.Diagnostics)
		plan.ID = types.StringValue(objects.DeviceJobID(plan.DeviceID.ValueString(), plan.Name.ValueString()))
		plan.ScheduledAt, plan.Status = types.StringValue(adopted.ScheduledAt), types.StringValue(scheduling.NoRecord)
		if len(got) == 1 && got[0].Found {
			plan.Status = types.StringValue(got[0].Status)
		}
		if !ok {
			r.saveUnfinished(ctx, &plan, adopted, resp)
			return
		}
	} else if !r.adoptHeld(ctx, &plan, scheduling.TakeSent(r.data, planned, known), &resp.Diagnostics) {
		if resp.Diagnostics.HasError() || !r.schedule(ctx, &plan, "schedule", "", &resp.Diagnostics) {
			return
		}
	}
	ok = r.wait(ctx, &plan, false, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	objects.SetIdentity(ctx, resp.Identity, objects.DeviceJobIdentityModel{DeviceID: plan.DeviceID, Name: plan.Name}, &resp.Diagnostics)
	if u, known := plan.scheduling(); known {
		scheduling.MarkWait(ctx, resp.Private, u, ok, &resp.Diagnostics)
	}
}

// adoptHeld reads the device's job right before a create sends it (the
// gate, scheduling.HeldOnDevice): when the device already holds this job
// name with the same value, or when recorded (the record of the object this
// one replaces, nil when none) has it, it is stored in plan and reported
// true, and nothing is sent. It reports false when the job is to be sent,
// or, with an error in diags, when the read failed.
func (r *deviceJobResource) adoptHeld(ctx context.Context, plan *deviceJobModel, recorded *scheduling.Sent, diags *diag.Diagnostics) bool {
	dev, name := plan.DeviceID.ValueString(), plan.Name.ValueString()
	value, err := jobvalue.JSON(plan.valueText())
	if err != nil {
		return false // schedule reports it
	}
	got, ok := scheduling.HeldOnDevice(ctx, r.data, dev, fleetstatus.Job(name), scheduling.JobMatches(string(value)),
		"job "+connection.Quote(name), recorded, diags)
	if !ok {
		return false
	}
	// The value held is the configured one (or the service does not echo
	// it): the configured text is kept.
	flattenDeviceJob(plan, dev, name, &client.Job{Name: name, Status: got.Status, ScheduledAt: got.ScheduledAt, Value: value})
	return true
}

// saveUnfinished saves the state of a create that failed after the job was
// scheduled (the error is in resp), marked unfinished.
func (r *deviceJobResource) saveUnfinished(ctx context.Context, plan *deviceJobModel, u scheduling.UnfinishedScheduling, resp *resource.CreateResponse) {
	resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
	objects.SetIdentity(ctx, resp.Identity, objects.DeviceJobIdentityModel{DeviceID: plan.DeviceID, Name: plan.Name}, &resp.Diagnostics)
	scheduling.MarkWait(ctx, resp.Private, u, false, &resp.Diagnostics)
}

// wait waits, with wait = true, until the device reports the job of plan
// in a success status, and stores its last status in plan. update tells
// which timeout bounds it. It reports whether the job is done (true
// without wait).
func (r *deviceJobResource) wait(ctx context.Context, plan *deviceJobModel, update bool, diags *diag.Diagnostics) bool {
	if !plan.Enabled() {
		return true
	}
	w := plan.WaitOptions(ctx, fleetstatus.Job(plan.Name.ValueString()), nil, update, diags)
	if diags.HasError() {
		return false
	}
	res, ok := scheduling.WaitResource(ctx, r.data, []string{plan.DeviceID.ValueString()}, w, plan.what(), "job", diags)
	for _, d := range res.Devices {
		if d.Found {
			plan.Status = types.StringValue(d.Status)
		}
	}
	return ok
}

func (r *deviceJobResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	objects.IdentityFromState(ctx, req.State, resp.Identity, &resp.Diagnostics)
	if r.data == nil {
		// The provider configuration is not known yet: keep the state.
		return
	}
	var state deviceJobModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	scheduling.NoteRead(ctx, r.data, req.Private)
	dev, name := state.DeviceID.ValueString(), state.Name.ValueString()
	job, err := r.data.Client.GetJob(ctx, dev, name)
	if client.IsNotFound(err) || client.IsNeverScheduled(err) {
		r.missing(ctx, state, err, resp)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read job "+connection.Quote(name)+" of device "+dev, err.Error())
		return
	}
	if v := state.valueText(); !state.Status.IsNull() && values.Known(v) && !scheduling.ValueNotEchoed(v) &&
		!scheduling.JobMatches(v.ValueString())(fleetstatus.Device{Value: job.Value}) {
		// The device holds the job with another value now (another
		// resource's, such as a fleet job's, or one scheduled outside
		// Terraform): the state keeps this resource's value, status and
		// scheduled_at, so the plan sends nothing.
		resp.Diagnostics.AddWarning(scheduling.HeldElsewhere("job "+connection.Quote(name)+" with value "+
			values.CompactJSON([]byte(v.ValueString())), dev, "job "+connection.Quote(name)+" with value "+values.CompactJSON(job.Value), job.ScheduledAt,
			job.Status, "value or triggers"))
		return
	}
	flattenDeviceJob(&state, dev, name, job)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	objects.SetIdentity(ctx, resp.Identity, objects.DeviceJobIdentityModel{DeviceID: state.DeviceID, Name: state.Name}, &resp.Diagnostics)
}

// missing handles a read that found no job (err): the job leaves the state
// only when its device is proven gone; a record the service no longer
// returns while the device exists keeps the state, with a warning, so that
// nothing is scheduled again without a change of the configuration. After
// an import (no status read yet) it is an error.
func (r *deviceJobResource) missing(ctx context.Context, state deviceJobModel, err error, resp *resource.ReadResponse) {
	dev, name := state.DeviceID.ValueString(), state.Name.ValueString()
	gone := false
	if client.IsNotFound(err) {
		var perr error
		gone, perr = scheduling.DeviceGone(ctx, r.data, dev, err)
		if perr != nil {
			resp.Diagnostics.AddError("Cannot read job "+connection.Quote(name)+" of device "+dev, perr.Error())
			return
		}
	}
	switch {
	case gone:
		tflog.Warn(ctx, "device not found; removing its job from the state", map[string]any{"device_id": dev, "name": name})
		resp.State.RemoveResource(ctx)
	case state.Status.IsNull():
		resp.Diagnostics.AddError("Cannot import job "+connection.Quote(name)+" of device "+dev,
			"Device "+dev+" has no job named "+connection.Quote(name)+". The zdm_device_jobs data source lists its jobs.")
	default:
		resp.Diagnostics.AddWarning(scheduling.RecordMissing("job "+connection.Quote(name), dev, "value or triggers"))
	}
}

func (r *deviceJobResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan, prior, ok := connection.DecodeUpdate[deviceJobModel](ctx, r.data, req.Plan, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	if recordOnly(plan, prior) {
		plan.ID, plan.Status, plan.ScheduledAt = prior.ID, prior.Status, prior.ScheduledAt
		resp.Diagnostics.AddWarning(scheduling.ValueRecordedOnly(plan.Name.ValueString(), plan.DeviceID.ValueString()))
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		objects.SetIdentity(ctx, resp.Identity, objects.DeviceJobIdentityModel{DeviceID: plan.DeviceID, Name: plan.Name}, &resp.Diagnostics)
		return
	}
	switch {
	case jobCommand(plan, prior):
		if !r.schedule(ctx, &plan, "schedule again", prior.ScheduledAt.ValueString(), &resp.Diagnostics) {
			// Nothing shown scheduled: the state keeps the prior scheduling.
			resp.State.Raw = req.State.Raw.Copy()
			return
		}
	default:
		// Only the wait attributes changed, or the job is not done yet:
		// nothing is sent; with wait, the update waits again.
		plan.ID, plan.Status, plan.ScheduledAt = prior.ID, prior.Status, prior.ScheduledAt
		if !plan.Unfinished(ctx, []string{prior.Status.ValueString()}, &resp.Diagnostics) {
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
			objects.SetIdentity(ctx, resp.Identity, objects.DeviceJobIdentityModel{DeviceID: plan.DeviceID, Name: plan.Name}, &resp.Diagnostics)
			return
		}
	}
	ok = r.wait(ctx, &plan, true, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	objects.SetIdentity(ctx, resp.Identity, objects.DeviceJobIdentityModel{DeviceID: plan.DeviceID, Name: plan.Name}, &resp.Diagnostics)
	if u, known := plan.scheduling(); known {
		scheduling.MarkWait(ctx, resp.Private, u, ok, &resp.Diagnostics)
	}
}

func (r *deviceJobResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state deviceJobModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.AddWarning(scheduling.ForgetScheduling("job", objects.ObjectRef("job", state.Name.ValueString(), state.ID.ValueString())))
	if u, ok := state.scheduling(); ok {
		scheduling.NoteDelete(ctx, r.data, req.Private, u, state.Unfinished(ctx, []string{state.Status.ValueString()}, &resp.Diagnostics))
		if !state.Status.IsNull() {
			scheduling.RememberSent(r.data, u, state.Status.ValueString())
		}
	}
}

func (r *deviceJobResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	objects.ImportDeviceJob(ctx, req, resp)
}

// flattenDeviceJob copies an API job into the model, keeping the text of
// value (from the plan or the prior state) while it holds the same JSON.
func flattenDeviceJob(m *deviceJobModel, deviceID, name string, j *client.Job) {
	m.ID = types.StringValue(objects.DeviceJobID(deviceID, name))
	m.DeviceID = types.StringValue(deviceID)
	m.Name = types.StringValue(name)
	m.Value = jobvalue.Dynamic(m.Value, scheduling.EchoedJobValue(m.valueText(), j.Value))
	m.Status = types.StringValue(j.Status)
	m.ScheduledAt = types.StringValue(j.ScheduledAt)
}

// recordOnly tells whether a change from prior to plan only records the
// configured value of a job whose value the service did not return: the
// job, its device and its triggers stay the same (see schedule.go).
func recordOnly(plan, prior deviceJobModel) bool {
	return scheduling.ValueNotEchoed(prior.valueText()) && !prior.Status.IsNull() && plan.DeviceID.Equal(prior.DeviceID) &&
		plan.Name.Equal(prior.Name) && plan.Triggers.Equal(prior.Triggers)
}

// schedule schedules the job of plan and stores the answer in plan; it
// reports errors to diags under the operation op ("schedule", "schedule
// again"). prior is the scheduled_at of the state ("" on create). The
// request is finished even when Terraform is interrupted once it is sent;
// when its answer is lost, the job is read back and adopted only when it
// shows this request's scheduling (see schedule.go).
func (r *deviceJobResource) schedule(ctx context.Context, plan *deviceJobModel, op, prior string, diags *diag.Diagnostics) bool {
	dev, name := plan.DeviceID.ValueString(), plan.Name.ValueString()
	value, err := jobvalue.JSON(plan.valueText())
	if err != nil {
		diags.AddError("Invalid value", "The value of value "+err.Error()+".")
		return false
	}
	summary := "Cannot " + op + " job " + connection.Quote(name) + " on device " + dev
	sent := time.Now()
	job, err := r.data.Client.ScheduleJob(client.FinishOnceSent(ctx), dev, name, value)
	switch {
	case errors.Is(err, client.ErrNotSent):
		diags.AddError(summary, scheduling.NotSent("job", err))
		return false
	case errors.Is(err, client.ErrAmbiguous):
		s := scheduling.SentSchedule{Cause: err, Sent: sent, Prior: prior}
		got, ok, seen := scheduling.ReadBackDevice(ctx, r.data, s, dev, fleetstatus.Job(name), scheduling.JobMatches(string(value)))
		if !ok {
			diags.AddError(summary, scheduling.DeviceMaySchedule(r.data.Client, s, "job "+connection.Quote(name), dev, seen,
				fmt.Sprintf(`Read it with data "zdm_device_job" { device_id = %q name = %q }.`, dev, name)))
			return false
		}
		diags.AddWarning("Adopted a job after an interrupted request",
			"The answer to the request scheduling job "+connection.Quote(name)+" on device "+dev+" was lost ("+err.Error()+"); "+
				"reading it back showed it scheduled with this value at "+got.ScheduledAt+", after the request, so it "+
				"is taken as scheduled (status "+got.Status+"). It was sent once.")
		job = &client.Job{Name: name, Status: got.Status, ScheduledAt: got.ScheduledAt, Value: got.Value}
	case err != nil:
		diags.AddError(summary, err.Error())
		return false
	}
	tflog.Trace(ctx, "scheduled job", map[string]any{"device_id": dev, "name": name})
	flattenDeviceJob(plan, dev, name, job)
	return true
}

// UpgradeState upgrades a state of version 0, whose value was JSON text.
func (r *deviceJobResource) UpgradeState(ctx context.Context) map[int64]resource.StateUpgrader {
	return scheduling.JobValueUpgrade(ctx, r)
}
