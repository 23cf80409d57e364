package scheduling

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
	"github.com/zdm/terraform-provider-zdm/internal/kit"
)

// Scheduling: the rules the job and firmware-update resources and actions
// share (see DESIGN.md, "Device commands are sent exactly as often as the
// configuration asks"):
//
//   - targets are never implied: a fleet-wide scheduling names its fleets or
//     opts into every fleet with all_fleets = true (validateFleetTargets);
//   - a job or update record that the service no longer returns while its
//     device exists keeps its state, with a warning: only a change of the
//     configuration schedules again (recordMissing);
//   - the device itself is gone only when a 404 is proven (deviceGone).

// ValidateFleetTargets checks the targets of a fleet-wide scheduling:
// exactly one of fleet_ids and all_fleets = true. what names what is
// scheduled ("the job", "the firmware"). Unknown values are checked at
// apply.
func ValidateFleetTargets(fleetIDs types.Set, allFleets types.Bool, what string, diags *diag.Diagnostics) {
	if fleetIDs.IsUnknown() || allFleets.IsUnknown() {
		return
	}
	all := allFleets.ValueBool()
	switch {
	case all && !fleetIDs.IsNull():
		diags.AddAttributeError(path.Root("all_fleets"), "Conflicting all_fleets and fleet_ids",
			"Set fleet_ids to name the fleets, or all_fleets = true for every fleet of the workspace, not both.")
	case !all && fleetIDs.IsNull():
		diags.AddAttributeError(path.Root("fleet_ids"), "Missing fleet_ids",
			"Name the fleets whose devices get "+what+" with fleet_ids, or set all_fleets = true for every fleet "+
				"of the workspace. A scheduling never targets every fleet unless asked.")
	}
}

// DeviceGone tells whether a device is proven gone after a 404 on one of its
// paths (a job or firmware update): the device's own job list answers 404,
// and the device answers 404 in the provider's workspace while that
// workspace is visible to this base_url and key (the rule of
// visibility.go). It returns false, nil when the device exists, and an error
// when neither can be shown: the caller then keeps the state.
func DeviceGone(ctx context.Context, d *connection.ProviderData, dev string, notFound error) (bool, error) {
	_, err := d.Client.ListJobs(ctx, dev, client.JobStatusDone)
	switch {
	case err == nil:
		return false, nil
	case !client.IsNotFound(err):
		return false, err
	}
	ws := d.WorkspaceID
	if ws == "" {
		return false, errors.New("the service answered " + notFound.Error() + " for device " + connection.Quote(dev) +
			", but without the provider's workspace_id (or " + connection.EnvWorkspaceID + ") the provider cannot show that " +
			"the device is gone rather than out of reach of this base_url and API key, so the state is kept. Set " +
			"workspace_id in the provider block")
	}
	_, err = d.Client.GetDevice(ctx, ws, dev)
	switch {
	case err == nil:
		return false, nil
	case !client.IsNotFound(err):
		return false, err
	}
	if perr := d.ConfirmGone(ctx, "device", ws, dev, err); perr != nil {
		return false, perr
	}
	return true, nil
}

// RecordMissing is the warning of a job or firmware update record that the
// service no longer returns while its device exists: the state keeps its
// last-read status, and nothing is scheduled again.
func RecordMissing(what, dev, change string) (string, string) {
	return "The " + what + " of device " + dev + " is no longer returned by the service",
		"Device " + dev + " exists, but the service no longer returns its " + what + " (a service may purge " +
			"finished records). The state keeps its last-read status, and the " + what + " is not scheduled again: " +
			"only a change of " + change + " schedules it again."
}

// SameTargets reports whether a fleet-wide scheduling planned with fleetIDs
// and allFleets targets what the state's prior fleet IDs did (a null set
// in the state is every fleet, as written before all_fleets existed).
func SameTargets(prior, fleetIDs types.Set, allFleets types.Bool) bool {
	if allFleets.ValueBool() {
		return prior.IsNull()
	}
	return prior.Equal(fleetIDs)
}

