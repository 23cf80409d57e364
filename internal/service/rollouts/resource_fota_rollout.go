package rollouts

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
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
	fotaRolloutInputs
	RolloutResults
}

func (r *fotaRolloutResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_fota_rollout"
}

func (r *fotaRolloutResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	notEmpty := []validator.String{stringvalidator.LengthAtLeast(1), kit.NotBlank{}}
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	doc := func(name, more string) string { return fotaRolloutDocs[name] + more }
	newRollout := " Changing it starts a **new rollout** (the resource is replaced; the updates already scheduled stay)."
	attrs := RolloutResourceAttributes(RolloutResourceDocs{
		Inputs:  fotaRolloutDocs,
		Stays:   "the updates already scheduled stay",
		Command: "`firmware_id`, `firmware_version`",
		Thing:   "the firmware",
		StartedAt: "When the rollout started (RFC 3339, the service's clock). While the rollout is " +
			"not `completed` (`stopped`, or `imported`), devices created in the fleets (or moved into them) after " +
			"this time join its last wave when the next apply resumes it. A `completed` rollout does nothing more: " +
			"devices that join the fleets later keep their firmware until a new version is rolled out, or a " +
			"`zdm_fota` or the `zdm_schedule_fota` action updates them.",
		DeviceIDs: "Devices of the wave that have the firmware (scheduled by the rollout, or " +
			"found with it already), sorted. Empty until the wave starts.",
		Counts: "Devices of the wave per firmware update status, read on every " +
			"refresh: for example `{ done = 9, failed = 1 }`. `replaced` counts devices whose " +
			"update is now another firmware.",
	})
	maps.Copy(attrs, PacingAttributes())
	maps.Copy(attrs, map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "`<workspace_id>/<firmware_id>/<firmware_version>`, also the import ID; a `/` " +
				"inside the firmware ID or version is written `%2F` (and a `%` `%25`).",
			Computed:      true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
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
	})
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
		Attributes: attrs,
		Blocks:     RolloutResourceBlocks(),
	}
}

func (r *fotaRolloutResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg fotaRolloutModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateFOTARolloutInputs(ctx, cfg.fotaRolloutInputs, &resp.Diagnostics)
}

func (r *fotaRolloutResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = connection.ConfigureData("Resource", req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan plans a resume while the rollout is not complete (status and
// the waves become unknown, so that the apply runs), keeps the results of a
// complete rollout when only its gate settings change, and warns that
// destroying or replacing leaves the scheduled updates in place.
func (r *fotaRolloutResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !claimPlanned[fotaRolloutModel](ctx, r.data, req, &resp.Diagnostics) {
		return
	}
	if req.State.Raw.IsNull() {
		CheckStorage(ctx, r.data, req.Plan, &resp.Diagnostics)
		var plan fotaRolloutModel
		resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
		if resp.Diagnostics.HasError() || req.Plan.Raw.IsNull() {
			return
		}
		fw := plan.firmware()
		PlanInheritedRecord(ctx, r.data, plan.identity(),
			fmt.Sprintf("firmware %s %s on %s", fw.ID, fw.Version, plan.WorkspaceID.ValueString()), "the firmware", resp)
		return
	}
	var prior fotaRolloutModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	what := "The firmware " + prior.FirmwareID.ValueString() + " " + prior.FirmwareVersion.ValueString() +
		" scheduled by this rollout"
	if WarnRolloutDestroyOrReplace(req, resp, what, "the ZDM API cannot cancel firmware updates", "its firmware") {
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
func (r *fotaRolloutResource) run(ctx context.Context, plan *fotaRolloutModel, prior *rollout.Record, diags *diag.Diagnostics) bool {
	spec := fotaRolloutSpec(ctx, plan.fotaRolloutInputs, diags)
	CheckStorageAtApply(ctx, r.data, spec, diags)
	if diags.HasError() {
		return false
	}
	plan.ID = types.StringValue(fotaRolloutID(spec.WorkspaceID, plan.firmware()))
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
			fotaRolloutStoppedDetail(spec, rec, err, "Fix the cause (or raise max_failure_ratio or wave_timeout) and "+
				"apply again: the rollout resumes from the first incomplete wave, and no device is scheduled twice. "+
				"After a stop in the first apply, Terraform marks the resource tainted and plans to replace it: the "+
				"replacement inherits this record (inherited_waves) and resumes the same rollout."))
		return false
	}
	return true
}

// fotaRolloutID is the ID of a rollout resource.
func fotaRolloutID(workspaceID string, fw fleetstatus.Firmware) string {
	return kit.JoinID(workspaceID, fw.ID, fw.Version)
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

func (r *fotaRolloutResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.data == nil {
		return // the provider configuration is not known yet: keep the state
	}
	var state fotaRolloutModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rec := state.Record(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || rec == nil {
		return
	}
	ids := rec.Devices()
	if len(ids) == 0 {
		// A replacement planned next inherits the record (rollout_record.go).
		RememberRollout(ctx, r.data, state.identity(), state.RolloutResults)
		return
	}
	devices, err := fleetstatus.ReadIDs(ctx, r.data.Client, ids, fleetstatus.FOTA, scheduling.StatusParallelism(state.Parallelism))
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the devices of the rollout "+state.ID.ValueString(), err.Error())
		return
	}
	state.WaveResults = WaveResultsList(*rec, rollout.WaveCounts(*rec, rollout.FOTA(state.firmware()), devices))
	RememberRollout(ctx, r.data, state.identity(), state.RolloutResults)
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
		plan.NextWindowOpensAt = state.NextWindowOpensAt
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

// Delete forgets the rollout: firmware updates cannot be canceled. Its
// record is remembered for a replacement that the apply creates next
// (rollout_record.go).
func (r *fotaRolloutResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	tflog.Info(ctx, "forgetting a firmware rollout: the updates it scheduled stay")
	var state fotaRolloutModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if !resp.Diagnostics.HasError() {
		RememberRollout(ctx, r.data, state.identity(), state.RolloutResults)
	}
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
	for name, v := range map[string]string{"id": req.ID, "workspace_id": ws, "firmware_id": fw, "firmware_version": ver, "status": StatusImported} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), v)...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("waves_completed"), int64(0))...)
}
