package rollouts

import (
	"context"
	"maps"

	actionschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/dynamicplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
	"github.com/zdm/terraform-provider-zdm/internal/service/jobs/jobvalue"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

// This file holds what sets zdm_job_rollout (resource and action) apart
// from the other rollouts: the job and its value next to the inputs of
// every rollout (RolloutInputs), and its rolloutCommand. The resource is
// resource_rollout.go, the action action_rollout.go; the waves run in
// package rollout, with rollout.Job.

// NewJobRolloutResource and NewJobRolloutAction make the resource and the
// action zdm_job_rollout.
var (
	NewJobRolloutResource = newRolloutResource[jobRolloutModel](jobRollout)
	NewJobRolloutAction   = newRolloutAction[jobRolloutInputs](jobRollout)
)

// jobRolloutInputs are the arguments of the rollout resource and action.
type jobRolloutInputs struct {
	RolloutInputs
	Name  types.String  `tfsdk:"name"`
	Value types.Dynamic `tfsdk:"value"`
}

// jobRolloutModel maps the zdm_job_rollout resource.
type jobRolloutModel struct {
	jobRolloutInputs
	RolloutResults
}

// valueText is the JSON text of the job's value (see jobvalue.Text).
func (in jobRolloutInputs) valueText() types.String { return jobvalue.Text(in.Value) }

func (in jobRolloutInputs) command(diags *diag.Diagnostics) rollout.Command {
	value, err := jobvalue.JSON(in.valueText())
	if err != nil {
		diags.AddAttributeError(path.Root("value"), "Invalid value", "The value of value "+err.Error()+".")
	}
	return rollout.Job(in.Name.ValueString(), value)
}

func (in jobRolloutInputs) commandKnown() bool {
	return !in.Name.IsUnknown() && !in.Value.IsUnknown() && !in.Value.IsUnderlyingValueUnknown() &&
		!in.valueText().IsUnknown()
}

func (in jobRolloutInputs) describe() string { return "job " + connection.Quote(in.Name.ValueString()) }

func (in jobRolloutInputs) idValues() []string { return []string{in.Name.ValueString()} }

func (in jobRolloutInputs) claimed() (what, value string, ok bool) {
	v := in.valueText()
	return in.describe(), v.ValueString(), !in.Name.IsUnknown() && !v.IsUnknown() && !v.IsNull()
}

// validate: the job's value is checked by the schema's validators.
func (in jobRolloutInputs) validate(context.Context, *diag.Diagnostics) {}

// statuses: jobs report only pending and done (rollout.Job).
func (in jobRolloutInputs) statuses(context.Context, *diag.Diagnostics) (success, failure []string) {
	return nil, nil
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

// jobRollout is the command of zdm_job_rollout: a job and its value.
var jobRollout = &rolloutCommand{
	name: "job_rollout",
	RolloutResourceDocs: RolloutResourceDocs{
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
	},
	resourceDoc: "Rolls one job, with its `value`, out to the devices of fleets in **waves**, with a " +
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
	actionDoc: "Rolls one job, with its `value`, out to the devices of fleets in **waves**, with a " +
		"gate between waves, each time the action is invoked: the same rollout as the `zdm_job_rollout` " +
		"resource, without state. Each wave schedules the job on more devices (picked in a stable order, one " +
		"request per device), then waits until they all report it `done`. Jobs report only `pending` and " +
		"`done`, so `wave_timeout` is the gate: when it passes, the devices not `done` count as failed, and " +
		"more failures than `max_failure_ratio` allows stop the rollout; the action then fails naming the " +
		"devices and their statuses. Invoking it again with the same job and value resumes: a device that " +
		"already has a job of this name with this value (scheduled by anything, in any status) is not sent " +
		"it again, and waves whose devices are all done pass at once. Progress is reported per wave. Needs " +
		"Terraform 1.14 or later; the `zdm_job_rollout` resource works with every version.",
	resourceAttributes: jobRolloutResourceAttributes,
	actionAttributes:   jobRolloutActionAttributes,
	idFormat:           "<workspace_id>/<job_name>",
	idAttributes:       []string{"name"},
	idEscaped:          "the job name",
	cannot:             "the ZDM API cannot cancel jobs",
	have:               "the job with the new rollout's value",
	neverTwice:         "no device is sent the job twice",
	invokeAgain:        "sending the job only to the devices that do not have it with this value yet",
	restart:            "To roll out a corrected value instead, change value: a new rollout starts from the first wave.",
	forgotten:          "forgetting a job rollout: the jobs it scheduled stay",
}

// jobRolloutResourceAttributes are the resource's name and value: a new
// value replaces the rollout, except right after an import, whose state
// holds none.
func jobRolloutResourceAttributes(newRollout string) map[string]schema.Attribute {
	value := scheduling.JobValueAttribute("starts a **new rollout** of the job")
	value.MarkdownDescription += " The resource is replaced; the jobs already scheduled stay."
	value.PlanModifiers = append(value.PlanModifiers, dynamicplanmodifier.RequiresReplaceIf(
		func(ctx context.Context, req planmodifier.DynamicRequest, resp *dynamicplanmodifier.RequiresReplaceIfFuncResponse) {
			resp.RequiresReplace = !ImportedRollout(ctx, req.State)
		}, rolloutReplacedNote, rolloutReplacedNote))
	return map[string]schema.Attribute{
		"name": schema.StringAttribute{
			MarkdownDescription: jobRolloutDocs["name"] + newRollout,
			Required:            true,
			Validators:          validators.NotEmpty(),
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"value": value,
	}
}

// jobRolloutActionAttributes are the action's name and value.
func jobRolloutActionAttributes() map[string]actionschema.Attribute {
	return map[string]actionschema.Attribute{
		"name": actionschema.StringAttribute{
			MarkdownDescription: jobRolloutDocs["name"],
			Required:            true,
			Validators:          validators.NotEmpty(),
		},
		"value": actionschema.DynamicAttribute{
			MarkdownDescription: scheduling.JobValueDoc + " Devices that have the job of this name with another " +
				"value get this one; to run the job again on every device, invoke the action with another value.",
			Optional:   true,
			Validators: []validator.Dynamic{jobvalue.Object{}},
		},
	}
}
