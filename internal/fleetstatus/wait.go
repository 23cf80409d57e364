package fleetstatus

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// StatusDone is the success status unless the caller names others.
const StatusDone = client.JobStatusDone

// WaitOptions shape Wait.
type WaitOptions struct {
	Kind Kind
	// Firmware, for the firmware update, is the update waited for: a device
	// whose current update is another firmware has failed (its status reads
	// "replaced by <id> <version>"), as something else replaced it.
	Firmware *Firmware
	// Replaced, when set, tells a device found with another job or update
	// than the one waited for (such as a job of the same name with another
	// value): it returns the device's status text ("replaced by ..."), and
	// the device has failed; "" when the device holds the one waited for.
	Replaced func(Device) string
	// Success are the statuses that finish a device well (default "done").
	Success []string
	// Failure are the statuses that finish a device badly.
	Failure []string
	// MaxFailures is how many failed devices are tolerated: one more stops
	// the wait at once. Zero stops at the first failure.
	MaxFailures int
	// MinReported is how many devices must have finished (succeeded or
	// failed) before failures can stop the wait early; zero: no minimum.
	// Once every device finished, failures stop it whatever the minimum.
	MinReported int
	// Timeout bounds the wait; Interval separates the polls.
	Timeout, Interval time.Duration
	// Parallel bounds the reads in flight (0: DefaultParallelism).
	Parallel int
	// Progress, when set, receives a line when devices finish or, while
	// none does, after each poll.
	Progress func(string)
	// Clock, when set, is the clock of the read times in WaitResult
	// (default time.Now).
	Clock func() time.Time
}

// WaitResult is what Wait saw last.
type WaitResult struct {
	// Devices holds the last status read of each device, sorted by ID.
	Devices []Device
	// Succeeded, Failed and Pending are device IDs, sorted.
	Succeeded, Failed, Pending []string
	// Seen brackets when each device that finished did: after Seen[id].Pending
	// (the start of the last read that found it not finished; zero when the
	// first read found it finished) and at the latest Seen[id].Done (the end
	// of the read that found it finished).
	Seen map[string]Seen
}

// Seen brackets the moment a device finished (see WaitResult.Seen).
type Seen struct{ Pending, Done time.Time }

// WaitError is the error of a wait that ended before every device
// succeeded: Reason is "failed" (more than MaxFailures devices failed),
// "timeout" or "stopped" (the context ended).
type WaitError struct {
	Reason string
	What   string
	Result WaitResult
	// Timeout is the wait's bound (reason "timeout").
	Timeout time.Duration
	// Cause is the context's error (reason "stopped").
	Cause error
}

func (e *WaitError) Error() string {
	r := e.Result
	total := len(r.Succeeded) + len(r.Failed) + len(r.Pending)
	switch e.Reason {
	case "failed":
		msg := fmt.Sprintf("%s failed on %d of %d devices: %s", e.What, len(r.Failed), total, r.describe(r.Failed))
		if len(r.Pending) > 0 {
			msg += fmt.Sprintf("; not done on %d: %s", len(r.Pending), r.describe(r.Pending))
		}
		return msg
	case "timeout":
		msg := fmt.Sprintf("%s is not done after %s on %d of %d devices: %s", e.What, e.Timeout, len(r.Pending), total,
			r.describe(r.Pending))
		if len(r.Failed) > 0 {
			msg += fmt.Sprintf("; failed on %d: %s", len(r.Failed), r.describe(r.Failed))
		}
		return msg
	default:
		return fmt.Sprintf("stopped waiting for %s (%d of %d devices not done: %s): %v", e.What, len(r.Pending), total,
			r.describe(r.Pending), e.Cause)
	}
}

func (e *WaitError) Unwrap() error { return e.Cause }

// describe lists devices with their last status, at most 100.
func (r WaitResult) describe(ids []string) string {
	const most = 100
	status := make(map[string]string, len(r.Devices))
	for _, d := range r.Devices {
		status[d.ID] = d.statusText()
	}
	parts := make([]string, 0, min(len(ids), most))
	for _, id := range ids[:min(len(ids), most)] {
		parts = append(parts, id+" ("+status[id]+")")
	}
	s := strings.Join(parts, ", ")
	if len(ids) > most {
		s += fmt.Sprintf(" and %d more", len(ids)-most)
	}
	return s
}

// statusText is the status of d in messages.
func (d Device) statusText() string {
	if !d.Found {
		return "not scheduled"
	}
	if d.Status == "" {
		return "no status"
	}
	return d.Status
}

// Describe lists devices with their last status for messages (at most 100
// named).
func (r WaitResult) Describe(ids []string) string { return r.describe(ids) }

