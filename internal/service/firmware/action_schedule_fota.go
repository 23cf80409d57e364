package firmware

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/kit"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

var (
	_ action.Action                     = (*scheduleFOTAAction)(nil)
	_ action.ActionWithConfigure        = (*scheduleFOTAAction)(nil)
	_ action.ActionWithConfigValidators = (*scheduleFOTAAction)(nil)
	_ action.ActionWithValidateConfig   = (*scheduleFOTAAction)(nil)
)

func NewScheduleFOTAAction() action.Action {
	return &scheduleFOTAAction{}
}

// scheduleFOTAAction schedules a firmware update on a device or on the
// devices of fleets, and optionally waits until they report it done.
type scheduleFOTAAction struct {
	data *connection.ProviderData
}

// scheduleFOTAActionModel maps the zdm_schedule_fota action.
type scheduleFOTAActionModel struct {
	FirmwareID      types.String `tfsdk:"firmware_id"`
	FirmwareVersion types.String `tfsdk:"firmware_version"`
	DeviceID        types.String `tfsdk:"device_id"`
	WorkspaceID     types.String `tfsdk:"workspace_id"`
	FleetIDs        types.Set    `tfsdk:"fleet_ids"`
	AllFleets       types.Bool   `tfsdk:"all_fleets"`
	SuccessStatuses types.Set    `tfsdk:"success_statuses"`
	FailureStatuses types.Set    `tfsdk:"failure_statuses"`
	Wait            types.Bool   `tfsdk:"wait"`
	Timeout         types.String `tfsdk:"timeout"`
	PollInterval    types.String `tfsdk:"poll_interval"`
}

func (a *scheduleFOTAAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_schedule_fota"
}

func (a *scheduleFOTAAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	notEmpty := []validator.String{stringvalidator.LengthAtLeast(1), kit.NotBlank{}}
	attrs := scheduling.ActionTargetAttributes("firmware update")
	attrs["firmware_id"] = schema.StringAttribute{
		MarkdownDescription: "ID of the firmware to install.",
		Required:            true,
		Validators:          notEmpty,
	}
	attrs["firmware_version"] = schema.StringAttribute{
		MarkdownDescription: "Version of the firmware to install. It replaces the current update of each device.",
		Required:            true,
		Validators:          notEmpty,
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Schedules a firmware-over-the-air (FOTA) update on a device (`device_id`) or on every " +
			"device of fleets of a workspace (`workspace_id`, with `fleet_ids`, or `all_fleets = true` for every fleet), each time the action " +
			"is invoked: with `terraform apply -invoke=action.zdm_schedule_fota.<name>` or from an `action_trigger` " +
			"of a resource's lifecycle. Nothing is kept in the Terraform state. With `wait`, the action polls the " +
			"update of every device until all report a success status (default `done`); a device that reports one of " +
			"`failure_statuses` ends the wait at once, and the action fails naming every device not done with its " +
			"status, as it does after `timeout`. Progress is reported per device. Needs Terraform 1.14 or later; the `zdm_fota` " +
			"resource schedules updates on any version.",
		Attributes: attrs,
	}
}

func (a *scheduleFOTAAction) ConfigValidators(context.Context) []action.ConfigValidator {
	return scheduling.ActionTargetValidators()
}

func (a *scheduleFOTAAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var cfg scheduleFOTAActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	scheduling.ValidateWaitOptions(cfg.Wait, cfg.Timeout, cfg.PollInterval, &resp.Diagnostics)
	scheduling.ValidateStatusSets(ctx, cfg.SuccessStatuses, cfg.FailureStatuses, &resp.Diagnostics)
	if !cfg.WorkspaceID.IsNull() && cfg.DeviceID.IsNull() {
		scheduling.ValidateFleetTargets(cfg.FleetIDs, cfg.AllFleets, "the firmware", &resp.Diagnostics)
	}
}

func (a *scheduleFOTAAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = connection.ConfigureData("Action", req.ProviderData, &resp.Diagnostics)
}

func (a *scheduleFOTAAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	if a.data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	var cfg scheduleFOTAActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	progress := scheduling.ProgressFunc(resp)
	fw, ver := cfg.FirmwareID.ValueString(), cfg.FirmwareVersion.ValueString()
	what := "firmware update " + fw + " " + ver

	var devices []string
	sent := time.Now()
	wctx := client.FinishOnceSent(ctx)
	matches := scheduling.FirmwareMatches(fw, ver)
	if !cfg.DeviceID.IsNull() {
		dev := cfg.DeviceID.ValueString()
		summary := "Cannot schedule " + what + " on device " + dev
		f, err := a.data.Client.ScheduleFOTA(wctx, dev, fw, ver)
		switch {
		case errors.Is(err, client.ErrNotSent):
			resp.Diagnostics.AddError(summary, scheduling.NotSent(what, err))
			return
		case errors.Is(err, client.ErrAmbiguous):
			s := scheduling.SentSchedule{Cause: err, Sent: sent}
			if devices = scheduling.ResolveActionSchedule(ctx, a.data, s, what, dev, fleetstatus.Scope{}, fleetstatus.FOTA, matches,
				summary, &resp.Diagnostics); devices == nil {
				return
			}
		case err != nil:
			resp.Diagnostics.AddError(summary, err.Error())
			return
		default:
			devices = []string{dev}
			progress(fmt.Sprintf("Scheduled %s on device %s (%s)", what, dev, f.Status))
		}
	} else {
		ws := cfg.WorkspaceID.ValueString()
		fleets := kit.SetStrings(ctx, cfg.FleetIDs, &resp.Diagnostics)
		scheduling.ValidateFleetTargets(cfg.FleetIDs, cfg.AllFleets, "the firmware", &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		summary := "Cannot schedule " + what + " on " + kit.DescribeFleets(ws, fleets)
		f, err := a.data.Client.ScheduleFleetFOTA(wctx, ws, fw, ver, fleets)
		switch {
		case errors.Is(err, client.ErrNotSent):
			resp.Diagnostics.AddError(summary, scheduling.NotSent(what, err))
			return
		case errors.Is(err, client.ErrAmbiguous):
			s := scheduling.SentSchedule{Cause: err, Sent: sent}
			if devices = scheduling.ResolveActionSchedule(ctx, a.data, s, what, "", fleetstatus.Scope{WorkspaceID: ws, FleetIDs: fleets},
				fleetstatus.FOTA, matches, summary, &resp.Diagnostics); devices == nil {
				return
			}
		case err != nil:
			resp.Diagnostics.AddError(summary, err.Error())
			return
		default:
			devices = f.Devices
		}
		if !scheduling.ReportScheduled(what, ws, fleets, devices, progress, &resp.Diagnostics) {
			return
		}
	}

	opts := scheduling.ParseWaitOptions(cfg.Wait, cfg.Timeout, cfg.PollInterval)
	if !opts.Wait {
		return
	}
	w := scheduling.StatusWait{Kind: fleetstatus.FOTA, Firmware: &fleetstatus.Firmware{ID: fw, Version: ver},
		Success: kit.SetStrings(ctx, cfg.SuccessStatuses, &resp.Diagnostics), Failure: kit.SetStrings(ctx, cfg.FailureStatuses, &resp.Diagnostics),
		Timeout: opts.Timeout, Interval: opts.Interval}
	if _, err := scheduling.WaitStatuses(ctx, a.data.Client, devices, w, progress); err != nil {
		resp.Diagnostics.AddError("The "+what+" is not done", err.Error())
	}
}
