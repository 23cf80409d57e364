package jobs

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/service/jobs/jobvalue"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

var _ scheduling.Action = (*scheduleJobAction)(nil)

func NewScheduleJobAction() action.Action {
	return &scheduleJobAction{ActionBase: scheduling.ActionBase{TypeSuffix: "_schedule_job"}}
}

// scheduleJobAction schedules a job on a device or on the devices of fleets,
// and optionally waits until they have run it.
type scheduleJobAction struct {
	scheduling.ActionBase
}

// scheduleJobActionModel maps the zdm_schedule_job action.
type scheduleJobActionModel struct {
	Name  types.String  `tfsdk:"name"`
	Value types.Dynamic `tfsdk:"value"`
	scheduling.ActionTargets
}

func (a *scheduleJobAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := scheduling.ActionTargetAttributes("job")
	attrs["name"] = schema.StringAttribute{
		MarkdownDescription: "Name of the job to schedule, one of the jobs the devices' firmware exposes. A job of " +
			"the same name already on a device is replaced and set back to `pending`.",
		Required:   true,
		Validators: validators.NotEmpty(),
	}
	attrs["value"] = schema.DynamicAttribute{
		MarkdownDescription: scheduling.JobValueDoc,
		Optional:            true,
		Validators:          []validator.Dynamic{jobvalue.Object{}},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Schedules a job on a device (`device_id`) or on every device of fleets of a workspace " +
			"(`workspace_id`, with `fleet_ids`, or `all_fleets = true` for every fleet), each time the action is invoked: with `terraform " +
			"apply -invoke=action.zdm_schedule_job.<name>` or from an `action_trigger` of a resource's lifecycle. " +
			"Nothing is kept in the Terraform state. With `wait`, the action polls the job of every device until " +
			"all report a success status (default `done`); a device that reports one of `failure_statuses` ends the " +
			"wait at once, and the action fails naming every device not done with its status, as it does after `timeout`. Progress is reported " +
			"per device. Needs Terraform 1.14 or later; the `zdm_device_job` and `zdm_fleet_job` resources " +
			"schedule jobs on any version.",
		Attributes: attrs,
	}
}

func (a *scheduleJobAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var cfg scheduleJobActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if !resp.Diagnostics.HasError() {
		cfg.ValidateTargets(ctx, "the job", &resp.Diagnostics)
	}
}

func (a *scheduleJobAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	cfg, ok := connection.Decode[scheduleJobActionModel](ctx, a.Data, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	name := cfg.Name.ValueString()
	value, err := jobvalue.JSON(jobvalue.Text(cfg.Value))
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("value"), "Invalid JSON in value", "The value of value "+err.Error()+".")
		return
	}
	scheduling.InvokeAction(ctx, a.Data, cfg.ActionTargets, scheduling.ActionCommand{
		What: "job " + connection.Quote(name), Command: "the job", NotSent: "job",
		Kind: fleetstatus.Job(name), Matches: scheduling.JobMatches(string(value)),
		OnDevice: func(ctx context.Context, dev string) (string, error) {
			job, err := a.Data.Client.ScheduleJob(ctx, dev, name, value)
			if err != nil {
				return "", err
			}
			return job.Status, nil
		},
		OnFleets: func(ctx context.Context, ws string, fleets []string) ([]string, error) {
			job, err := a.Data.Client.ScheduleFleetJob(ctx, ws, name, fleets, value)
			if err != nil {
				return nil, err
			}
			return job.Devices, nil
		},
	}, resp)
}
