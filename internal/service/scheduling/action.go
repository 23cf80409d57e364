package scheduling

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// What the scheduling actions (zdm_schedule_job, zdm_schedule_fota) share:
// their targets, their wait, and the invocation that sends the command,
// resolves an ambiguous answer, reports progress and waits.

// ActionTargets are the target and wait attributes of a scheduling action
// (ActionTargetAttributes); its model embeds them.
type ActionTargets struct {
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

// ValidateTargets is the ValidateConfig of a scheduling action: the wait
// options, the status sets, and named fleet targets; command names what is
// sent ("the job").
func (t ActionTargets) ValidateTargets(ctx context.Context, command string, diags *diag.Diagnostics) {
	ValidateWaitOptions(t.Wait, t.Timeout, t.PollInterval, diags)
	ValidateStatusSets(ctx, t.SuccessStatuses, t.FailureStatuses, diags)
	if !t.WorkspaceID.IsNull() && t.DeviceID.IsNull() {
		ValidateFleetTargets(t.FleetIDs, t.AllFleets, command, diags)
	}
}

// ActionCommand is what differs between the scheduling actions: the
// command and how it is sent.
type ActionCommand struct {
	// What names it in messages ("job \"reboot\""); Command in the fleet
	// target rule ("the job"); NotSent in the message of a request not
	// sent.
	What, Command, NotSent string
	// Kind and Firmware are what the wait reads; Matches tells a device
	// that shows the command scheduled (the read-back of an ambiguous
	// answer).
	Kind     fleetstatus.Kind
	Firmware *fleetstatus.Firmware
	Matches  func(fleetstatus.Device) bool
	// OnDevice schedules it on one device and returns its status;
	// OnFleets on the devices of fleets of ws, returning the devices.
	OnDevice func(ctx context.Context, dev string) (string, error)
	OnFleets func(ctx context.Context, ws string, fleets []string) ([]string, error)
}

// InvokeAction sends c to the targets t, each time the action is invoked:
// one request, finished even when Terraform is interrupted; an ambiguous
// answer is read back (ResolveActionSchedule); then, with wait, the
// devices' statuses are polled until they all succeed, one fails, or the
// timeout.
func InvokeAction(ctx context.Context, d *connection.ProviderData, t ActionTargets, c ActionCommand, resp *action.InvokeResponse) {
	progress := ProgressFunc(resp)
	var devices []string
	sent := time.Now()
	wctx := client.FinishOnceSent(ctx)
	// sentTo handles the answer of the scheduling of c on dev (one device)
	// or on the fleets of scope.
	sentTo := func(dev string, scope fleetstatus.Scope, summary string, err error) bool {
		switch {
		case errors.Is(err, client.ErrNotSent):
			resp.Diagnostics.AddError(summary, NotSent(c.NotSent, err))
			return false
		case errors.Is(err, client.ErrAmbiguous):
			s := SentSchedule{Cause: err, Sent: sent}
			devices = ResolveActionSchedule(ctx, d, s, c.What, dev, scope, c.Kind, c.Matches, summary, &resp.Diagnostics)
			return devices != nil
		case err != nil:
			resp.Diagnostics.AddError(summary, err.Error())
			return false
		}
		return true
	}
	if !t.DeviceID.IsNull() {
		dev := t.DeviceID.ValueString()
		status, err := c.OnDevice(wctx, dev)
		if !sentTo(dev, fleetstatus.Scope{}, "Cannot schedule "+c.What+" on device "+dev, err) {
			return
		}
		if err == nil {
			devices = []string{dev}
			progress(fmt.Sprintf("Scheduled %s on device %s (%s)", c.What, dev, status))
		}
	} else {
		ws := t.WorkspaceID.ValueString()
		fleets := values.SetStrings(ctx, t.FleetIDs, &resp.Diagnostics)
		ValidateFleetTargets(t.FleetIDs, t.AllFleets, c.Command, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		got, err := c.OnFleets(wctx, ws, fleets)
		if !sentTo("", fleetstatus.Scope{WorkspaceID: ws, FleetIDs: fleets}, "Cannot schedule "+c.What+" on "+objects.DescribeFleets(ws, fleets), err) {
			return
		}
		if err == nil {
			devices = got
		}
		if !ReportScheduled(c.What, ws, fleets, devices, progress, &resp.Diagnostics) {
			return
		}
	}

	opts := ParseWaitOptions(t.Wait, t.Timeout, t.PollInterval)
	if !opts.Wait {
		return
	}
	w := fleetstatus.WaitOptions{Kind: c.Kind, Firmware: c.Firmware,
		Success: values.SetStrings(ctx, t.SuccessStatuses, &resp.Diagnostics), Failure: values.SetStrings(ctx, t.FailureStatuses, &resp.Diagnostics),
		Timeout: opts.Timeout, Interval: opts.Interval, Progress: progress}
	if _, err := fleetstatus.Wait(ctx, d.Client, devices, w); err != nil {
		resp.Diagnostics.AddError("The "+c.What+" is not done", err.Error())
	}
}

// ActionBase is what the scheduling actions share as actions: the
// provider's configuration and the rules of their targets. An action embeds
// it.
type ActionBase struct {
	// TypeSuffix follows the provider's type name: "_schedule_job".
	TypeSuffix string
	// Data is what the provider's Configure made; nil before it is known.
	Data *connection.ProviderData
}

// Action is what a scheduling action implements.
type Action interface {
	action.ActionWithConfigure
	action.ActionWithConfigValidators
	action.ActionWithValidateConfig
}

// Metadata implements action.Action.
func (b *ActionBase) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + b.TypeSuffix
}

// Configure implements action.ActionWithConfigure.
func (b *ActionBase) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	b.Data = connection.ConfigureData("Action", req.ProviderData, &resp.Diagnostics)
}

// ConfigValidators implements action.ActionWithConfigValidators: the
// targets (ActionTargetValidators).
func (b *ActionBase) ConfigValidators(context.Context) []action.ConfigValidator {
	return ActionTargetValidators()
}