// ScheduledLater reports whether the RFC 3339 time a is after b (compared as
// text when either cannot be read).
func ScheduledLater(a, b string) bool {
	ta, errA := kit.ParseRFC3339(a)
	tb, errB := kit.ParseRFC3339(b)
	if errA != nil || errB != nil {
		return a > b
	}
	return ta.After(tb)
}

// After an ambiguous scheduling: read back, adopt only what can only be
// this request's scheduling, and never advise a re-send that repeats it.

// SentSchedule is a scheduling request whose answer was lost.
type SentSchedule struct {
	// Cause is the error of the request (it wraps client.ErrAmbiguous).
	Cause error
	// Sent is the local time just before the request was sent.
	Sent time.Time
	// Prior is the scheduled_at of the scheduling in the state ("" when
	// none): only a strictly later one can be this request's.
	Prior string
}

// isNew reports whether a scheduling read back at scheduledAt can be this
// request's: strictly later than the one in the state, and at or after the
// request by the service's clock (client.EarliestServiceTime). Without a
// Date header from the service nothing can be shown new.
func (s SentSchedule) isNew(c *client.Client, scheduledAt string) bool {
	if s.Prior != "" && !ScheduledLater(scheduledAt, s.Prior) {
		return false
	}
	since, ok := c.EarliestServiceTime(s.Sent)
	return ok && kit.CreatedAtOrAfter(scheduledAt, since)
}

// when is, for messages, the time after which a scheduling can be this
// request's: the earliest service time of the request, or the scheduling in
// the state when that is later.
func (s SentSchedule) when(c *client.Client) string {
	since, ok := c.EarliestServiceTime(s.Sent)
	if !ok {
		since = s.Sent
	}
	if p, err := kit.ParseRFC3339(s.Prior); err == nil && p.After(since) {
		since = p
	}
	return since.UTC().Format(time.RFC3339Nano)
}

