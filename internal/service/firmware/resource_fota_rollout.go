package firmware

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/kit"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

var (
	_ resource.Resource                   = (*fotaRolloutResource)(nil)
	_ resource.ResourceWithConfigure      = (*fotaRolloutResource)(nil)
	_ resource.ResourceWithValidateConfig = (*fotaRolloutResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*fotaRolloutResource)(nil)
	_ resource.ResourceWithImportState    = (*fotaRolloutResource)(nil)
)

func NewFOTARolloutResource() resource.Resource {
	return &fotaRolloutResource{}
}

// fotaRolloutResource rolls one firmware version out to the devices of
// fleets in waves, gated on the devices' health, and resumes where it
// stopped.
type fotaRolloutResource struct {
	data *connection.ProviderData
}

// fotaRolloutModel maps the zdm_fota_rollout resource.
type fotaRolloutModel struct {
	rolloutInputs
	ID             types.String `tfsdk:"id"`
	Status         types.String `tfsdk:"status"`
	StartedAt      types.String `tfsdk:"started_at"`
	WavesCompleted types.Int64  `tfsdk:"waves_completed"`
	WaveResults    types.List   `tfsdk:"wave_results"`
}

// statusImported is the status of a rollout imported and not run yet.
const statusImported = "imported"

func (r *fotaRolloutResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_fota_rollout"
}

