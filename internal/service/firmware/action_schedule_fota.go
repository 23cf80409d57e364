package firmware

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

var _ scheduling.Action = (*scheduleFOTAAction)(nil)

func NewScheduleFOTAAction() action.Action {
	return &scheduleFOTAAction{ActionBase: scheduling.ActionBase{TypeSuffix: "_schedule_fota"}}
}

// scheduleFOTAAction schedules a firmware update on a device or on the
// devices of fleets, and optionally waits until they report it done.
type scheduleFOTAAction struct {
	scheduling.ActionBase
}

// scheduleFOTAActionModel maps the zdm_schedule_fota action.
type scheduleFOTAActionModel struct {
	FirmwareID      types.String `tfsdk:"firmware_id"`
	FirmwareVersion types.String `tfsdk:"firmware_version"`
	scheduling.ActionTargets
}

func (a *scheduleFOTAAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	notEmpty := validators.NotEmpty()
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

func (a *scheduleFOTAAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var cfg scheduleFOTAActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if !resp.Diagnostics.HasError() {
		cfg.ValidateTargets(ctx, "the firmware", &resp.Diagnostics)
	}
}

func (a *scheduleFOTAAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	cfg, ok := connection.Decode[scheduleFOTAActionModel](ctx, a.Data, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	fw, ver := cfg.FirmwareID.ValueString(), cfg.FirmwareVersion.ValueString()
	what := "firmware update " + fw + " " + ver
	scheduling.InvokeAction(ctx, a.Data, cfg.ActionTargets, scheduling.ActionCommand{
		What: what, Command: "the firmware", NotSent: what,
		Kind: fleetstatus.FOTA, Firmware: &fleetstatus.Firmware{ID: fw, Version: ver}, Matches: scheduling.FirmwareMatches(fw, ver),
		OnDevice: func(ctx context.Context, dev string) (string, error) {
			f, err := a.Data.Client.ScheduleFOTA(ctx, dev, fw, ver)
			if err != nil {
				return "", err
			}
			return f.Status, nil
		},
		OnFleets: func(ctx context.Context, ws string, fleets []string) ([]string, error) {
			f, err := a.Data.Client.ScheduleFleetFOTA(ctx, ws, fw, ver, fleets)
			if err != nil {
				return nil, err
			}
			return f.Devices, nil
		},
	}, resp)
}