// again reports whether a read-back that found nothing should read again:
// until the deadline of ctx after a timeout (the request may still be
// queued), once more otherwise. It waits recheckInterval first.
func (s SentSchedule) again(ctx context.Context, reads int) bool {
	deadline, _ := ctx.Deadline()
	timedOut := errors.Is(s.Cause, context.DeadlineExceeded)
	if (!timedOut && reads >= 2) || time.Until(deadline) <= kit.RecheckInterval {
		return false
	}
	t := time.NewTimer(kit.RecheckInterval)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// ReadBackDevice reads what one device holds after the ambiguous scheduling
// s, on a context Terraform's cancellation does not end (bounded by
// request_timeout), and returns the device's record (a fleetstatus.Device)
// when it shows this request's scheduling: matches (the requested value or
// firmware) and new. Otherwise it returns false and what the last read
// showed, for the message.
func ReadBackDevice(ctx context.Context, d *connection.ProviderData, s SentSchedule, dev string, kind fleetstatus.Kind, matches func(fleetstatus.Device) bool) (fleetstatus.Device, bool, string) {
	rctx, cancel := d.Client.ResolveContext(ctx)
	defer cancel()
	seen := ""
	for reads := 1; ; reads++ {
		got, err := fleetstatus.ReadIDs(rctx, d.Client, []string{dev}, kind, 1)
		switch {
		case err != nil:
			seen = "reading it back failed: " + err.Error()
		case !got[0].Found:
			seen = "reading it back showed none"
		case matches(got[0]) && s.isNew(d.Client, got[0].ScheduledAt):
			return got[0], true, ""
		default:
			seen = fmt.Sprintf("reading it back showed the scheduling of %s (status %s)", got[0].ScheduledAt, got[0].Status)
		}
		if !s.again(rctx, reads) {
			return fleetstatus.Device{}, false, fmt.Sprintf("%s (read %d times)", seen, reads)
		}
	}
}

// ReadBackFleet reads every targeted device (the fleet-status reader) after
// the ambiguous fleet-wide scheduling s, on a context Terraform's
// cancellation does not end, and splits them into the devices that show
// this request's scheduling (have, with the latest scheduled_at) and those
// that do not (lack). When none has it yet after a timeout, it reads again
// until the deadline.
func ReadBackFleet(ctx context.Context, d *connection.ProviderData, s SentSchedule, scope fleetstatus.Scope, kind fleetstatus.Kind, matches func(fleetstatus.Device) bool) (have, lack []string, at string, err error) {
	rctx, cancel := d.Client.ResolveContext(ctx)
	defer cancel()
	for reads := 1; ; reads++ {
		res, rerr := readFleetStatus(rctx, d.Client, scope, kind, 0)
		if rerr != nil {
			return nil, nil, "", rerr
		}
		have, lack, at = nil, nil, ""
		for _, dev := range res.Devices {
			if dev.Found && matches(dev) && s.isNew(d.Client, dev.ScheduledAt) {
				have = append(have, dev.ID)
				if at == "" || ScheduledLater(dev.ScheduledAt, at) {
					at = dev.ScheduledAt
				}
			} else {
				lack = append(lack, dev.ID)
			}
		}
		if len(have) > 0 || !s.again(rctx, reads) {
			return have, lack, at, nil
		}
	}
}

// JobMatches tells whether a device's job holds value; a job read without
// its value (a service that does not echo it) is not told apart by value.
func JobMatches(value string) func(fleetstatus.Device) bool {
	return func(d fleetstatus.Device) bool {
		got := kit.CompactJSON(d.Value)
		return got == "null" || jsonvalue.Equal(got, value)
	}
}

// FirmwareMatches tells whether a device's update is this firmware.
func FirmwareMatches(id, version string) func(fleetstatus.Device) bool {
	return func(d fleetstatus.Device) bool {
		return d.FirmwareID == id && d.FirmwareVersion == version
	}
}

// NotSent is the detail of a scheduling that provably did not reach the
// service: the operation was interrupted before the request started.
func NotSent(what string, err error) string {
	return err.Error() + ". The " + what + " was not sent: Terraform was interrupted before the request started. " +
		"Applying again sends it once."
}

// DeviceMaySchedule is the detail of an ambiguous scheduling on one device
// that the read-back did not show: the command may have reached the
// device, so the message gives the check to make before sending again.
func DeviceMaySchedule(c *client.Client, s SentSchedule, what, dev, seen, check string) string {
	return fmt.Sprintf("The request scheduling the %s on device %s was sent, but its answer was lost (%s), and %s, "+
		"not a scheduling since the request: it may not have reached the service, or may still be processed. "+
		"Do not send it again before checking: the device would run it twice. %s If it shows a scheduled_at "+
		"after %s, the %s was sent; otherwise applying again sends it once.", what, dev, s.Cause.Error(), seen, check,
		s.when(c), what)
}

// FleetMaySchedule is the detail of an ambiguous fleet-wide scheduling that
// no targeted device shows.
func FleetMaySchedule(c *client.Client, s SentSchedule, what, target, seen, check string) string {
	return fmt.Sprintf("The request scheduling the %s on %s was sent, but its answer was lost (%s), and %s. It may "+
		"not have reached the service, or may still be processed. Do not send it again before checking: every "+
		"device of the fleets would run it again. %s Devices that show a scheduled_at after %s have it; if "+
		"none does, applying again sends it once.", what, target, s.Cause.Error(), seen, check, s.when(c))
}

// FleetStatusCheck is the configuration that reads each device of scope,
// for messages: the job named job, or the firmware update when job is "".
func FleetStatusCheck(scope fleetstatus.Scope, job string) string {
	fleets := "" // the whole workspace
	if len(scope.FleetIDs) > 0 {
		fleets = " fleet_ids = [" + strings.Join(kit.QuoteAll(scope.FleetIDs), ", ") + "]"
	}
	what := "fota = true"
	if job != "" {
		what = "job_name = " + connection.Quote(job)
	}
	return fmt.Sprintf(`Read each device with data "zdm_fleet_status" { workspace_id = %q%s %s }.`, scope.WorkspaceID, fleets, what)
}

// AdoptedFleetWarning is the warning of an ambiguous fleet-wide scheduling
// that the devices show: have got it, lack did not (at the read-back).
func AdoptedFleetWarning(s SentSchedule, what string, have, lack []string) (string, string) {
	detail := fmt.Sprintf("The answer to the request scheduling the %s was lost (%s); reading the devices back showed "+
		"it scheduled since the request on %d devices (%s), so it is taken as scheduled there: it was sent once.",
		what, s.Cause.Error(), len(have), connection.Abbreviate(have))
	if len(lack) > 0 {
		detail += fmt.Sprintf(" %d devices of the fleets do not show it (%s): they are not in the state's devices, "+
			"and applying again does not send it to them. To send it to those devices only, schedule it on each "+
			"of them by device_id; sending it to the fleets again would run it a second time on the others.",
			len(lack), connection.Abbreviate(lack))
	}
	return "Adopted a fleet-wide scheduling after an interrupted request", detail
}

// ResolveActionSchedule resolves the ambiguous scheduling s of an action,
// which keeps no state: on one device (dev) or on the devices of scope. It
// returns the devices that show this request's scheduling when the action
// can go on as if answered (the device, or every targeted device);
// otherwise it reports an error that says plainly that invoking the action
// again sends the command again, and names the devices that may already
// have it, and returns nil.
func ResolveActionSchedule(ctx context.Context, d *connection.ProviderData, s SentSchedule, what, dev string, scope fleetstatus.Scope, kind fleetstatus.Kind, matches func(fleetstatus.Device) bool, summary string, diags *diag.Diagnostics) []string {
	again := "Invoking the action again sends the " + what + " again"
	if dev != "" {
		got, ok, seen := ReadBackDevice(ctx, d, s, dev, kind, matches)
		if ok {
			diags.AddWarning("The "+what+" was sent once despite a lost answer",
				"The answer to the request was lost ("+s.Cause.Error()+"); reading device "+dev+" back showed the "+what+
					" scheduled at "+got.ScheduledAt+", after the request (status "+got.Status+").")
			return []string{dev}
		}
		diags.AddError(summary, fmt.Sprintf("The request was sent, but its answer was lost (%s), and %s. Device %s "+
			"may already have the %s, or get it later. %s: device %s would run it twice if it has it. Check first "+
			"whether its scheduled_at is after %s.", s.Cause.Error(), seen, dev, what, again, dev, s.when(d.Client)))
		return nil
	}
	target := kit.DescribeFleets(scope.WorkspaceID, scope.FleetIDs)
	have, lack, _, err := ReadBackFleet(ctx, d, s, scope, kind, matches)
	switch {
	case err != nil:
		diags.AddError(summary, fmt.Sprintf("The request was sent, but its answer was lost (%s), and reading the "+
			"devices back failed: %v. Every device of %s may already have the %s. %s to every device of the "+
			"fleets: %s", s.Cause.Error(), err, target, what, again, FleetStatusCheck(scope, kind.Job)))
		return nil
	case len(have) > 0 && len(lack) == 0:
		diags.AddWarning(AdoptedFleetWarning(s, what, have, nil))
		return have
	case len(have) > 0:
		diags.AddError(summary, fmt.Sprintf("The request was sent, but its answer was lost (%s). Reading the devices "+
			"back showed the %s scheduled since the request on %d devices (%s) and not on %d (%s). %s to every "+
			"device of the fleets, so the devices that have it would run it twice: to reach the others only, "+
			"invoke it with device_id for each of them.", s.Cause.Error(), what, len(have), connection.Abbreviate(have),
			len(lack), connection.Abbreviate(lack), again))
		return nil
	}
	diags.AddError(summary, fmt.Sprintf("The request was sent, but its answer was lost (%s), and none of the %d "+
		"devices of %s shows the %s scheduled since the request: it may not have reached the service, or may "+
		"still be processed. %s to every device of the fleets. Check first which devices show a scheduled_at "+
		"after %s: %s", s.Cause.Error(), len(lack), target, what, again, s.when(d.Client),
		FleetStatusCheck(scope, kind.Job)))
	return nil
}

// ForgetScheduling is the warning of the Delete of a job or firmware update
// (ref names it): the API cannot cancel it, and Delete cannot tell a
// destroy from the first half of a replacement (-replace, or a change that
// forces one), so the message covers both.
func ForgetScheduling(what, ref string) (string, string) {
	return "The " + what + " was only removed from the Terraform state",
		"The ZDM API cannot cancel a " + what + ": " + ref + " stays scheduled in the service. If it is being " +
			"replaced (terraform apply -replace, or a change of an attribute that forces replacement), it is " +
			"scheduled again now and the new scheduling is kept in the state; otherwise Terraform no longer " +
			"manages it, and importing it manages it again."
}

// A change of the targets alone (fleet_ids, all_fleets) of a fleet-wide
// scheduling sends the command only to the fleets it adds: the devices of
// the fleets already targeted have it, and sending to them again would run
// it twice. Removed fleets keep what they got. A change of the command
// itself (value, firmware, triggers) sends it to every targeted fleet.

// addedFleets returns the fleets a change of the targets alone adds to the
// prior fleets (a null prior set: every fleet, so nothing is added). When
// the new targets are every fleet, the workspace's fleets are listed.
func addedFleets(ctx context.Context, c *client.Client, ws string, prior, planned types.Set, all types.Bool, diags *diag.Diagnostics) []string {
	if prior.IsNull() {
		return nil
	}
	had := kit.SetStrings(ctx, prior, diags)
	var want []string
	if all.ValueBool() {
		fleets, err := c.ListFleets(ctx, ws)
		if err != nil {
			diags.AddError("Cannot list the fleets of workspace "+ws, err.Error())
			return nil
		}
		for _, f := range fleets {
			want = append(want, f.ID)
		}
	} else {
		want = kit.SetStrings(ctx, planned, diags)
	}
	var added []string
	for _, id := range want {
		if !slices.Contains(had, id) {
			added = append(added, id)
		}
	}
	slices.Sort(added)
	return added
}

// FleetsToSend tells what an update of a fleet-wide scheduling sends: after
// a change of the command (command true), every targeted fleet (send, with
// only nil); after a change of the targets alone, the fleets it adds (send,
// with only those), or nothing when it adds none. ok is false, with an
// error in diags, when the fleets could not be listed: the update then
// keeps the prior state.
func FleetsToSend(ctx context.Context, c *client.Client, ws string, command bool, prior, planned types.Set, all types.Bool, diags *diag.Diagnostics) (send bool, only []string, ok bool) {
	if command {
		return true, nil, true
	}
	added := addedFleets(ctx, c, ws, prior, planned, all, diags)
	if diags.HasError() {
		return false, nil, false
	}
	return len(added) > 0, added, true
}

// WarnTargetsOnly adds the plan-time warning of a change of the targets
// alone of a fleet-wide scheduling (what: "job", "firmware update"): which
// fleets get it, and that the others do not get it again.
func WarnTargetsOnly(ctx context.Context, what string, prior, planned types.Set, all types.Bool, diags *diag.Diagnostics) {
	if planned.IsUnknown() || all.IsUnknown() || SameTargets(prior, planned, all) {
		return
	}
	had := kit.SetStrings(ctx, prior, diags)
	var detail string
	switch {
	case prior.IsNull():
		detail = "The " + what + " was scheduled on every fleet of the workspace: nothing is sent; the devices keep it."
	case all.ValueBool():
		detail = "Only the fleets of the workspace other than " + strings.Join(had, ", ") + " get the " + what +
			" (they are listed at apply): the devices of " + strings.Join(had, ", ") + " already have it and do not run it again."
	default:
		var added []string
		for _, id := range kit.SetStrings(ctx, planned, diags) {
			if !slices.Contains(had, id) {
				added = append(added, id)
			}
		}
		if len(added) == 0 {
			detail = "No fleet is added: nothing is sent; the devices of the fleets left out keep the " + what + "."
		} else {
			detail = "Only the added fleets " + strings.Join(added, ", ") + " get the " + what + "; the devices of " +
				strings.Join(had, ", ") + " already have it and do not run it again."
		}
	}
	diags.AddAttributeWarning(path.Root("fleet_ids"), "Only added fleets get the "+what,
		detail+" To send it again to every targeted device, change triggers.")
}

// MergeDevices is the sorted union of the devices of a list value and more.
func MergeDevices(ctx context.Context, prior types.List, more types.List, diags *diag.Diagnostics) types.List {
	var a, b []string
	diags.Append(prior.ElementsAs(ctx, &a, false)...)
	diags.Append(more.ElementsAs(ctx, &b, false)...)
	all := append(a, b...)
	slices.Sort(all)
	return kit.StringList(slices.Compact(all))
}

// ValidateStatusSets checks that the success and failure statuses of a wait
// do not overlap.
func ValidateStatusSets(ctx context.Context, success, failure types.Set, diags *diag.Diagnostics) {
	if success.IsUnknown() || failure.IsUnknown() {
		return
	}
	ok := kit.SetStrings(ctx, success, diags)
	if len(ok) == 0 {
		ok = []string{client.JobStatusDone}
	}
	for _, f := range kit.SetStrings(ctx, failure, diags) {
		if slices.Contains(ok, f) {
			diags.AddAttributeError(path.Root("failure_statuses"), "Overlapping statuses",
				"The status "+connection.Quote(f)+" is both a success status and a failure status: a status means one or the other.")
		}
	}
}

// Progress of a fleet-wide scheduling: the status of the devices it was
// scheduled on, read on refresh through the fleet-status reader.

// ProgressAttributes are the computed attributes of that progress.
var ProgressAttributes = []string{"status_counts", "devices_not_done"}

// NoRecord is the status counted for a device that shows no record of the
// job or update (never got it, or the service purged it).
const NoRecord = "no record"

// FleetProgress returns the status counts and the devices not done (whose
// status is not "done"), sorted, of the devices of a scheduling: from the
// reads when res is not nil, else all with status (what the scheduling
// answered). For a firmware update (fw not nil), a device whose update is
// another firmware counts as "replaced".
func FleetProgress(devices []string, status string, res []fleetstatus.Device, fw *fleetstatus.Firmware, done []string) (types.Map, types.List) {
	counts := map[string]int{}
	var notDone []string
	add := func(id, st string) {
		counts[st]++
		if !slices.Contains(done, st) {
			notDone = append(notDone, id)
		}
	}
	if res == nil {
		for _, id := range devices {
			add(id, status)
		}
	}
	for _, d := range res {
		switch {
		case !d.Found:
			add(d.ID, NoRecord)
		case fw != nil && !d.Has(*fw):
			add(d.ID, "replaced")
		default:
			add(d.ID, d.Status)
		}
	}
	return CountsMap(counts), kit.SortedList(notDone)
}

// ReadProgress reads the status of kind on devices (bounded concurrent
// reads) for a Read; a failure is a warning and returns ok false: progress
// is information, and the state keeps its last values.
func ReadProgress(ctx context.Context, d *connection.ProviderData, devices []string, kind fleetstatus.Kind, diags *diag.Diagnostics) ([]fleetstatus.Device, bool) {
	if len(devices) == 0 {
		return []fleetstatus.Device{}, true
	}
	res, err := fleetstatus.ReadIDs(ctx, d.Client, devices, kind, 0)
	if err != nil {
		diags.AddWarning("Cannot read the progress of the "+kind.String(),
			"Reading the "+kind.String()+" of its devices failed: "+err.Error()+". status_counts and devices_not_done "+
				"keep their last values.")
		return nil, false
	}
	return res, true
}

// ProgressSchema are the schema attributes of that progress.
func ProgressSchema(what string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"status_counts": schema.MapAttribute{
			MarkdownDescription: "How many of `devices` report each status of the " + what + ", read on every " +
				"refresh (one read per device, 16 at a time). `\"" + NoRecord + "\"` counts devices that show no " +
				"record of it (the service may purge finished records).",
			ElementType: types.Int64Type,
			Computed:    true,
		},
		"devices_not_done": schema.ListAttribute{
			MarkdownDescription: "The devices of `devices` whose " + what + " is not in a success status (`success_statuses`, " +
				"default `done`) at the last refresh, sorted.",
			ElementType: types.StringType,
			Computed:    true,
		},
	}
}

