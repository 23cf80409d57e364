package rollouts

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/dynamicplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/kit"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

var (
	_ resource.Resource                   = (*jobRolloutResource)(nil)
	_ resource.ResourceWithConfigure      = (*jobRolloutResource)(nil)
	_ resource.ResourceWithValidateConfig = (*jobRolloutResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*jobRolloutResource)(nil)
	_ resource.ResourceWithImportState    = (*jobRolloutResource)(nil)
)

func NewJobRolloutResource() resource.Resource {
	return &jobRolloutResource{}
}

// jobRolloutResource rolls one job, with its value, out to the devices of
// fleets in waves, each gated on its devices reporting the job done within
// the wave timeout, and resumes where it stopped. The waves run in package
// rollout, as for zdm_fota_rollout.
type jobRolloutResource struct {
	data *connection.ProviderData
}

// jobRolloutModel maps the zdm_job_rollout resource.
type jobRolloutModel struct {
	jobRolloutInputs
	RolloutResults
}

func (r *jobRolloutResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_job_rollout"
}

func (r *jobRolloutResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	notEmpty := []validator.String{stringvalidator.LengthAtLeast(1), kit.NotBlank{}}
	newRollout := " Changing it starts a **new rollout** (the resource is replaced; the jobs already scheduled stay)."
	attrs := RolloutResourceAttributes(RolloutResourceDocs{
		Inputs:  jobRolloutDocs,
		Stays:   "the jobs already scheduled stay",
		Command: "`name`, `value`",
		Thing:   "the job",
		StartedAt: "When the rollout started (RFC 3339, the service's clock). While the rollout is not " +
			"`completed` (`stopped`, or `imported`), devices created in the fleets (or moved into them) after this " +
			"time join its last wave when the next apply resumes it. A `completed` rollout does nothing more: " +
			"devices that join the fleets later do not get the job until another value is rolled out, or a " +
			"`zdm_device_job` or the `zdm_schedule_job` action schedules it on them.",
		DeviceIDs: "Devices of the wave that have the job with this value (scheduled by the rollout, or found " +
			"with it already), sorted. Empty until the wave starts.",
		Counts: "Devices of the wave per job status, read on every refresh: for example " +
			"`{ done = 9, pending = 1 }`. `replaced` counts devices whose job of this name now has another value; " +
			"`not scheduled` those that show no such job.",
	})
	value := scheduling.JobValueAttribute("starts a **new rollout** of the job")
	value.MarkdownDescription += " The resource is replaced; the jobs already scheduled stay."
	value.PlanModifiers = append(value.PlanModifiers, dynamicplanmodifier.RequiresReplaceIf(
		func(ctx context.Context, req planmodifier.DynamicRequest, resp *dynamicplanmodifier.RequiresReplaceIfFuncResponse) {
			resp.RequiresReplace = !ImportedRollout(ctx, req.State)
		}, "Replaces the rollout.", "Replaces the rollout."))
	maps.Copy(attrs, PacingAttributes())
	maps.Copy(attrs, map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "`<workspace_id>/<job_name>`, also the import ID; a `/` inside the job name is " +
				"written `%2F` (and a `%` `%25`).",
			Computed:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"name": schema.StringAttribute{
			MarkdownDescription: jobRolloutDocs["name"] + newRollout,
			Required:            true,
			Validators:          notEmpty,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"value": value,
	})
	resp.Schema = schema.Schema{
		MarkdownDescription: "Rolls one job, with its `value`, out to the devices of fleets in **waves**, with a " +
			"gate between waves: the same waves, stable order, resume and state as `zdm_fota_rollout`. Each wave " +
			"schedules the job on more devices (picked in a stable order, one request per device), then waits " +
			"until they all report it `done`. Jobs report only `pending` and `done`, so `wave_timeout` is the " +
			"gate: when it passes, the devices not `done` count as failed, and more failures than " +
			"`max_failure_ratio` allows stop the rollout; the apply then fails naming the devices and their " +
			"statuses. The state records the waves and the devices scheduled, so applying again **resumes** from " +
			"the first incomplete wave and never sends the job to a device twice. A device that already has a " +
			"job of this name with this value (scheduled by anything, in any status) counts as scheduled and is " +
			"not sent it: to run the job again on every device, roll out another `value`, which starts a new " +
			"rollout. Progress is logged at info level (`TF_LOG=info`). Each refresh reads the job on every " +
			"scheduled device (`parallelism` at a time) and updates the per-wave counts.\n\n" +
			"The API cannot cancel jobs: destroying the resource only removes it from the state. Works with " +
			"every Terraform and OpenTofu version.",
		Attributes: attrs,
		Blocks:     RolloutResourceBlocks(),
	}
}

func (r *jobRolloutResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg jobRolloutModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateJobRolloutInputs(ctx, cfg.jobRolloutInputs, &resp.Diagnostics)
}

