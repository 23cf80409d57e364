package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
)

// Health is the telemetry gate of the waves (the health_check input): a
// device that reached a success status is healthy once it has published a
// data point with Tag after its success, within Within of it, and the
// first such point meets the condition (Field equals Equals) when there is
// one. A device that does not publish in time, or whose first point fails
// the condition, is unhealthy and counts against max_failure_ratio like a
// failed one.
type Health struct {
	Tag string
	// Field is the path of the payload field compared, one key (or array
	// index) per element; nil for no condition.
	Field []string
	// Equals is the JSON value the field must equal (compared as
	// jsonvalue.Equal); used with Field.
	Equals string
	// Within is how long after its success a device has to publish.
	Within time.Duration
}

// DataReader reads one page of the stored data points of a workspace;
// *client.Client is one.
type DataReader interface {
	GetData(ctx context.Context, workspaceID string, q client.DataQuery) ([]client.DataPoint, error)
}

// ParseField splits a payload field path: keys separated by dots
// ("status.boot.ok"); a key that is a number also indexes an array.
func ParseField(s string) ([]string, error) {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		if strings.TrimSpace(p) == "" {
			return nil, fmt.Errorf("%q has an empty key at position %d: write keys separated by single dots, "+
				"such as \"status.ok\"", s, i+1)
		}
	}
	return parts, nil
}

// fieldText names the field in messages: "payload.status.ok".
func (h Health) fieldText() string { return "payload." + strings.Join(h.Field, ".") }

// field returns the value at path in payload, compact, and whether it is
// there.
func field(payload json.RawMessage, path []string) (string, bool) {
	cur := payload
	for _, key := range path {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(cur, &obj); err == nil && obj != nil {
			v, ok := obj[key]
			if !ok {
				return "", false
			}
			cur = v
			continue
		}
		var arr []json.RawMessage
		i, err := strconv.Atoi(key)
		if json.Unmarshal(cur, &arr) != nil || err != nil || i < 0 || i >= len(arr) {
			return "", false
		}
		cur = arr[i]
	}
	return string(jsonvalue.Compact(cur, nil)), true
}

// meets reports whether a point's payload meets the condition, and else
// why not.
func (h Health) meets(payload json.RawMessage) (bool, string) {
	if len(h.Field) == 0 {
		return true, ""
	}
	got, ok := field(payload, h.Field)
	if !ok {
		return false, fmt.Sprintf("%s point without %s", h.Tag, h.fieldText())
	}
	if !jsonvalue.Equal(got, h.Equals) {
		return false, fmt.Sprintf("%s point with %s = %s, not %s", h.Tag, h.fieldText(), abbreviateText(got), h.Equals)
	}
	return true, ""
}

// abbreviateText keeps a value short in messages.
func abbreviateText(s string) string {
	const most = 64
	if len(s) <= most {
		return s
	}
	return s[:most] + "..."
}

// healthWindow is when a device's point counts: at or after From (the
// device was last seen not done then, or the wave started), before Until
// (Within after the device was seen done).
type healthWindow struct{ From, Until time.Time }

// verdict is a device's health: decided, and if so healthy or why not.
type verdict struct {
	decided, healthy bool
	why              string
}

// verdicts decides the health of the devices of windows from points (any
// order; points of other devices or tags are ignored): the first point of a
// device in its window decides; a device without one is unhealthy once now
// is settle past its window (time for a point published just in time to
// reach the storage service), and undecided before.
func verdicts(h Health, windows map[string]healthWindow, points []client.DataPoint, now time.Time, settle time.Duration) map[string]verdict {
	type first struct {
		at      time.Time
		payload json.RawMessage
	}
	firsts := map[string]first{}
	for _, p := range points {
		w, ok := windows[p.DeviceID]
		if !ok || p.Tag != h.Tag {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, p.TimestampDevice)
		if err != nil || at.Before(w.From) || !at.Before(w.Until) {
			continue
		}
		if f, ok := firsts[p.DeviceID]; !ok || at.Before(f.at) {
			firsts[p.DeviceID] = first{at, p.Payload}
		}
	}
	out := make(map[string]verdict, len(windows))
	for id, w := range windows {
		if f, ok := firsts[id]; ok {
			ok, why := h.meets(f.payload)
			out[id] = verdict{decided: true, healthy: ok, why: why}
			continue
		}
		if !now.Before(w.Until.Add(settle)) {
			out[id] = verdict{decided: true, why: fmt.Sprintf("no %s point within %s of success", h.Tag, h.Within)}
			continue
		}
		out[id] = verdict{}
	}
	return out
}

// Storage query bounds.
const (
	// maxDeviceQuery bounds the length of the device filters of one
	// storage query (the escaped "device=..." parameters), so that its
	// address stays well below the 8 KiB many servers and proxies accept.
	maxDeviceQuery = 2000
	// healthPageSize is the page size of the storage queries.
	healthPageSize = 1000
	// maxHealthPages bounds the pages read per chunk of devices and poll.
	maxHealthPages = 100
	// maxSettle bounds the time after a device's window the gate waits for
	// a point published in time to reach the storage service (one poll
	// interval, at most this).
	maxSettle = 30 * time.Second
)