// A job value the service does not echo (a job imported, or read back
// without its value) is kept null in the state: the provider cannot know
// it. The first configured value then only records the value: sending it
// would run the job again without a change of the configuration. Changing
// triggers sends it.

// ValueNotEchoed tells whether a state's job value is unknown to the
// provider because the service did not return it (null; "null" in states
// written before it was kept null).
func ValueNotEchoed(v types.String) bool {
	return v.IsNull() || (!v.IsUnknown() && v.ValueString() == "null")
}

// EchoedJobValue is the state's value of a job read back with answer: null
// while the service has never returned it, else refreshedJSON.
func EchoedJobValue(state types.String, answer []byte) types.String {
	if kit.CompactJSON(answer) == "null" && (state.IsUnknown() || ValueNotEchoed(state)) {
		return types.StringNull()
	}
	return kit.RefreshedJSON(state, answer)
}

// ValueRecordedOnly is the warning of a change that records the configured
// value of a job whose value the service did not return, without sending.
func ValueRecordedOnly(name, dev string) (string, string) {
	return "Job value recorded, not sent",
		"The service did not return the value of job " + connection.Quote(name) + " of device " + dev + ", so the configured " +
			"value is recorded in the state and nothing is sent: sending it would run the job again. Change " +
			"triggers to send it again."
}

