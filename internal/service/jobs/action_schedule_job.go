package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/kit"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

var (
	_ action.Action                     = (*scheduleJobAction)(nil)
	_ action.ActionWithConfigure        = (*scheduleJobAction)(nil)
	_ action.ActionWithConfigValidators = (*scheduleJobAction)(nil)
	_ action.ActionWithValidateConfig   = (*scheduleJobAction)(nil)
)

func NewScheduleJobAction() action.Action {
	return &scheduleJobAction{}
}

// scheduleJobAction schedules a job on a device or on the devices of fleets,
// and optionally waits until they have run it.
type scheduleJobAction struct {
	data *connection.ProviderData
}

// scheduleJobActionModel maps the zdm_schedule_job action.
type scheduleJobActionModel struct {
	Name            types.String  `tfsdk:"name"`
	Value           types.Dynamic `tfsdk:"value"`
	DeviceID        types.String  `tfsdk:"device_id"`
	WorkspaceID     types.String  `tfsdk:"workspace_id"`
	FleetIDs        types.Set     `tfsdk:"fleet_ids"`
	AllFleets       types.Bool    `tfsdk:"all_fleets"`
	SuccessStatuses types.Set     `tfsdk:"success_statuses"`
	FailureStatuses types.Set     `tfsdk:"failure_statuses"`
	Wait            types.Bool    `tfsdk:"wait"`
	Timeout         types.String  `tfsdk:"timeout"`
	PollInterval    types.String  `tfsdk:"poll_interval"`
}

func (a *scheduleJobAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_schedule_job"
}

func (a *scheduleJobAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := scheduling.ActionTargetAttributes("job")
	attrs["name"] = schema.StringAttribute{
		MarkdownDescription: "Name of the job to schedule, one of the jobs the devices' firmware exposes. A job of " +
			"the same name already on a device is replaced and set back to `pending`.",
		Required:   true,
		Validators: []validator.String{stringvalidator.LengthAtLeast(1), kit.NotBlank{}},
	}
	attrs["value"] = schema.DynamicAttribute{
		MarkdownDescription: scheduling.JobValueDoc,
		Optional:            true,
		Validators:          []validator.Dynamic{kit.JobValueObject{}},
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

func (a *scheduleJobAction) ConfigValidators(context.Context) []action.ConfigValidator {
	return scheduling.ActionTargetValidators()
}

func (a *scheduleJobAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var cfg scheduleJobActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	scheduling.ValidateWaitOptions(cfg.Wait, cfg.Timeout, cfg.PollInterval, &resp.Diagnostics)
	scheduling.ValidateStatusSets(ctx, cfg.SuccessStatuses, cfg.FailureStatuses, &resp.Diagnostics)
	if !cfg.WorkspaceID.IsNull() && cfg.DeviceID.IsNull() {
		scheduling.ValidateFleetTargets(cfg.FleetIDs, cfg.AllFleets, "the job", &resp.Diagnostics)
	}
}

func (a *scheduleJobAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = connection.ConfigureData("Action", req.ProviderData, &resp.Diagnostics)
}

func (a *scheduleJobAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	if a.data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	var cfg scheduleJobActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	progress := scheduling.ProgressFunc(resp)
	name := cfg.Name.ValueString()
	what := "job " + connection.Quote(name)
	value, err := kit.JobValue(kit.JobValueText(cfg.Value))
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("value"), "Invalid JSON in value", "The value of value "+err.Error()+".")
		return
	}

	var devices []string
	sent := time.Now()
	wctx := client.FinishOnceSent(ctx)
	if !cfg.DeviceID.IsNull() {
		dev := cfg.DeviceID.ValueString()
		summary := "Cannot schedule " + what + " on device " + dev
		job, err := a.data.Client.ScheduleJob(wctx, dev, name, value)
		switch {
		case errors.Is(err, client.ErrNotSent):
			resp.Diagnostics.AddError(summary, scheduling.NotSent("job", err))
			return
		case errors.Is(err, client.ErrAmbiguous):
			s := scheduling.SentSchedule{Cause: err, Sent: sent}
			if devices = scheduling.ResolveActionSchedule(ctx, a.data, s, what, dev, fleetstatus.Scope{}, fleetstatus.Job(name),
				scheduling.JobMatches(string(value)), summary, &resp.Diagnostics); devices == nil {
				return
			}
		case err != nil:
			resp.Diagnostics.AddError(summary, err.Error())
			return
		default:
			devices = []string{dev}
			progress(fmt.Sprintf("Scheduled %s on device %s (%s)", what, dev, job.Status))
		}
	} else {
		ws := cfg.WorkspaceID.ValueString()
		fleets := kit.SetStrings(ctx, cfg.FleetIDs, &resp.Diagnostics)
		scheduling.ValidateFleetTargets(cfg.FleetIDs, cfg.AllFleets, "the job", &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		summary := "Cannot schedule " + what + " on " + kit.DescribeFleets(ws, fleets)
		job, err := a.data.Client.ScheduleFleetJob(wctx, ws, name, fleets, value)
		switch {
		case errors.Is(err, client.ErrNotSent):
			resp.Diagnostics.AddError(summary, scheduling.NotSent("job", err))
			return
		case errors.Is(err, client.ErrAmbiguous):
			s := scheduling.SentSchedule{Cause: err, Sent: sent}
			if devices = scheduling.ResolveActionSchedule(ctx, a.data, s, what, "", fleetstatus.Scope{WorkspaceID: ws, FleetIDs: fleets},
				fleetstatus.Job(name), scheduling.JobMatches(string(value)), summary, &resp.Diagnostics); devices == nil {
				return
			}
		case err != nil:
			resp.Diagnostics.AddError(summary, err.Error())
			return
		default:
			devices = job.Devices
		}
		if !scheduling.ReportScheduled(what, ws, fleets, devices, progress, &resp.Diagnostics) {
			return
		}
	}

	opts := scheduling.ParseWaitOptions(cfg.Wait, cfg.Timeout, cfg.PollInterval)
	if !opts.Wait {
		return
	}
	w := scheduling.StatusWait{Kind: fleetstatus.Job(name),
		Success: kit.SetStrings(ctx, cfg.SuccessStatuses, &resp.Diagnostics), Failure: kit.SetStrings(ctx, cfg.FailureStatuses, &resp.Diagnostics),
		Timeout: opts.Timeout, Interval: opts.Interval}
	if _, err := scheduling.WaitStatuses(ctx, a.data.Client, devices, w, progress); err != nil {
		resp.Diagnostics.AddError("The "+what+" is not done", err.Error())
	}
}