func (r *fotaRolloutResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	notEmpty := []validator.String{stringvalidator.LengthAtLeast(1), kit.NotBlank{}}
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	// Targets and salt replace the rollout, except right after an import,
	// whose state holds only the workspace and the firmware.
	doc := func(name, more string) string { return rolloutDocs[name] + more }
	newRollout := " Changing it starts a **new rollout** (the resource is replaced; the updates already scheduled stay)."
	resp.Schema = schema.Schema{
		MarkdownDescription: "Rolls one firmware version out to the devices of fleets in **waves**, with a health " +
			"gate between waves. Each wave schedules the firmware on more devices (picked in a stable order), " +
			"then waits until they all report a success or failure status; when the failure ratio of a wave " +
			"exceeds `max_failure_ratio`, or it is not done within `wave_timeout`, the rollout stops and the apply " +
			"fails with the failing devices and their statuses. The state records the waves and the devices " +
			"scheduled, so applying the same version again **resumes** from the first incomplete wave and never " +
			"schedules a device twice; a new `firmware_version` starts a new rollout. Progress is logged at info " +
			"level (`TF_LOG=info`). Each refresh reads the status of every scheduled device (`parallelism` at a " +
			"time) and updates the per-wave counts.\n\n" +
			"The API cannot cancel firmware updates: destroying the resource only removes it from the state. " +
			"See the guide *Rolling out firmware* for a full example. Works with every Terraform and OpenTofu " +
			"version; with Terraform 1.14 and later the `zdm_fota_rollout` action runs the same rollout without " +
			"state.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "`<workspace_id>/<firmware_id>/<firmware_version>`, also the import ID; a `/` " +
					"inside the firmware ID or version is written `%2F` (and a `%` `%25`).",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"workspace_id": schema.StringAttribute{
				MarkdownDescription: doc("workspace_id", newRollout),
				Required:            true,
				Validators:          notEmpty,
				PlanModifiers:       replace,
			},
			"fleet_ids": schema.SetAttribute{
				MarkdownDescription: doc("fleet_ids", newRollout),
				ElementType:         types.StringType,
				Optional:            true,
				Validators: []validator.Set{
					setvalidator.SizeAtLeast(1),
					setvalidator.ValueStringsAre(notEmpty...),
				},
				PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplaceIf(
					func(ctx context.Context, req planmodifier.SetRequest, resp *setplanmodifier.RequiresReplaceIfFuncResponse) {
						resp.RequiresReplace = !importedState(ctx, req.State)
					}, "Replaces the rollout.", "Replaces the rollout.")},
			},
			"all_fleets": schema.BoolAttribute{
				MarkdownDescription: doc("all_fleets", newRollout),
				Optional:            true,
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplaceIf(
					func(ctx context.Context, req planmodifier.BoolRequest, resp *boolplanmodifier.RequiresReplaceIfFuncResponse) {
						resp.RequiresReplace = !importedState(ctx, req.State)
					}, "Replaces the rollout.", "Replaces the rollout.")},
			},
			"firmware_id": schema.StringAttribute{
				MarkdownDescription: doc("firmware_id", newRollout),
				Required:            true,
				Validators:          notEmpty,
				PlanModifiers:       replace,
			},
			"firmware_version": schema.StringAttribute{
				MarkdownDescription: doc("firmware_version", newRollout),
				Required:            true,
				Validators:          notEmpty,
				PlanModifiers:       replace,
			},
			"salt": schema.StringAttribute{
				MarkdownDescription: doc("salt", newRollout),
				Optional:            true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(
					func(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
						resp.RequiresReplace = !importedState(ctx, req.State)
					}, "Replaces the rollout.", "Replaces the rollout.")},
			},
			"waves": schema.ListAttribute{
				MarkdownDescription: doc("waves", " Changing it in place applies to the waves not complete yet."),
				ElementType:         types.StringType,
				Required:            true,
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.SizeAtMost(rollout.MaxWaves)},
			},
			"success_statuses": schema.SetAttribute{
				MarkdownDescription: doc("success_statuses", ""),
				ElementType:         types.StringType,
				Optional:            true,
				Validators:          []validator.Set{setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(notEmpty...)},
			},
			"failure_statuses": schema.SetAttribute{
				MarkdownDescription: doc("failure_statuses", ""),
				ElementType:         types.StringType,
				Optional:            true,
				Validators:          []validator.Set{setvalidator.ValueStringsAre(notEmpty...)},
			},
			"max_failure_ratio": schema.Float64Attribute{
				MarkdownDescription: doc("max_failure_ratio", ""),
				Optional:            true,
				Validators:          []validator.Float64{float64validator.Between(0, 1)},
			},
			"wave_timeout": schema.StringAttribute{
				MarkdownDescription: doc("wave_timeout", ""),
				Optional:            true,
				Validators:          []validator.String{kit.Duration{}},
			},
			"poll_interval": schema.StringAttribute{
				MarkdownDescription: doc("poll_interval", ""),
				Optional:            true,
				Validators:          []validator.String{kit.Duration{}},
			},
			"pause_between_waves": schema.StringAttribute{
				MarkdownDescription: doc("pause_between_waves", ""),
				Optional:            true,
				Validators:          []validator.String{kit.Duration{}},
			},
			"parallelism": schema.Int64Attribute{
				MarkdownDescription: doc("parallelism", ""),
				Optional:            true,
				Validators:          []validator.Int64{int64validator.Between(1, scheduling.MaxStatusParallelism)},
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "`completed` once every wave passed its gate; `stopped` when a wave stopped the " +
					"rollout (the next apply resumes it); `imported` after an import, until the next apply.",
				Computed: true,
			},
			"started_at": schema.StringAttribute{
				MarkdownDescription: "When the rollout started (RFC 3339, the service's clock). While the rollout is " +
					"not `completed` (`stopped`, or `imported`), devices created in the fleets (or moved into them) after " +
					"this time join its last wave when the next apply resumes it. A `completed` rollout does nothing more: " +
					"devices that join the fleets later keep their firmware until a new version is rolled out, or a " +
					"`zdm_fota` or the `zdm_schedule_fota` action updates them.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"waves_completed": schema.Int64Attribute{
				MarkdownDescription: "Number of waves, from the first, that passed their health gate.",
				Computed:            true,
			},
			"wave_results": schema.ListNestedAttribute{
				MarkdownDescription: "One entry per wave, in order.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{MarkdownDescription: "The wave as written in `waves`.", Computed: true},
					"device_ids": schema.ListAttribute{
						MarkdownDescription: "Devices of the wave that have the firmware (scheduled by the rollout, or " +
							"found with it already), sorted. Empty until the wave starts.",
						ElementType: types.StringType,
						Computed:    true,
					},
					"scheduled": schema.Int64Attribute{
						MarkdownDescription: "How many of them the rollout scheduled itself.",
						Computed:            true,
					},
					"complete": schema.BoolAttribute{
						MarkdownDescription: "Whether the wave passed its health gate.",
						Computed:            true,
					},
					"status_counts": schema.MapAttribute{
						MarkdownDescription: "Devices of the wave per firmware update status, read on every " +
							"refresh: for example `{ done = 9, failed = 1 }`. `replaced` counts devices whose " +
							"update is now another firmware.",
						ElementType: types.Int64Type,
						Computed:    true,
					},
				}},
			},
		},
	}
}

