package scheduling

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/actionvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// Waiting and polling: the wait options of the actions, and waitStatuses,
// the one wait with success and failure statuses over the fleet-status
// reader, for the scheduling actions and the rollout.

// Defaults of the actions' wait attributes.
const (
	defaultWaitTimeout  = 5 * time.Minute
	defaultPollInterval = 5 * time.Second
)

// waitOptions are the wait, timeout and poll_interval attributes of an action.
type waitOptions struct {
	Wait     bool
	Timeout  time.Duration
	Interval time.Duration
}

// ParseWaitOptions reads the wait attributes (validated already), applying
// the defaults.
func ParseWaitOptions(wait types.Bool, timeout, interval types.String) waitOptions {
	o := waitOptions{Wait: wait.ValueBool(), Timeout: defaultWaitTimeout, Interval: defaultPollInterval}
	if d, err := connection.ParseDuration(timeout.ValueString()); err == nil && !timeout.IsNull() {
		o.Timeout = d
	}
	if d, err := connection.ParseDuration(interval.ValueString()); err == nil && !interval.IsNull() {
		o.Interval = max(d, connection.MinPollInterval) // a value unknown at plan was not validated
	}
	return o
}

// ProgressFunc sends progress messages of an invocation.
func ProgressFunc(resp *action.InvokeResponse) func(string) {
	return func(msg string) {
		if resp.SendProgress != nil {
			resp.SendProgress(action.InvokeProgressEvent{Message: msg})
		}
	}
}

// ReportScheduled reports what a fleet-wide schedule reached, and warns
// when it reached no device. It returns whether there are devices to wait
// for.
func ReportScheduled(what, ws string, fleets, devices []string, progress func(string), diags *diag.Diagnostics) bool {
	target := objects.DescribeFleets(ws, fleets)
	if len(devices) == 0 {
		diags.AddWarning("No device got the "+what,
			"The "+what+" was scheduled on "+target+", which hold no device.")
		return false
	}
	progress(fmt.Sprintf("Scheduled %s on %s: %d devices (%s)", what, target, len(devices), connection.Abbreviate(devices)))
	return true
}

// Descriptions and validators of the wait attributes, shared by the actions
// and the scheduling resources; fails says what a failed wait ends ("the
// action fails", "the apply fails").

func waitStatusSetValidators(atLeastOne bool) []validator.Set {
	v := []validator.Set{setvalidator.ValueStringsAre(validators.NotEmpty()...)}
	if atLeastOne {
		v = append(v, setvalidator.SizeAtLeast(1))
	}
	return v
}

func successStatusesDoc(what string) string {
	return "With `wait`, the statuses that mean a device finished the " + what + " well. Defaults to `[\"done\"]`."
}

func failureStatusesDoc(what, fails string) string {
	doc := "With `wait`, the statuses that mean a device failed the " + what + ", such as `[\"failed\"]` (the API " +
		"names no failure status: set the ones your devices report). The first device that reports one ends the " +
		"wait at once, and " + fails + " naming every device not done with its status."
	if strings.Contains(what, "firmware") {
		doc += " A device whose update was replaced by another firmware has failed too."
	}
	return doc
}

func pollIntervalDoc(bound string) string {
	return "With `wait`, the time between two polls of the devices, as a duration such as `\"30s\"`, at least `\"100ms\"`" + bound +
		". Defaults to `5s`. Each poll reads every device not done yet."
}

// Waiting in the scheduling resources (zdm_device_job, zdm_fleet_job,
// zdm_fota): after a scheduling, with wait = true, the apply waits until
// every targeted device reports a success status, bounded by the timeouts
// block. A wait that fails saves the state with what was scheduled and
// fails the apply; applying again waits again and never sends again (see
// unfinished.go and DESIGN.md, "Waiting in resources").

// defaultResourceWaitTimeout bounds a resource's wait when its timeouts
// block does not.
const defaultResourceWaitTimeout = 10 * time.Minute

