package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/actionvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var (
	_ action.Action                     = (*scheduleJobAction)(nil)
	_ action.ActionWithConfigure        = (*scheduleJobAction)(nil)
	_ action.ActionWithConfigValidators = (*scheduleJobAction)(nil)
	_ action.ActionWithValidateConfig   = (*scheduleJobAction)(nil)
)

func newScheduleJobAction() action.Action {
	return &scheduleJobAction{}
}

// scheduleJobAction schedules a job on a device or on the devices of fleets,
// and optionally waits until they have run it.
type scheduleJobAction struct {
	data *providerData
}

// scheduleJobActionModel maps the zdm_schedule_job action.
type scheduleJobActionModel struct {
	Name         types.String `tfsdk:"name"`
	Value        types.String `tfsdk:"value"`
	DeviceID     types.String `tfsdk:"device_id"`
	WorkspaceID  types.String `tfsdk:"workspace_id"`
	FleetIDs     types.Set    `tfsdk:"fleet_ids"`
	Wait         types.Bool   `tfsdk:"wait"`
	Timeout      types.String `tfsdk:"timeout"`
	PollInterval types.String `tfsdk:"poll_interval"`
}

func (a *scheduleJobAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_schedule_job"
}

func (a *scheduleJobAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := actionTargetAttributes("job")
	attrs["name"] = schema.StringAttribute{
		MarkdownDescription: "Name of the job to schedule, one of the jobs the devices' firmware exposes. A job of " +
			"the same name already on a device is replaced and set back to `pending`.",
		Required:   true,
		Validators: []validator.String{stringvalidator.LengthAtLeast(1), notBlank{}},
	}
	attrs["value"] = schema.StringAttribute{
		MarkdownDescription: "Arguments of the job: a JSON object, best written with `jsonencode({...})`, checked " +
			"at plan time; `{}` when not set.",
		Optional:   true,
		Validators: []validator.String{jsonObject{}},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Schedules a job on a device (`device_id`) or on every device of fleets of a workspace " +
			"(`workspace_id`, with `fleet_ids` or every fleet), each time the action is invoked: with `terraform " +
			"apply -invoke=action.zdm_schedule_job.<name>` or from an `action_trigger` of a resource's lifecycle. " +
			"Nothing is kept in the Terraform state. With `wait`, the action polls the job of every device until " +
			"all report `done`, and fails after `timeout` naming the devices still pending. Progress is reported " +
			"per device. Needs Terraform 1.14 or later; the `zdm_device_job` and `zdm_fleet_job` resources " +
			"schedule jobs on any version.",
		Attributes: attrs,
	}
}

func (a *scheduleJobAction) ConfigValidators(context.Context) []action.ConfigValidator {
	return actionTargetValidators()
}

func (a *scheduleJobAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var cfg scheduleJobActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	validateWaitOptions(cfg.Wait, cfg.Timeout, cfg.PollInterval, &resp.Diagnostics)
}

func (a *scheduleJobAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = configureData("Action", req.ProviderData, &resp.Diagnostics)
}

func (a *scheduleJobAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	if a.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	var cfg scheduleJobActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	progress := progressFunc(resp)
	name := cfg.Name.ValueString()
	what := "job " + quote(name)
	value, err := jobValue(cfg.Value)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("value"), "Invalid JSON in value", "The value of value "+err.Error()+".")
		return
	}

	var devices []string
	if !cfg.DeviceID.IsNull() {
		dev := cfg.DeviceID.ValueString()
		job, err := a.data.client.ScheduleJob(ctx, dev, name, value)
		if err != nil {
			resp.Diagnostics.AddError("Cannot schedule "+what+" on device "+dev, err.Error())
			return
		}
		devices = []string{dev}
		progress(fmt.Sprintf("Scheduled %s on device %s (%s)", what, dev, job.Status))
	} else {
		ws := cfg.WorkspaceID.ValueString()
		fleets := setStrings(ctx, cfg.FleetIDs, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		job, err := a.data.client.ScheduleFleetJob(ctx, ws, name, fleets, value)
		if err != nil {
			resp.Diagnostics.AddError("Cannot schedule "+what+" on "+describeFleets(ws, fleets), err.Error())
			return
		}
		devices = job.Devices
		if !reportScheduled(what, ws, fleets, devices, progress, &resp.Diagnostics) {
			return
		}
	}

	opts := parseWaitOptions(cfg.Wait, cfg.Timeout, cfg.PollInterval)
	if !opts.wait {
		return
	}
	status := func(ctx context.Context, dev string) (string, error) {
		job, err := a.data.client.GetJob(ctx, dev, name)
		if err != nil {
			return "", err
		}
		return job.Status, nil
	}
	if err := waitDone(ctx, what, devices, opts, status, progress); err != nil {
		resp.Diagnostics.AddError("The "+what+" is not done", err.Error())
	}
}