// importedState reports whether a prior state is that of an import not
// applied yet.
func importedState(ctx context.Context, state tfsdk.State) bool {
	if state.Raw.IsNull() {
		return false
	}
	var status types.String
	diags := state.GetAttribute(ctx, path.Root("status"), &status)
	return !diags.HasError() && status.ValueString() == statusImported
}

func (r *fotaRolloutResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg fotaRolloutModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateRolloutInputs(ctx, cfg.rolloutInputs, &resp.Diagnostics)
}

func (r *fotaRolloutResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = connection.ConfigureData("Resource", req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan plans a resume while the rollout is not complete (status and
// the waves become unknown, so that the apply runs), keeps the results of a
// complete rollout when only its gate settings change, and warns that
// destroying or replacing leaves the scheduled updates in place.
func (r *fotaRolloutResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() {
		return
	}
	var prior fotaRolloutModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	what := "The firmware " + prior.FirmwareID.ValueString() + " " + prior.FirmwareVersion.ValueString() +
		" scheduled by this rollout"
	if req.Plan.Raw.IsNull() {
		resp.Diagnostics.AddWarning("Destroying a rollout only removes it from the Terraform state",
			what+" stays scheduled on its devices: the ZDM API cannot cancel firmware updates.")
		return
	}
	if len(resp.RequiresReplace) > 0 {
		resp.Diagnostics.AddWarning("Replacing a rollout starts a new one",
			what+" stays scheduled on its devices: the ZDM API cannot cancel firmware updates. The new rollout "+
				"starts from its first wave; devices that already have its firmware are not scheduled again.")
		return
	}
	computed := []string{"status", "waves_completed", "wave_results"}
	if prior.Status.ValueString() == rollout.StatusCompleted {
		for _, name := range computed {
			var v attr.Value
			resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(name), &v)...)
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), v)...)
		}
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringUnknown())...)
	if prior.StartedAt.IsNull() {
		// A rollout that did not start here (imported): the run records
		// when it starts.
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("started_at"), types.StringUnknown())...)
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("waves_completed"), types.Int64Unknown())...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("wave_results"),
		types.ListUnknown(types.ObjectType{AttrTypes: waveResultAttrTypes}))...)
}

// run runs the rollout of plan, resuming prior, and stores the record in
// plan. It returns false after adding the error of a rollout that stopped;
// plan then still holds what happened, for the state.
func (r *fotaRolloutResource) run(ctx context.Context, plan *fotaRolloutModel, prior *rollout.Record, diags *diag.Diagnostics) bool {
	spec := rolloutSpec(ctx, plan.rolloutInputs, diags)
	if diags.HasError() {
		return false
	}
	plan.ID = types.StringValue(rolloutID(spec.WorkspaceID, plan.firmware()))
	progress := func(msg string) {
		tflog.Info(ctx, msg, map[string]any{"rollout": plan.ID.ValueString()})
	}
	rec, err := rollout.Run(ctx, r.data.Client, spec, prior, progress)
	flattenRollout(plan, rec, nil)
	if err != nil {
		diags.AddError("Rollout of "+describeRollout(spec)+" stopped",
			rolloutStoppedDetail(spec, rec, err, "Fix the cause (or raise max_failure_ratio or wave_timeout) and "+
				"apply again: the rollout resumes from the first incomplete wave, and no device is scheduled twice. "+
				"After a stop in the first apply, Terraform marks the resource tainted and plans to replace it: the "+
				"replacement resumes the same rollout, finding the devices that already have the firmware."))
		return false
	}
	return true
}