// WaitModel are the wait attributes of a scheduling resource, embedded in
// its model.
type WaitModel struct {
	Wait            types.Bool     `tfsdk:"wait"`
	SuccessStatuses types.Set      `tfsdk:"success_statuses"`
	FailureStatuses types.Set      `tfsdk:"failure_statuses"`
	PollInterval    types.String   `tfsdk:"poll_interval"`
	Timeouts        timeouts.Value `tfsdk:"timeouts"`
}

// NullWaitModel is the wait attributes of an imported object: all unset.
func NullWaitModel() WaitModel {
	return WaitModel{Wait: types.BoolNull(), SuccessStatuses: types.SetNull(types.StringType),
		FailureStatuses: types.SetNull(types.StringType), PollInterval: types.StringNull(),
		Timeouts: timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
			"create": types.StringType, "update": types.StringType})}}
}

// Enabled tells whether the resource waits.
func (w WaitModel) Enabled() bool { return w.Wait.ValueBool() }

// Validate checks the wait attributes at plan time: the statuses do not
// overlap, a timeouts value is a duration the provider can wait (its
// message names the limit), poll_interval is not longer than the wait's
// timeout of a create or an update (as for the actions' timeout), and the
// others are not set without wait.
func (w WaitModel) Validate(ctx context.Context, diags *diag.Diagnostics) {
	ValidateStatusSets(ctx, w.SuccessStatuses, w.FailureStatuses, diags)
	bounds := w.timeoutBounds(diags)
	if w.Wait.IsUnknown() || w.Wait.ValueBool() {
		if w.Wait.ValueBool() && !w.PollInterval.IsNull() && !w.PollInterval.IsUnknown() {
			interval, err := connection.ParseDuration(w.PollInterval.ValueString())
			for _, b := range bounds {
				if err == nil && interval > b.timeout {
					diags.AddAttributeError(path.Root("poll_interval"), "Invalid poll_interval",
						fmt.Sprintf("poll_interval (%s) must not be longer than the wait's timeout of %s (%s): the wait would "+
							"end before its first poll. Shorten poll_interval, or raise %s.", interval, b.name, b.timeout, b.name))
				}
			}
		}
		return
	}
	warnUnusedWithoutWait(map[string]bool{"success_statuses": !w.SuccessStatuses.IsNull(),
		"failure_statuses": !w.FailureStatuses.IsNull(), "poll_interval": !w.PollInterval.IsNull()}, diags)
}

// waitBound is the timeout of one operation's wait: its name in messages
// (timeouts.create) and its duration.
type waitBound struct {
	name    string
	timeout time.Duration
}

// timeoutBounds returns the timeout of the waits of a create and of an
// update (the timeouts block's, or the default), reporting a value that is
// not a duration the provider can wait at its attribute. An unknown value
// has no bound yet.
func (w WaitModel) timeoutBounds(diags *diag.Diagnostics) []waitBound {
	var attrs map[string]attr.Value
	if !w.Timeouts.IsNull() && !w.Timeouts.IsUnknown() {
		attrs = w.Timeouts.Attributes()
	}
	var out []waitBound
	for _, op := range []string{"create", "update"} {
		b := waitBound{name: "timeouts." + op, timeout: defaultResourceWaitTimeout}
		if v, ok := attrs[op].(types.String); ok && !v.IsNull() {
			if v.IsUnknown() {
				continue
			}
			d, err := connection.ParseDuration(v.ValueString())
			if err != nil {
				diags.AddAttributeError(path.Root("timeouts").AtName(op), "Invalid timeouts."+op,
					"timeouts."+op+" bounds the wait of a "+op+": "+connection.Sentence(err.Error()))
				continue
			}
			b.timeout = d
		}
		out = append(out, b)
	}
	return out
}

// warnUnusedWithoutWait warns about each wait attribute set (true in set)
// while wait is false.
func warnUnusedWithoutWait(set map[string]bool, diags *diag.Diagnostics) {
	for name, isSet := range set {
		if isSet {
			diags.AddAttributeWarning(path.Root(name), "Unused "+name, name+" only applies with wait = true.")
		}
	}
}