// actionTargetAttributes are the target and wait attributes of the
// scheduling actions; what names what is scheduled ("job", "firmware update").
func actionTargetAttributes(what string) map[string]schema.Attribute {
	notEmpty := []validator.String{stringvalidator.LengthAtLeast(1), notBlank{}}
	return map[string]schema.Attribute{
		"device_id": schema.StringAttribute{
			MarkdownDescription: "ID of the device that gets the " + what + ". Exactly one of `device_id` and " +
				"`workspace_id` must be set.",
			Optional:   true,
			Validators: notEmpty,
		},
		"workspace_id": schema.StringAttribute{
			MarkdownDescription: "ID of the workspace whose fleets get the " + what + " (on every device they hold " +
				"when the action runs). It must be set explicitly: the provider's `workspace_id` is not used, so that " +
				"leaving out `device_id` cannot target a whole workspace by mistake. Exactly one of `device_id` and " +
				"`workspace_id` must be set.",
			Optional:   true,
			Validators: notEmpty,
		},
		"fleet_ids": schema.SetAttribute{
			MarkdownDescription: "IDs of the fleets of `workspace_id` that get the " + what + "; every fleet of the " +
				"workspace when not set (an empty set is an error). Only with `workspace_id`.",
			ElementType: types.StringType,
			Optional:    true,
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1), notBlank{}),
			},
		},
		"wait": schema.BoolAttribute{
			MarkdownDescription: "Wait until every targeted device reports the " + what + " `done`, polling each " +
				"device every `poll_interval`. Defaults to `false`: the action ends once the " + what + " is scheduled.",
			Optional: true,
		},
		"timeout": schema.StringAttribute{
			MarkdownDescription: "With `wait`, how long to wait, as a duration such as `\"10m\"`; the action fails " +
				"after it naming the devices not done. Defaults to `5m`.",
			Optional:   true,
			Validators: []validator.String{duration{}},
		},
		"poll_interval": schema.StringAttribute{
			MarkdownDescription: "With `wait`, the time between two polls of the devices, as a duration such as " +
				"`\"30s\"`; at most `timeout`. Defaults to `5s`. Each poll reads every device not done yet.",
			Optional:   true,
			Validators: []validator.String{duration{}},
		},
	}
}

// actionTargetValidators check the targets of the scheduling actions.
func actionTargetValidators() []action.ConfigValidator {
	return []action.ConfigValidator{
		actionvalidator.ExactlyOneOf(path.MatchRoot("device_id"), path.MatchRoot("workspace_id")),
		actionvalidator.Conflicting(path.MatchRoot("device_id"), path.MatchRoot("fleet_ids")),
	}
}

// validateWaitOptions checks that poll_interval is not longer than timeout,
// and warns when they are set without wait.
func validateWaitOptions(wait types.Bool, timeout, interval types.String, diags *diag.Diagnostics) {
	if wait.IsUnknown() || timeout.IsUnknown() || interval.IsUnknown() {
		return
	}
	if !wait.ValueBool() {
		for name, v := range map[string]types.String{"timeout": timeout, "poll_interval": interval} {
			if !v.IsNull() {
				diags.AddAttributeWarning(path.Root(name), "Unused "+name, name+" only applies with wait = true.")
			}
		}
		return
	}
	o := parseWaitOptions(wait, timeout, interval)
	if o.interval > o.timeout {
		diags.AddAttributeError(path.Root("poll_interval"), "Invalid poll_interval",
			fmt.Sprintf("poll_interval (%s) must not be longer than timeout (%s).", o.interval, o.timeout))
	}
}

// progressFunc sends progress messages of an invocation.
func progressFunc(resp *action.InvokeResponse) func(string) {
	return func(msg string) {
		if resp.SendProgress != nil {
			resp.SendProgress(action.InvokeProgressEvent{Message: msg})
		}
	}
}

// reportScheduled reports what a fleet-wide schedule reached, and warns
// when it reached no device. It returns whether there are devices to wait
// for.
func reportScheduled(what, ws string, fleets, devices []string, progress func(string), diags *diag.Diagnostics) bool {
	target := describeFleets(ws, fleets)
	if len(devices) == 0 {
		diags.AddWarning("No device got the "+what,
			"The "+what+" was scheduled on "+target+", which hold no device.")
		return false
	}
	progress(fmt.Sprintf("Scheduled %s on %s: %d devices (%s)", what, target, len(devices), abbreviate(devices)))
	return true
}

// abbreviate lists at most ten items.
func abbreviate(items []string) string {
	const most = 10
	if len(items) <= most {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:most], ", ") + fmt.Sprintf(" and %d more", len(items)-most)
}