func (r *jobRolloutResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = connection.ConfigureData("Resource", req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan plans a resume while the rollout is not complete, keeps the
// results of a complete rollout when only its gate settings change, and
// warns that destroying or replacing leaves the scheduled jobs in place.
func (r *jobRolloutResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !claimPlanned[jobRolloutModel](ctx, r.data, req, &resp.Diagnostics) {
		return
	}
	if req.State.Raw.IsNull() {
		CheckStorage(ctx, r.data, req.Plan, &resp.Diagnostics)
		var plan jobRolloutModel
		resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
		if resp.Diagnostics.HasError() || req.Plan.Raw.IsNull() {
			return
		}
		PlanInheritedRecord(ctx, r.data, plan.identity(),
			fmt.Sprintf("job %s on %s", connection.Quote(plan.Name.ValueString()), plan.WorkspaceID.ValueString()),
			"the job", resp)
		return
	}
	var prior jobRolloutModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	what := "The job " + connection.Quote(prior.Name.ValueString()) + " scheduled by this rollout"
	if WarnRolloutDestroyOrReplace(req, resp, what, "the ZDM API cannot cancel jobs",
		"the job with the new rollout's value") {
		CheckStorage(ctx, r.data, req.Plan, &resp.Diagnostics)
		return
	}
	if prior.Status.ValueString() != rollout.StatusCompleted {
		CheckStorage(ctx, r.data, req.Plan, &resp.Diagnostics)
	}
	PlanRolloutResume(ctx, req, resp, prior.RolloutResults)
}

// run runs the rollout of plan, resuming prior, and stores the record in
// plan. It returns false after adding the error of a rollout that stopped;
// plan then still holds what happened, for the state.
func (r *jobRolloutResource) run(ctx context.Context, plan *jobRolloutModel, prior *rollout.Record, diags *diag.Diagnostics) bool {
	spec := jobRolloutSpec(ctx, plan.jobRolloutInputs, diags)
	CheckStorageAtApply(ctx, r.data, spec, diags)
	if diags.HasError() {
		return false
	}
	plan.ID = types.StringValue(kit.JoinID(spec.WorkspaceID, plan.Name.ValueString()))
	progress := func(msg string) {
		tflog.Info(ctx, msg, map[string]any{"rollout": plan.ID.ValueString()})
	}
	rec, err := rollout.Run(ctx, r.data.Client, spec, prior, progress)
	plan.SetRecord(rec, nil)
	if WarnOutsideWindow(err, DescribeRollout(spec), diags) {
		return true
	}
	if err != nil {
		diags.AddError("Rollout of "+DescribeRollout(spec)+" stopped",
			jobRolloutStoppedDetail(spec, rec, err, "Fix the cause (or raise max_failure_ratio "+
				"or wave_timeout) and apply again: the rollout resumes from the first incomplete wave, and no "+
				"device is sent the job twice. After a stop in the first apply, Terraform marks the resource "+
				"tainted and plans to replace it: the replacement inherits this record (inherited_waves) and "+
				"resumes the same rollout."))
		return false
	}
	return true
}

func (r *jobRolloutResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if r.data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	var plan jobRolloutModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	prior := plan.Inherited(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ok := r.run(ctx, &plan, prior, &resp.Diagnostics)
	if !ok && plan.Status.IsUnknown() {
		return // nothing ran: no state
	}
	// Saved also when the rollout stopped: what was scheduled is recorded.
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Read reads the job on every device the record holds and updates the
// per-wave counts; what was scheduled is kept.
func (r *jobRolloutResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.data == nil {
		return // the provider configuration is not known yet: keep the state
	}
	var state jobRolloutModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rec := state.Record(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || rec == nil || state.valueText().IsNull() {
		return
	}
	ids := rec.Devices()
	if len(ids) == 0 {
		// A replacement planned next inherits the record (rollout_record.go).
		RememberRollout(ctx, r.data, state.identity(), state.RolloutResults)
		return
	}
	cmd := state.command(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	devices, err := fleetstatus.ReadIDs(ctx, r.data.Client, ids, cmd.Kind(), scheduling.StatusParallelism(state.Parallelism))
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the devices of the rollout "+state.ID.ValueString(), err.Error())
		return
	}
	state.WaveResults = WaveResultsList(*rec, rollout.WaveCounts(*rec, cmd, devices))
	RememberRollout(ctx, r.data, state.identity(), state.RolloutResults)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *jobRolloutResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if r.data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	var plan, state jobRolloutModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if state.Status.ValueString() == rollout.StatusCompleted {
		// Only settings changed; a complete rollout has nothing left to do.
		plan.RolloutResults = state.RolloutResults
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	prior := state.Record(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ok := r.run(ctx, &plan, prior, &resp.Diagnostics)
	if !ok && plan.Status.IsUnknown() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete forgets the rollout: jobs cannot be canceled (the plan warned).
// Its record is remembered for a replacement that the apply creates next
// (rollout_record.go).
func (r *jobRolloutResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	tflog.Info(ctx, "forgetting a job rollout: the jobs it scheduled stay")
	var state jobRolloutModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if !resp.Diagnostics.HasError() {
		RememberRollout(ctx, r.data, state.identity(), state.RolloutResults)
	}
}

// ImportState takes `<workspace_id>/<job_name>`: the next apply runs the
// configured rollout, finding the devices that already have the job with
// the configured value (scheduled by an earlier rollout or otherwise) and
// scheduling only the others. The value is not part of the ID: the state
// holds none until that apply.
func (r *jobRolloutResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	parts, err := kit.SplitID(req.ID, 2)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID",
			"The import ID of a zdm_job_rollout is <workspace_id>/<job_name>, as its id attribute shows; "+
				connection.Quote(req.ID)+" "+err.Error()+".")
		return
	}
	for name, v := range map[string]string{"id": req.ID, "workspace_id": parts[0], "name": parts[1], "status": StatusImported} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), v)...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("waves_completed"), int64(0))...)
}