// DoneStatuses are the success statuses as configured, "done" when none
// are known: what devices_not_done leaves out.
func (w WaitModel) DoneStatuses() []string {
	var out []string
	if !w.SuccessStatuses.IsNull() && !w.SuccessStatuses.IsUnknown() {
		for _, e := range w.SuccessStatuses.Elements() {
			if s, ok := e.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
				out = append(out, s.ValueString())
			}
		}
	}
	if len(out) == 0 {
		return []string{client.JobStatusDone}
	}
	return out
}

// successes are the success statuses (default "done").
func (w WaitModel) successes(ctx context.Context, diags *diag.Diagnostics) []string {
	if ok := values.SetStrings(ctx, w.SuccessStatuses, diags); len(ok) > 0 {
		return ok
	}
	return []string{client.JobStatusDone}
}

// Unfinished tells whether the resource waits and statuses (of the
// targeted devices, as last read) are not all success statuses. Unknown
// wait attributes are not unfinished.
func (w WaitModel) Unfinished(ctx context.Context, statuses []string, diags *diag.Diagnostics) bool {
	if !w.Enabled() || w.SuccessStatuses.IsUnknown() {
		return false
	}
	ok := w.DoneStatuses()
	for _, s := range statuses {
		if !slices.Contains(ok, s) {
			return true
		}
	}
	return false
}

// WaitOptions is the wait of kind (firmware: the update waited for) for a
// create, or an update when update is true: the one shape of a wait from
// the schema (WaitModel, the actions' wait attributes) to the reader.
func (w WaitModel) WaitOptions(ctx context.Context, kind fleetstatus.Kind, firmware *fleetstatus.Firmware, update bool, diags *diag.Diagnostics) fleetstatus.WaitOptions {
	get := w.Timeouts.Create
	if update {
		get = w.Timeouts.Update
	}
	timeout, d := get(ctx, defaultResourceWaitTimeout)
	diags.Append(d...)
	interval := defaultPollInterval
	if v, err := connection.ParseDuration(w.PollInterval.ValueString()); err == nil && !w.PollInterval.IsNull() {
		interval = max(v, connection.MinPollInterval) // a value unknown at plan was not validated
	}
	return fleetstatus.WaitOptions{Kind: kind, Firmware: firmware, Success: w.successes(ctx, diags),
		Failure: values.SetStrings(ctx, w.FailureStatuses, diags), Timeout: timeout, Interval: interval}
}

// StatusCountKeys are the statuses of a status_counts map.
func StatusCountKeys(counts types.Map) []string {
	keys := make([]string, 0, len(counts.Elements()))
	for k := range counts.Elements() {
		keys = append(keys, k)
	}
	return keys
}

// WaitResource waits for what (such as `job "reboot"`) on devices after
// a scheduling of a resource. Progress goes to the log at info level. A
// wait that does not succeed adds an error that names each device not done
// with its status, and says that applying again only waits; it returns the
// last statuses read either way.
//
// noun is what is sent again by a change of triggers ("job", "firmware
// update").
func WaitResource(ctx context.Context, d *connection.ProviderData, devices []string, w fleetstatus.WaitOptions, what, noun string, diags *diag.Diagnostics) (fleetstatus.WaitResult, bool) {
	w.Progress = func(msg string) { tflog.Info(ctx, msg) }
	res, err := fleetstatus.Wait(ctx, d.Client, devices, w)
	if err != nil {
		diags.AddError("The "+what+" is not done",
			err.Error()+". The state keeps what was scheduled. Applying again sends nothing: it waits again "+
				"(a device in a failure status fails it again at once). To send the "+noun+" again, change triggers.")
		return res, false
	}
	return res, true
}

// WaitsAgain is the plan-time warning of an update that only waits again
// for what (a noun: "job", "firmware update"), whose devices report status
// (not a success status).
func WaitsAgain(what, noun, status string) (string, string) {
	return "The update only waits again",
		"The " + what + " is not done (" + status + ") while wait = true: this apply sends nothing and waits again " +
			"for the devices. A device in a failure status fails it again at once; to send the " +
			noun + " again, change triggers."
}