// Wait polls the status of opts.Kind on the devices every Interval until
// each reports a success or a failure status. It returns a *WaitError as
// soon as more than MaxFailures devices failed (without waiting for the
// others), when Timeout passes, or when ctx ends. Devices that finished are
// not read again.
func Wait(ctx context.Context, c *client.Client, ids []string, opts WaitOptions) (WaitResult, error) {
	success := opts.Success
	if len(success) == 0 {
		success = []string{StatusDone}
	}
	what := opts.Kind.String()
	if opts.Firmware != nil {
		what = fmt.Sprintf("firmware update %s %s", opts.Firmware.ID, opts.Firmware.Version)
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string) {}
	}
	interval := opts.Interval
	if interval <= 0 {
		interval = 5 * time.Second
	}

	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	seen := map[string]Seen{}
	pendingAt := map[string]time.Time{}
	last := make(map[string]Device, len(ids))
	pending := slices.Sorted(slices.Values(ids))
	pending = slices.Compact(pending)
	total := len(pending)
	var succeeded, failed []string
	result := func() WaitResult {
		devs := make([]Device, 0, len(last))
		for _, id := range ids {
			if d, ok := last[id]; ok {
				devs = append(devs, d)
			} else {
				devs = append(devs, Device{ID: id})
			}
		}
		slices.SortFunc(devs, func(a, b Device) int { return strings.Compare(a.ID, b.ID) })
		devs = slices.CompactFunc(devs, func(a, b Device) bool { return a.ID == b.ID })
		return WaitResult{Devices: devs, Succeeded: slices.Sorted(slices.Values(succeeded)),
			Failed: slices.Sorted(slices.Values(failed)), Pending: slices.Clone(pending), Seen: maps.Clone(seen)}
	}

	deadline := time.Now().Add(opts.Timeout)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return result(), &WaitError{Reason: "stopped", What: what, Result: result(), Cause: ctx.Err()}
		case <-timer.C:
		}
		if len(pending) > 0 {
			readStart := clock()
			got, err := ReadIDs(ctx, c, pending, opts.Kind, opts.Parallel)
			readEnd := clock()
			if err != nil {
				if ctx.Err() != nil {
					return result(), &WaitError{Reason: "stopped", What: what, Result: result(), Cause: ctx.Err()}
				}
				return result(), fmt.Errorf("waiting for %s: %w", what, err)
			}
			var still, newlyOK, newlyFailed []string
			for _, d := range got {
				if opts.Firmware != nil && d.Found && !d.Has(*opts.Firmware) {
					d.Status = fmt.Sprintf("replaced by %s %s", d.FirmwareID, d.FirmwareVersion)
					last[d.ID] = d
					newlyFailed = append(newlyFailed, d.ID)
					continue
				}
				if opts.Replaced != nil && d.Found {
					if text := opts.Replaced(d); text != "" {
						d.Status = text
						last[d.ID] = d
						newlyFailed = append(newlyFailed, d.ID)
						continue
					}
				}
				last[d.ID] = d
				switch {
				case d.Found && slices.Contains(success, d.Status):
					newlyOK = append(newlyOK, d.ID)
				case d.Found && slices.Contains(opts.Failure, d.Status):
					newlyFailed = append(newlyFailed, d.ID)
				default:
					still = append(still, d.ID)
				}
			}
			for _, id := range still {
				pendingAt[id] = readStart
			}
			for _, id := range slices.Concat(newlyOK, newlyFailed) {
				seen[id] = Seen{Pending: pendingAt[id], Done: readEnd}
			}
			pending = still
			succeeded = append(succeeded, newlyOK...)
			failed = append(failed, newlyFailed...)
			done := total - len(pending)
			switch {
			case len(newlyOK)+len(newlyFailed) > 0:
				msg := fmt.Sprintf("%s: %d of %d devices done", upperFirst(what), done, total)
				if len(failed) > 0 {
					msg += fmt.Sprintf(", %d failed", len(failed))
				}
				if len(newlyFailed) > 0 {
					msg += " (failed: " + result().describe(newlyFailed) + ")"
				}
				progress(msg)
			case len(pending) > 0:
				progress(fmt.Sprintf("Waiting for %s on %d of %d devices", what, len(pending), total))
			}
		}
		if len(failed) > opts.MaxFailures && (len(pending) == 0 || total-len(pending) >= opts.MinReported) {
			r := result()
			return r, &WaitError{Reason: "failed", What: what, Result: r}
		}
		if len(pending) == 0 {
			return result(), nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			r := result()
			return r, &WaitError{Reason: "timeout", What: what, Result: r, Timeout: opts.Timeout}
		}
		timer.Reset(min(interval, left))
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
