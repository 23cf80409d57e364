package rollouts

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/kit"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

// This file holds what the zdm_job_rollout resource and action share: the
// job and its value next to the inputs of every rollout
// (RolloutInputs), how they are checked, and the rollout spec
// built from them. The rollout itself runs in package rollout; what every
// rollout shares on the Terraform side is in rollout.go.

// jobRolloutInputs are the arguments of the rollout resource and action.
type jobRolloutInputs struct {
	RolloutInputs
	Name  types.String  `tfsdk:"name"`
	Value types.Dynamic `tfsdk:"value"`
}

// valueText is the JSON text of the job's value (see kit.JobValueText).
func (in jobRolloutInputs) valueText() types.String { return kit.JobValueText(in.Value) }

// command is the rollout's command: the job and its value.
func (in jobRolloutInputs) command(diags *diag.Diagnostics) rollout.Command {
	value, err := kit.JobValue(in.valueText())
	if err != nil {
		diags.AddAttributeError(path.Root("value"), "Invalid value", "The value of value "+err.Error()+".")
	}
	return rollout.Job(in.Name.ValueString(), value)
}

// identity is the rollout.Identity of the inputs, "" while a part of it
// is unknown.
func (in jobRolloutInputs) identity() string {
	if in.WorkspaceID.IsUnknown() || in.Name.IsUnknown() || in.Value.IsUnknown() || in.Salt.IsUnknown() ||
		in.Value.IsUnderlyingValueUnknown() || in.valueText().IsUnknown() {
		return ""
	}
	var diags diag.Diagnostics
	cmd := in.command(&diags)
	if diags.HasError() {
		return ""
	}
	return rollout.Identity(in.WorkspaceID.ValueString(), cmd, in.Salt.ValueString())
}

// jobRolloutDocs are the descriptions of the rollout inputs, shared by the
// resource's and the action's schemas.
var jobRolloutDocs = func() map[string]string {
	docs := RolloutDocs(RolloutWords{Thing: "the job", Identity: "the job's name and value"})
	maps.Copy(docs, map[string]string{
		"name": "Name of the job, one of the jobs the devices' firmware exposes.",
		"max_failure_ratio": "Share of a wave's devices that may fail (0 to 1) before the rollout stops. A device " +
			"fails when its job is not `done` once `wave_timeout` has passed, or when its job of this name is " +
			"scheduled again with another value while the wave waits. Defaults to `0`: every device of a wave " +
			"must report the job `done` within `wave_timeout`.",
		"wave_timeout": "How long to wait for the devices of one wave to report the job `done`, such as `\"30m\"`. " +
			"Defaults to 30 minutes. Jobs report only `pending` and `done`, so this is the gate: a wave whose " +
			"devices are all `done` ends at once; otherwise, when the time is up, every device not `done` counts " +
			"as failed, and the wave passes if the failed devices are within `max_failure_ratio` (the rollout " +
			"goes on, and those devices are not sent the job again) and stops the rollout if not.",
	})
	return docs
}()

// validateJobRolloutInputs checks what the schema's validators cannot: the
// targets, the waves and the durations together.
func validateJobRolloutInputs(ctx context.Context, in jobRolloutInputs, diags *diag.Diagnostics) {
	ValidateRolloutInputs(ctx, in.RolloutInputs, "the job", diags)
	ValidateRolloutDurations(in.RolloutInputs, diags)
}

// jobRolloutSpec builds the rollout's spec from validated inputs.
func jobRolloutSpec(ctx context.Context, in jobRolloutInputs, diags *diag.Diagnostics) rollout.Spec {
	return RolloutSpec(ctx, in.RolloutInputs, in.command(diags), diags)
}

// jobRolloutStoppedDetail is the detail of the error of a rollout that
// stopped: what happened and how to go on. resumeNote says how the next run
// resumes.
func jobRolloutStoppedDetail(spec rollout.Spec, rec rollout.Record, err error, resumeNote string) string {
	return RolloutStoppedDetail(spec, rec, err, "the job", resumeNote,
		"To roll out a corrected value instead, change value: a new rollout starts from the first wave.")
}

// claim claims the rollout's job, value and fleets for the plan (see
// scheduling.ClaimCommand).
func (in jobRolloutInputs) claim(ctx context.Context, d *connection.ProviderData, diags *diag.Diagnostics) {
	if in.Name.IsUnknown() || in.Salt.IsUnknown() {
		return
	}
	value := in.valueText()
	if value.IsUnknown() || value.IsNull() {
		return
	}
	scheduling.ClaimFleets(ctx, d, in.WorkspaceID, in.FleetIDs, in.AllFleets, "job "+connection.Quote(in.Name.ValueString()),
		value.ValueString(), "zdm_job_rollout with salt "+connection.Quote(in.Salt.ValueString()), diags)
}
