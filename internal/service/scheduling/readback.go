package scheduling

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// Read-backs after a scheduling whose answer was lost (see DESIGN.md,
// "Device commands are sent exactly as often as the configuration asks"):
// the job or update is adopted only when the service shows it scheduled as
// requested, after the request and after the scheduling in the state;
// otherwise the error says it may not have reached the service, and never
// that sending again is harmless.

// ScheduledLater reports whether the RFC 3339 time a is after b (compared as
// text when either cannot be read).
func ScheduledLater(a, b string) bool {
	ta, errA := validators.ParseRFC3339(a)
	tb, errB := validators.ParseRFC3339(b)
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
	return ok && objects.CreatedAtOrAfter(scheduledAt, since)
}

// when is, for messages, the time after which a scheduling can be this
// request's: the earliest service time of the request, or the scheduling in
// the state when that is later.
func (s SentSchedule) when(c *client.Client) string {
	since, ok := c.EarliestServiceTime(s.Sent)
	if !ok {
		since = s.Sent
	}
	if p, err := validators.ParseRFC3339(s.Prior); err == nil && p.After(since) {
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
	if (!timedOut && reads >= 2) || time.Until(deadline) <= objects.RecheckInterval {
		return false
	}
	t := time.NewTimer(objects.RecheckInterval)
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
		res, rerr := ReadFleetStatus(rctx, d.Client, scope, kind, 0)
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
		got := values.CompactJSON(d.Value)
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
		fleets = " fleet_ids = [" + strings.Join(objects.QuoteAll(scope.FleetIDs), ", ") + "]"
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
	target := objects.DescribeFleets(scope.WorkspaceID, scope.FleetIDs)
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

// A change of the targets alone (fleet_ids, all_fleets) of a fleet-wide
// scheduling sends the command only to the fleets it adds: the devices of
// the fleets already targeted have it, and sending to them again would run
// it twice. Removed fleets keep what they got. A change of the command
// itself (value, firmware, triggers) sends it to every targeted fleet.

// Progress of a fleet-wide scheduling: the status of the devices it was
// scheduled on, read on refresh through the fleet-status reader.

// A job value the service does not echo (a job imported, or read back
// without its value) is kept null in the state: the provider cannot know
// it. The first configured value then only records the value: sending it
// would run the job again without a change of the configuration. Changing
// triggers sends it.