// WaitDevices waits, with w.Wait, until devices report kind (firmware: the
// update waited for) in a success status, and stores their progress in
// counts and notDone. update tells which timeout bounds it. It returns the
// last statuses read, and whether every device is done (true without
// wait).
func WaitDevices(ctx context.Context, d *connection.ProviderData, w WaitModel, devices []string, kind fleetstatus.Kind, firmware *fleetstatus.Firmware, update bool, what, noun string, counts *types.Map, notDone *types.List, diags *diag.Diagnostics) ([]fleetstatus.Device, bool) {
	if !w.Enabled() {
		return nil, true
	}
	sw := w.WaitOptions(ctx, kind, firmware, update, diags)
	if diags.HasError() {
		return nil, false
	}
	res, ok := WaitResource(ctx, d, devices, sw, what, noun, diags)
	*counts, *notDone = FleetProgress(devices, "", res.Devices, firmware, w.DoneStatuses())
	return res.Devices, ok
}

// ListStrings are the strings of a list value (none when null or unknown).
func ListStrings(ctx context.Context, l types.List, diags *diag.Diagnostics) []string {
	var out []string
	if l.IsNull() || l.IsUnknown() {
		return out
	}
	diags.Append(l.ElementsAs(ctx, &out, false)...)
	return out
}

// DescribeCounts renders status counts for messages: "done: 2, failed: 1".
func DescribeCounts(counts types.Map) string {
	keys := StatusCountKeys(counts)
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if n, ok := counts.Elements()[k].(types.Int64); ok {
			parts = append(parts, fmt.Sprintf("%s: %d", k, n.ValueInt64()))
		}
	}
	return strings.Join(parts, ", ")
}

// ActionTargetValidators check the targets of the scheduling actions.
func ActionTargetValidators() []action.ConfigValidator {
	return []action.ConfigValidator{
		actionvalidator.ExactlyOneOf(path.MatchRoot("device_id"), path.MatchRoot("workspace_id")),
		actionvalidator.Conflicting(path.MatchRoot("device_id"), path.MatchRoot("fleet_ids")),
		actionvalidator.Conflicting(path.MatchRoot("device_id"), path.MatchRoot("all_fleets")),
	}
}

// ValidateWaitOptions checks that poll_interval is not longer than timeout,
// and warns when they are set without wait.
func ValidateWaitOptions(wait types.Bool, timeout, interval types.String, diags *diag.Diagnostics) {
	if wait.IsUnknown() || timeout.IsUnknown() || interval.IsUnknown() {
		return
	}
	if !wait.ValueBool() {
		warnUnusedWithoutWait(map[string]bool{"timeout": !timeout.IsNull(), "poll_interval": !interval.IsNull()}, diags)
		return
	}
	o := ParseWaitOptions(wait, timeout, interval)
	if o.Interval > o.Timeout {
		diags.AddAttributeError(path.Root("poll_interval"), "Invalid poll_interval",
			fmt.Sprintf("poll_interval (%s) must not be longer than timeout (%s).", o.Interval, o.Timeout))
	}
}

// ValidateStatusSets checks that the success and failure statuses of a wait
// do not overlap.
func ValidateStatusSets(ctx context.Context, success, failure types.Set, diags *diag.Diagnostics) {
	if success.IsUnknown() || failure.IsUnknown() {
		return
	}
	ok := values.SetStrings(ctx, success, diags)
	if len(ok) == 0 {
		ok = []string{client.JobStatusDone}
	}
	for _, f := range values.SetStrings(ctx, failure, diags) {
		if slices.Contains(ok, f) {
			diags.AddAttributeError(path.Root("failure_statuses"), "Overlapping statuses",
				"The status "+connection.Quote(f)+" is both a success status and a failure status: a status means one or the other.")
		}
	}
}