// deviceChunks splits ids into groups whose device filters stay within
// maxDeviceQuery characters of query (at least one ID a group).
func deviceChunks(ids []string) [][]string {
	limit := maxDeviceQuery
	var out [][]string
	var cur []string
	size := 0
	for _, id := range ids {
		n := len("&device=") + len(url.QueryEscape(id))
		if len(cur) > 0 && size+n > limit {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, id)
		size += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// ReadWavePoints is the storage read of one poll of the health gate of a
// wave: the points of tag published by the devices ids from start on, with
// the same chunks and pages as the gate (see readPoints).
func ReadWavePoints(ctx context.Context, r DataReader, workspaceID, tag string, ids []string, start time.Time) ([]client.DataPoint, error) {
	return readPoints(ctx, r, workspaceID, tag, ids, start)
}

// DeviceChunks is the number of storage queries (before pages) of one poll
// of the health gate of the devices ids.
func DeviceChunks(ids []string) int { return len(deviceChunks(ids)) }

// readPoints reads the points of tag published by ids from start on:
// one query per chunk of device filters (deviceChunks), every page, in
// ascending time.
func readPoints(ctx context.Context, r DataReader, workspaceID, tag string, ids []string, start time.Time) ([]client.DataPoint, error) {
	var out []client.DataPoint
	for _, chunk := range deviceChunks(ids) {
		for page := 0; ; page++ {
			if page == maxHealthPages {
				return nil, fmt.Errorf("more than %d pages of %d %q points from %s on: publish the health tag less "+
					"often, or use a tag the devices publish once after an update", maxHealthPages, healthPageSize,
					tag, start.UTC().Format(time.RFC3339))
			}
			from, size := page, healthPageSize
			got, err := r.GetData(ctx, workspaceID, client.DataQuery{
				Start: start.UTC().Format(time.RFC3339Nano), From: &from, Size: &size,
				Sort: "timestamp_device", Devices: chunk, Tags: []string{tag},
			})
			if err != nil {
				return nil, err
			}
			out = append(out, got...)
			if len(got) < size {
				break
			}
		}
	}
	return out, nil
}

// healthResult is what the health gate of a wave saw: the devices healthy,
// unhealthy (with why) and not decided yet, sorted.
type healthResult struct {
	Healthy, Unhealthy, Undecided []string
	Why                           map[string]string
}

// StorageError is the error of a health gate that could not read the
// storage service.
type StorageError struct{ Err error }

func (e *StorageError) Error() string {
	if client.IsStatus(e.Err, http.StatusForbidden) {
		return "health_check could not read the time-series storage: it answered 403, the storage service is " +
			"not enabled for the workspace (or the API key may not read it). Enable the storage service for the " +
			"workspace, or remove health_check; then apply (or invoke the action) again: " + e.Err.Error()
	}
	return "health_check could not read the time-series storage: " + e.Err.Error()
}

func (e *StorageError) Unwrap() error { return e.Err }

// window is when the point of a device counts: from the latest moment it
// is known not to have succeeded yet (the start of the last read that found
// it not done, or when its command was scheduled; the wave's start when
// neither is known), until within after the read that found it done.
func window(seen fleetstatus.Seen, scheduledAt, waveStart time.Time, within time.Duration, now func() time.Time) healthWindow {
	from := seen.Pending
	if scheduledAt.After(from) {
		from = scheduledAt
	}
	if from.IsZero() {
		from = waveStart
	}
	done := seen.Done
	if done.IsZero() {
		done = now()
	}
	return healthWindow{From: from, Until: done.Add(within)}
}

// checkHealth polls the storage service every interval until each device
// of windows has a verdict, or more than maxUnhealthy of them (failed
// counts against it too) are unhealthy once at least minReported devices
// (failed ones included) reported. The queries read from the earliest
// start of a window on.
func checkHealth(ctx context.Context, r DataReader, spec Spec, windows map[string]healthWindow,
	failed, maxUnhealthy, minReported int, now func() time.Time, progress Progress) (healthResult, error) {
	h := *spec.Health
	res := healthResult{Why: map[string]string{}}
	pending := map[string]healthWindow{}
	for id, w := range windows {
		pending[id] = w
	}
	interval := spec.PollInterval
	if interval <= 0 {
		interval = 5 * time.Second
	}
	settle := min(interval, maxSettle)
	for {
		ids := slices.Sorted(func(yield func(string) bool) {
			for id := range pending {
				if !yield(id) {
					return
				}
			}
		})
		if len(ids) > 0 {
			at := now()
			var start time.Time
			for i, id := range ids {
				if f := pending[id].From; i == 0 || f.Before(start) {
					start = f
				}
			}
			points, err := readPoints(ctx, r, spec.WorkspaceID, h.Tag, ids, start)
			if err != nil {
				if ctx.Err() != nil {
					return res.sorted(pending), ctx.Err()
				}
				return res.sorted(pending), &StorageError{Err: err}
			}
			newly := 0
			for id, v := range verdicts(h, pending, points, at, settle) {
				if !v.decided {
					continue
				}
				delete(pending, id)
				newly++
				if v.healthy {
					res.Healthy = append(res.Healthy, id)
				} else {
					res.Unhealthy = append(res.Unhealthy, id)
					res.Why[id] = v.why
				}
			}
			if newly > 0 || len(pending) > 0 {
				progress(fmt.Sprintf("health_check (%s): %d healthy, %d unhealthy, %d waiting", h.Tag,
					len(res.Healthy), len(res.Unhealthy), len(pending)))
			}
		}
		reported := failed + len(res.Healthy) + len(res.Unhealthy)
		if (failed+len(res.Unhealthy) > maxUnhealthy && reported >= minReported) || len(pending) == 0 {
			return res.sorted(pending), nil
		}
		// Wait for the next poll, or until the earliest window closes.
		wait := interval
		for _, w := range pending {
			wait = min(wait, max(w.Until.Add(settle).Sub(now()), 0)+time.Millisecond)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return res.sorted(pending), ctx.Err()
		case <-t.C:
		}
	}
}

// sorted sorts the result's lists, with the devices of pending undecided.
func (r healthResult) sorted(pending map[string]healthWindow) healthResult {
	for id := range pending {
		r.Undecided = append(r.Undecided, id)
	}
	slices.Sort(r.Healthy)
	slices.Sort(r.Unhealthy)
	slices.Sort(r.Undecided)
	return r
}

// HealthCounts are the health verdicts of a wave: Unhealthy counts the
// devices that failed (or were not done in time), published no point in
// time, or whose point failed the condition.
type HealthCounts struct{ Healthy, Unhealthy int }

// serviceNow is the clock of the health gate: the service's, as far as its
// answers tell (client.EarliestServiceTime), else this machine's.
func serviceNow(c *client.Client) func() time.Time {
	return func() time.Time {
		t := time.Now()
		if c != nil {
			if s, ok := c.EarliestServiceTime(t); ok {
				return s
			}
		}
		return t
	}
}

// healthGate runs the health gate of a wave whose wait ended with res
// (passed, or passing at its timeout): the devices that succeeded get a
// verdict, the others count as unhealthy. It records the counts in w and
// returns the error that stops the rollout, if any.
func healthGate(ctx context.Context, c *client.Client, spec Spec, w *WaveRecord, members []string,
	res fleetstatus.WaitResult, label string, now func() time.Time, progress Progress) error {
	r := spec.Data
	if r == nil {
		r = c
	}
	scheduled := map[string]time.Time{}
	for _, d := range res.Devices {
		if t, err := time.Parse(time.RFC3339Nano, d.ScheduledAt); err == nil {
			scheduled[d.ID] = t
		}
	}
	windows := make(map[string]healthWindow, len(res.Succeeded))
	for _, id := range res.Succeeded {
		windows[id] = window(res.Seen[id], scheduled[id], w.StartedAt, spec.Health.Within, now)
	}
	notOK := slices.Concat(res.Failed, res.Pending)
	slices.Sort(notOK)
	limit := MaxFailures(spec.MaxFailureRatio, len(members))
	progress(fmt.Sprintf("%s: health_check: waiting for a %q point from %d devices (within %s of success)", label,
		spec.Health.Tag, len(windows), spec.Health.Within))
	hr, err := checkHealth(ctx, r, spec, windows, len(notOK), limit, min(spec.MinReported, len(members)), now,
		func(s string) { progress(label + ": " + s) })
	w.Health = &HealthCounts{Healthy: len(hr.Healthy), Unhealthy: len(notOK) + len(hr.Unhealthy)}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: stopped during the health check: %w", label, err)
		}
		return fmt.Errorf("%s: %w", label, err)
	}
	unhealthy := len(notOK) + len(hr.Unhealthy)
	if unhealthy <= limit {
		progress(fmt.Sprintf("%s: health_check passed: %d healthy, %d unhealthy of %d devices", label,
			len(hr.Healthy), unhealthy, len(members)))
		return nil
	}
	parts := make([]string, 0, len(hr.Unhealthy)+1)
	if len(notOK) > 0 {
		parts = append(parts, res.Describe(notOK))
	}
	named := hr.Unhealthy[:min(len(hr.Unhealthy), 100)]
	for _, id := range named {
		parts = append(parts, id+" ("+hr.Why[id]+")")
	}
	if more := len(hr.Unhealthy) - len(named); more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	msg := fmt.Sprintf("%s stopped the rollout: %d of %d devices are unhealthy, more than max_failure_ratio %g "+
		"allows (%d). Unhealthy: %s", label, unhealthy, len(members), spec.MaxFailureRatio, limit,
		strings.Join(parts, ", "))
	if len(hr.Undecided) > 0 {
		msg += fmt.Sprintf("; not checked yet: %s", abbreviate(hr.Undecided))
	}
	return errors.New(msg)
}