// FleetUpdate is what the update of a fleet-wide scheduling resource
// (zdm_fleet_job, zdm_fota) says of its plan and prior state, for
// UpdateFleetScheduling.
type FleetUpdate struct {
	// Command tells whether the command itself changed (value, firmware,
	// triggers): every target gets it again.
	Command bool
	// Workspace, the prior and planned fleet_ids, and all_fleets.
	Workspace               string
	PriorFleets, PlanFleets types.Set
	AllFleets               types.Bool
	// PriorDevices and the planned devices, which a send to added fleets
	// merges.
	PriorDevices types.List
	PlanDevices  *types.List
	// Schedule sends to every target (added nil) or to the added fleets,
	// and tells whether the service shows it scheduled.
	Schedule func(added []string) bool
	// KeepPrior gives the plan the prior scheduling when nothing is sent,
	// and tells whether the plan still waits for it.
	KeepPrior func() bool
	// Wait waits for the devices; Save saves the plan (and identity);
	// MarkWait records how the wait ended.
	Wait     func() bool
	Save     func()
	MarkWait func(ok bool)
}

// UpdateFleetScheduling is the Update of a fleet-wide scheduling resource
// whose model is M: a change of the command sends it again to every
// target; a change of the targets alone sends it only to the fleets added
// (FleetsToSend), and nothing for fleets removed or a wait setting; then,
// with wait, the devices are waited for. When nothing is shown scheduled,
// the state keeps the prior scheduling.
func UpdateFleetScheduling[M any](ctx context.Context, d *connection.ProviderData, req resource.UpdateRequest, resp *resource.UpdateResponse,
	update func(plan, prior *M) FleetUpdate) {
	if d == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	var plan, prior M
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	u := update(&plan, &prior)
	send, added, ok := FleetsToSend(ctx, d.Client, u.Workspace, u.Command, u.PriorFleets, u.PlanFleets, u.AllFleets, &resp.Diagnostics)
	if !ok {
		resp.State.Raw = req.State.Raw.Copy()
		return
	}
	if send {
		if !u.Schedule(added) {
			// Nothing shown scheduled: the state keeps the prior scheduling.
			resp.State.Raw = req.State.Raw.Copy()
			return
		}
		if added != nil {
			*u.PlanDevices = MergeDevices(ctx, u.PriorDevices, *u.PlanDevices, &resp.Diagnostics)
		}
	} else if !u.KeepPrior() {
		// No fleet added (fleets removed, all_fleets = true written for a
		// scheduling of every fleet, or only the wait attributes changed):
		// nothing is sent again, and nothing is left to wait for.
		u.Save()
		return
	}
	ok = u.Wait()
	u.Save()
	u.MarkWait(ok)
}
