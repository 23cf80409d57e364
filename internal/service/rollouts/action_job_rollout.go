package rollouts

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/kit"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

var (
	_ action.Action                   = (*jobRolloutAction)(nil)
	_ action.ActionWithConfigure      = (*jobRolloutAction)(nil)
	_ action.ActionWithValidateConfig = (*jobRolloutAction)(nil)
	_ action.ActionWithModifyPlan     = (*jobRolloutAction)(nil)
)

func NewJobRolloutAction() action.Action {
	return &jobRolloutAction{}
}

// jobRolloutAction runs the staged rollout of the zdm_job_rollout resource
// each time it is invoked, without state.
type jobRolloutAction struct {
	data *connection.ProviderData
}

func (a *jobRolloutAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_job_rollout"
}

func (a *jobRolloutAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := RolloutActionAttributes(jobRolloutDocs)
	maps.Copy(attrs, map[string]schema.Attribute{
		"name": schema.StringAttribute{
			MarkdownDescription: jobRolloutDocs["name"],
			Required:            true,
			Validators:          []validator.String{stringvalidator.LengthAtLeast(1), kit.NotBlank{}},
		},
		"value": schema.DynamicAttribute{
			MarkdownDescription: scheduling.JobValueDoc + " Devices that have the job of this name with another " +
				"value get this one; to run the job again on every device, invoke the action with another value.",
			Optional:   true,
			Validators: []validator.Dynamic{kit.JobValueObject{}},
		},
	})
	resp.Schema = schema.Schema{
		MarkdownDescription: "Rolls one job, with its `value`, out to the devices of fleets in **waves**, with a " +
			"gate between waves, each time the action is invoked: the same rollout as the `zdm_job_rollout` " +
			"resource, without state. Each wave schedules the job on more devices (picked in a stable order, one " +
			"request per device), then waits until they all report it `done`. Jobs report only `pending` and " +
			"`done`, so `wave_timeout` is the gate: when it passes, the devices not `done` count as failed, and " +
			"more failures than `max_failure_ratio` allows stop the rollout; the action then fails naming the " +
			"devices and their statuses. Invoking it again with the same job and value resumes: a device that " +
			"already has a job of this name with this value (scheduled by anything, in any status) is not sent " +
			"it again, and waves whose devices are all done pass at once. Progress is reported per wave. Needs " +
			"Terraform 1.14 or later; the `zdm_job_rollout` resource works with every version.",
		Attributes: attrs,
		Blocks:     RolloutActionBlocks(),
	}
}

func (a *jobRolloutAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	validateConfig[jobRolloutInputs](ctx, jobRollout, req.Config, &resp.Diagnostics)
}

func (a *jobRolloutAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = connection.ConfigureData("Action", req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan probes the storage service of health_check at plan time
// (PlanRolloutAction).
func (a *jobRolloutAction) ModifyPlan(ctx context.Context, req action.ModifyPlanRequest, resp *action.ModifyPlanResponse) {
	PlanRolloutAction(ctx, a.data, req, resp)
}

func (a *jobRolloutAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	if a.data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	var cfg jobRolloutInputs
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	spec := commandSpec(ctx, &cfg, &resp.Diagnostics)
	InvokeRollout(ctx, a.data, spec, resp, func(rec rollout.Record, err error) string {
		return jobRollout.actionStoppedDetail(spec, rec, err)
	})
}