// rolloutID is the ID of a rollout resource.
func rolloutID(workspaceID string, fw fleetstatus.Firmware) string {
	return kit.JoinID(workspaceID, fw.ID, fw.Version)
}

// flattenRollout copies a record into the model; counts, when not nil,
// replace the record's per-wave counts.
func flattenRollout(m *fotaRolloutModel, rec rollout.Record, counts []map[string]int) {
	m.Status = types.StringValue(rec.Status)
	m.StartedAt = types.StringNull()
	if !rec.StartedAt.IsZero() {
		m.StartedAt = types.StringValue(rec.StartedAt.UTC().Format(time.RFC3339Nano))
	}
	m.WavesCompleted = types.Int64Value(int64(rec.WavesCompleted()))
	m.WaveResults = waveResultsList(rec, counts)
}

func (r *fotaRolloutResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if r.data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	var plan fotaRolloutModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ok := r.run(ctx, &plan, nil, &resp.Diagnostics)
	if !ok && plan.Status.IsUnknown() {
		return // nothing ran: no state
	}
	// Saved also when the rollout stopped: what was scheduled is recorded.
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *fotaRolloutResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.data == nil {
		return // the provider configuration is not known yet: keep the state
	}
	var state fotaRolloutModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rec := recordFromState(ctx, state.Status, state.StartedAt, state.WaveResults, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || rec == nil {
		return
	}
	ids := rec.Devices()
	if len(ids) == 0 {
		return
	}
	devices, err := fleetstatus.ReadIDs(ctx, r.data.Client, ids, fleetstatus.FOTA, scheduling.StatusParallelism(state.Parallelism))
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the devices of the rollout "+state.ID.ValueString(), err.Error())
		return
	}
	state.WaveResults = waveResultsList(*rec, rollout.WaveCounts(*rec, rollout.FOTA(state.firmware()), devices))
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *fotaRolloutResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if r.data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	var plan, state fotaRolloutModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if state.Status.ValueString() == rollout.StatusCompleted {
		// Only settings changed; a complete rollout has nothing left to do.
		plan.ID, plan.Status, plan.StartedAt = state.ID, state.Status, state.StartedAt
		plan.WavesCompleted, plan.WaveResults = state.WavesCompleted, state.WaveResults
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	prior := recordFromState(ctx, state.Status, state.StartedAt, state.WaveResults, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ok := r.run(ctx, &plan, prior, &resp.Diagnostics)
	if !ok && plan.Status.IsUnknown() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete forgets the rollout: firmware updates cannot be canceled.
func (r *fotaRolloutResource) Delete(ctx context.Context, _ resource.DeleteRequest, _ *resource.DeleteResponse) {
	tflog.Info(ctx, "forgetting a firmware rollout: the updates it scheduled stay")
}

// ImportState takes `<workspace_id>/<firmware_id>/<firmware_version>`: the
// next apply runs the configured rollout, finding the devices that already
// have the firmware (scheduled by an earlier rollout or the action) and
// scheduling only the others.
func (r *fotaRolloutResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	parts, err := kit.SplitID(req.ID, 3)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID",
			"The import ID of a zdm_fota_rollout is <workspace_id>/<firmware_id>/<firmware_version>, as its id attribute "+
				"shows; "+connection.Quote(req.ID)+" "+err.Error()+".")
		return
	}
	ws, fw, ver := parts[0], parts[1], parts[2]
	for name, v := range map[string]string{"id": req.ID, "workspace_id": ws, "firmware_id": fw, "firmware_version": ver, "status": statusImported} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), v)...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("waves_completed"), int64(0))...)
}
