package rollout

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
)

// Statuses of a rollout.
const (
	StatusCompleted = "completed"
	StatusStopped   = "stopped"
)

// Spec is what a rollout is asked to do.
type Spec struct {
	WorkspaceID string
	// FleetIDs are the target fleets; nil means every fleet of the
	// workspace (the caller has checked that this was asked explicitly).
	FleetIDs []string
	// Command is what is scheduled on each device, and how its status is
	// read (FOTA or Job).
	Command Command
	Salt    string
	Waves   []Wave
	// Success and Failure are the statuses that end a device's update well
	// or badly (Success defaults to "done"; a job has no failure status).
	Success, Failure []string
	// MaxFailureRatio is the share of a wave's devices allowed to fail.
	MaxFailureRatio float64
	WaveTimeout     time.Duration
	PollInterval    time.Duration
	// Pause separates the waves.
	Pause time.Duration
	// Parallel bounds the requests in flight (reads and schedules).
	Parallel int
	// Health, when set, is the telemetry gate of the waves (see Health).
	Health *Health
	// Data reads the storage service for Health; nil: the client.
	Data DataReader
	// MinReported is how many devices of a wave must have reported
	// (succeeded, failed, or got a health verdict) before failures can stop
	// the wave early; 0: no minimum. A wave smaller needs all of them.
	MinReported int
	// MaxPerMinute paces the schedules: at most that many devices a
	// minute; 0: no pacing.
	MaxPerMinute int
	// Windows are the maintenance windows: a wave starts only inside one.
	// None: any time.
	Windows []Window
	// WindowWait is how long a run waits for the next window to open
	// before a wave; beyond it, the run stops with an *OutsideWindowError.
	WindowWait time.Duration
	// Clock paces the schedules and waits for the windows; nil: the
	// machine's clock.
	Clock Clock
}

// Identity is the spec's identity (see Identity).
func (s Spec) Identity() string {
	return Identity(s.WorkspaceID, s.Command, s.Salt)
}

// WaveRecord is what a run did in one wave.
type WaveRecord struct {
	// Name is the wave as written ("10%").
	Name string
	// DeviceIDs are the devices of the wave that have the command: those
	// the rollout scheduled and those found with it already, sorted.
	DeviceIDs []string
	// Scheduled is how many of them the rollout scheduled itself.
	Scheduled int
	// Complete is set once the wave passed its health gate.
	Complete bool
	// Counts are the devices of the wave per status, as last read.
	Counts map[string]int
	// StartedAt is when the wave started, on the service's clock as far as
	// it is known (zero until then; kept across runs).
	StartedAt time.Time
	// Health holds the verdicts of the health gate, nil without one.
	Health *HealthCounts
}

// Record is what the runs of a rollout did; the resource keeps it in its
// state so that a later run resumes.
type Record struct {
	Status    string
	StartedAt time.Time
	Waves     []WaveRecord
	// NextWindowOpensAt is when the next maintenance window opens, set
	// while the last run waited for one or stopped outside them.
	NextWindowOpensAt time.Time
}

// WavesCompleted is the number of waves, from the first, that passed their
// gate.
func (r Record) WavesCompleted() int {
	n := 0
	for _, w := range r.Waves {
		if !w.Complete {
			break
		}
		n++
	}
	return n
}

// Devices returns every device the record holds, sorted.
func (r Record) Devices() []string {
	var out []string
	for _, w := range r.Waves {
		out = append(out, w.DeviceIDs...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Progress receives one line per step of a run.
type Progress func(string)

// Run runs the rollout of spec, resuming prior (nil for a first run), and
// returns the record of what happened, also when it fails: the caller saves
// it. A wave prior marks complete is not gated again; no device prior holds,
// nor any device that already has the command, is scheduled again.
func Run(ctx context.Context, c *client.Client, spec Spec, prior *Record, progress Progress) (Record, error) {
	if progress == nil {
		progress = func(string) {}
	}
	rec := newRecord(spec, prior)
	now := serviceNow(c)
	pace := newPacer(spec.clock(), spec.MaxPerMinute)
	sends.enter()
	defer sends.leave()
	rd := newReads(spec.clock())
	devices, err := fleetstatus.ListDevices(ctx, c, fleetstatus.Scope{WorkspaceID: spec.WorkspaceID, FleetIDs: spec.FleetIDs})
	if err != nil {
		rec.Status = StatusStopped
		return rec, err
	}
	if rec.StartedAt.IsZero() {
		rec.StartedAt = startTime(devices)
	}
	// Only the devices that may be late (created since the start, not
	// recorded) are read now: whether one already has the command decides
	// its wave. Every other device is read right before its wave's sends
	// (schedule), the read that decides them.
	if err := rd.read(ctx, c, spec, lateCandidates(rec, devices)); err != nil {
		rec.Status = StatusStopped
		return rec, err
	}
	plan := assign(spec, rec, devices, rd.hasIt)
	progress(fmt.Sprintf("Rollout of %s: %d devices in %d waves (%s)",
		spec.Command, len(devices), len(spec.Waves), describeWaves(spec.Waves, plan)))

	for k := range spec.Waves {
		w := &rec.Waves[k]
		label := fmt.Sprintf("Wave %d of %d (%s)", k+1, len(spec.Waves), w.Name)
		if w.Complete {
			progress(label + ": complete already")
			continue
		}
		members := plan[k]
		if err := awaitWindow(ctx, spec, &rec, label, progress); err != nil {
			rec.Status = StatusStopped
			return rec, err
		}
		if w.StartedAt.IsZero() {
			w.StartedAt = now()
		}
		for {
			closed, err := schedule(ctx, c, spec, w, members, rd, pace, label, progress)
			if err != nil {
				rec.Status = StatusStopped
				return rec, err
			}
			if !closed {
				break
			}
			// The window closed while the wave was being scheduled: what was
			// sent is recorded; the rest waits for the next window.
			progress(fmt.Sprintf("%s: the maintenance window closed; %d of the wave's %d devices have %s",
				label, len(w.DeviceIDs), len(members), spec.Command))
			if err := awaitWindow(ctx, spec, &rec, label, progress); err != nil {
				var ow *OutsideWindowError
				if errors.As(err, &ow) {
					ow.Closed, ow.Have, ow.Of = true, len(w.DeviceIDs), len(members)
				}
				rec.Status = StatusStopped
				return rec, err
			}
		}
		if len(members) == 0 {
			w.Complete = true
			w.Counts = map[string]int{}
			progress(label + ": no devices")
			continue
		}
		opts := fleetstatus.WaitOptions{
			Kind: spec.Command.Kind(), Success: spec.Success, Failure: spec.Failure,
			MaxFailures: MaxFailures(spec.MaxFailureRatio, len(members)), Timeout: spec.WaveTimeout,
			MinReported: min(spec.MinReported, len(members)),
			Interval:    spec.PollInterval, Parallel: spec.Parallel,
			Progress: func(s string) { progress(label + ": " + s) },
		}
		opts.Clock = now
		spec.Command.waitOptions(&opts)
		res, err := fleetstatus.Wait(ctx, c, members, opts)
		// What was read before this wave no longer decides the next one's
		// sends: its devices are read again first.
		rd.expire()
		w.Counts = countStatuses(res.Devices)
		if err != nil && !passesAtTimeout(spec, len(members), err) {
			rec.Status = StatusStopped
			return rec, gateError(label, spec, len(members), err)
		}
		if spec.Health != nil {
			if herr := healthGate(ctx, c, spec, w, members, res, label, now, progress); herr != nil {
				rec.Status = StatusStopped
				return rec, herr
			}
		}
		w.Complete = true
		if err != nil {
			progress(fmt.Sprintf("%s: complete, %d of %d devices done; %d not done after wave_timeout %s count as "+
				"failed, within max_failure_ratio %g (%d)", label, len(res.Succeeded), len(members),
				len(res.Failed)+len(res.Pending), spec.WaveTimeout, spec.MaxFailureRatio,
				MaxFailures(spec.MaxFailureRatio, len(members))))
		} else {
			progress(fmt.Sprintf("%s: complete, %d of %d devices succeeded", label, len(res.Succeeded), len(members)))
		}
		if k < len(spec.Waves)-1 && spec.Pause > 0 {
			progress(fmt.Sprintf("Pausing %s before wave %d", spec.Pause, k+2))
			t := time.NewTimer(spec.Pause)
			select {
			case <-ctx.Done():
				t.Stop()
				rec.Status = StatusStopped
				return rec, fmt.Errorf("stopped during the pause after %s: %w", strings.ToLower(label[:1])+label[1:], ctx.Err())
			case <-t.C:
			}
		}
	}
	rec.Status = StatusCompleted
	progress(fmt.Sprintf("Rollout of %s complete on %d devices", spec.Command, len(devices)))
	return rec, nil
}

// lateCandidates are the devices assign may place in the last wave as
// created since the rollout started: not recorded in a wave, created after
// rec.StartedAt.
func lateCandidates(rec Record, devices []client.Device) []string {
	recorded := map[string]bool{}
	for _, w := range rec.Waves {
		for _, id := range w.DeviceIDs {
			recorded[id] = true
		}
	}
	var ids []string
	for _, d := range devices {
		if createdAfter(d, rec.StartedAt) && !recorded[d.ID] {
			ids = append(ids, d.ID)
		}
	}
	return ids
}

// createdAfter tells whether the service created d after t; a device whose
// creation time does not parse was not (it goes to the waves, not late).
func createdAfter(d client.Device, t time.Time) bool {
	c, err := time.Parse(time.RFC3339Nano, d.CreatedAt)
	return err == nil && c.After(t)
}

// startTime is the start of a rollout without a prior record, on the
// service's clock: the creation of the newest target device, so that every
// device listed now is part of the waves and only devices created later
// count as late.
func startTime(devices []client.Device) time.Time {
	var newest time.Time
	for _, d := range devices {
		if t, err := time.Parse(time.RFC3339Nano, d.CreatedAt); err == nil && t.After(newest) {
			newest = t
		}
	}
	if newest.IsZero() {
		return time.Now().UTC()
	}
	return newest
}

// newRecord starts from a copy of prior, with one wave record per wave of
// spec. Devices recorded in waves that spec no longer has go to its last
// wave, not complete.
func newRecord(spec Spec, prior *Record) Record {
	rec := Record{Waves: make([]WaveRecord, len(spec.Waves))}
	for k, w := range spec.Waves {
		rec.Waves[k].Name = w.Text
	}
	if prior == nil {
		return rec
	}
	rec.StartedAt = prior.StartedAt
	last := len(spec.Waves) - 1
	for k, pw := range prior.Waves {
		i := min(k, last)
		w := &rec.Waves[i]
		w.DeviceIDs = append(w.DeviceIDs, pw.DeviceIDs...)
		w.Scheduled += pw.Scheduled
		if k <= last {
			w.StartedAt = pw.StartedAt
		}
		if k <= last && pw.Complete {
			w.Complete = true
			w.Counts = pw.Counts
			w.Health = pw.Health
		}
	}
	for k := range rec.Waves {
		slices.Sort(rec.Waves[k].DeviceIDs)
		rec.Waves[k].DeviceIDs = slices.Compact(rec.Waves[k].DeviceIDs)
	}
	return rec
}

// assign places every target device in a wave: recorded devices stay in
// their wave; the others, in the rollout's order, fill each wave up to its
// reach of the devices there were when the rollout started; devices created
// since, and those whose place is in a wave already complete (they joined
// the fleets since), go to the last wave. A complete wave is never given a
// device it did not have: it is not run again, so the device would be
// skipped.
func assign(spec Spec, rec Record, devices []client.Device, has func(string) bool) [][]string {
	plan := make([][]string, len(spec.Waves))
	placed := map[string]bool{}
	target := map[string]bool{}
	for _, d := range devices {
		target[d.ID] = true
	}
	for k, w := range rec.Waves {
		for _, id := range w.DeviceIDs {
			if target[id] && !placed[id] {
				plan[k] = append(plan[k], id)
				placed[id] = true
			}
		}
	}
	var base []string
	var late []string
	for _, d := range devices {
		if placed[d.ID] {
			continue
		}
		if createdAfter(d, rec.StartedAt) && !has(d.ID) {
			late = append(late, d.ID)
			continue
		}
		base = append(base, d.ID)
	}
	order := Order(spec.Identity(), base)
	n := len(placed) + len(order)
	reached := 0
	var joined []string
	for k, w := range spec.Waves {
		reached += len(plan[k])
		for reached < w.Reach(n) && len(order) > 0 {
			if rec.Waves[k].Complete {
				// Not recorded in a wave that is done: the device joined the
				// fleets since (moved in, or created within the clock's
				// precision); it goes to the last wave.
				joined = append(joined, order[0])
			} else {
				plan[k] = append(plan[k], order[0])
			}
			order = order[1:]
			reached++
		}
	}
	last := len(spec.Waves) - 1
	plan[last] = append(plan[last], order...)
	plan[last] = append(plan[last], joined...)
	plan[last] = append(plan[last], Order(spec.Identity(), late)...)
	return plan
}

// schedule schedules the command on the members of a wave that neither
// have it nor are recorded, parallel at a time, and records every member
// that has it. Right before, the members whose read is old (a wave waited
// since, or a paced send comes long after it) are read again; a send of the
// same command to the same device by another run of this process is waited
// for and counted (see ledger.go). No send starts outside the maintenance
// windows: when the window closes, the sends stop and closed is true. A
// request already sent is finished even when ctx ends; no new one starts
// after.
func schedule(ctx context.Context, c *client.Client, spec Spec, w *WaveRecord, members []string, rd *reads,
	pace *pacer, label string, progress Progress) (closed bool, err error) {
	recorded := map[string]bool{}
	for _, id := range w.DeviceIDs {
		recorded[id] = true
	}
	defer func() {
		slices.Sort(w.DeviceIDs)
		w.DeviceIDs = slices.Compact(w.DeviceIDs)
	}()
	pick := func(ids []string) []string {
		var todo []string
		for _, id := range ids {
			switch {
			case recorded[id]:
			case rd.hasIt(id):
				w.DeviceIDs = append(w.DeviceIDs, id)
				recorded[id] = true
			default:
				todo = append(todo, id)
			}
		}
		return todo
	}
	todo := pick(members)
	var old []string
	for _, id := range todo {
		if rd.old(id) {
			old = append(old, id)
		}
	}
	if len(old) > 0 {
		progress(fmt.Sprintf("%s: reading %d devices again before scheduling", label, len(old)))
		if err := rd.read(ctx, c, spec, old); err != nil {
			return false, fmt.Errorf("%s: reading the devices before scheduling: %w", label, err)
		}
		todo = pick(todo)
	}
	if len(todo) == 0 {
		if len(members) > 0 && w.Scheduled == 0 {
			progress(fmt.Sprintf("%s: all %d devices have %s already", label, len(members), spec.Command))
		}
		return false, nil
	}
	progress(fmt.Sprintf("%s: scheduling %s on %d devices (%d have it already)", label,
		spec.Command, len(todo), len(members)-len(todo)))
	parallel := spec.Parallel
	if parallel <= 0 {
		parallel = fleetstatus.DefaultParallelism
	}
	clock := spec.clock()
	inWindow := func() bool {
		open, _ := InWindow(spec.Windows, clock.Now())
		return open
	}
	var (
		mu     sync.Mutex
		failed []string
		errs   []error
		shut   bool
		wg     sync.WaitGroup
	)
	type send struct {
		id      string
		release func(bool)
	}
	next := make(chan send)
	for range min(parallel, len(todo)) {
		wg.Go(func() {
			for s := range next {
				err := scheduleOne(ctx, c, spec.Command, s.id)
				s.release(mayHaveSent(err))
				mu.Lock()
				if err != nil {
					failed = append(failed, s.id)
					errs = append(errs, fmt.Errorf("device %s: %w", s.id, err))
				} else {
					w.DeviceIDs = append(w.DeviceIDs, s.id)
					w.Scheduled++
				}
				mu.Unlock()
			}
		})
	}
	stopped := false
	for _, id := range todo {
		mu.Lock()
		stop := len(errs) > 0
		mu.Unlock()
		if stop || ctx.Err() != nil || pace.wait(ctx) != nil {
			stopped = true
			break
		}
		// A paced send long after the wave's read reads its device again.
		if rd.old(id) {
			if err := rd.read(ctx, c, spec, []string{id}); err != nil {
				if ctx.Err() != nil {
					stopped = true
					break
				}
				mu.Lock()
				failed = append(failed, id)
				errs = append(errs, fmt.Errorf("device %s: %w", id, err))
				mu.Unlock()
				break
			}
		}
		if rd.hasIt(id) {
			mu.Lock()
			w.DeviceIDs = append(w.DeviceIDs, id)
			mu.Unlock()
			continue
		}
		seen, release := sends.claim(keyOf(c, spec.WorkspaceID, id, spec.Command), rd.markOf(id))
		if seen {
			mu.Lock()
			w.DeviceIDs = append(w.DeviceIDs, id)
			mu.Unlock()
			continue
		}
		if !inWindow() {
			release(false)
			shut = true
			break
		}
		select {
		case next <- send{id, release}:
		case <-ctx.Done():
			release(false)
			stopped = true
		}
		if stopped {
			break
		}
	}
	close(next)
	wg.Wait()
	if len(errs) > 0 {
		slices.Sort(failed)
		return false, fmt.Errorf("%s: could not schedule %s on %d devices (%s): %w", label, spec.Command,
			len(failed), abbreviate(failed), errors.Join(errs[:min(len(errs), 5)]...))
	}
	if shut {
		return true, nil
	}
	if stopped {
		return false, fmt.Errorf("%s: stopped while scheduling: %w", label, ctx.Err())
	}
	return false, nil
}

// scheduleOne schedules the command on one device. A request that may have
// reached the service without an answer is read back: the device counts as
// scheduled only when it shows the command. After a timeout the request
// may still be held or queued by the service, so the device is read again
// every readBackInterval until the client's resolve deadline (one request
// timeout, at least a few seconds); after another lost answer, twice.
// Otherwise the error says the update may still be processed, never that
// applying again is harmless.
func scheduleOne(ctx context.Context, c *client.Client, cmd Command, id string) error {
	ctx = context.WithoutCancel(ctx)
	err := cmd.send(ctx, c, id)
	if !errors.Is(err, client.ErrAmbiguous) {
		return err
	}
	rctx, cancel := c.ResolveContext(ctx)
	defer cancel()
	timedOut := errors.Is(err, context.DeadlineExceeded)
	for reads := 1; ; reads++ {
		if cmd.shows(rctx, c, id) {
			return nil
		}
		deadline, _ := rctx.Deadline()
		if (!timedOut && reads >= 2) || time.Until(deadline) <= readBackInterval {
			return fmt.Errorf("%w; reading it back %d times did not show the %s scheduled: the request may "+
				"not have reached the service, or may still be processed. Check %s before applying again: "+
				"applying again while it is still processed would send it twice", err, reads, cmd.noun(), cmd.check())
		}
		select {
		case <-time.After(readBackInterval):
		case <-rctx.Done():
		}
	}
}

// readBackInterval is the wait between two reads of a device after a
// scheduling whose answer was lost.
const readBackInterval = time.Second

// countStatuses counts devices by status; a device without an update
// counts as "not scheduled".
func countStatuses(devices []fleetstatus.Device) map[string]int {
	out := map[string]int{}
	for _, d := range devices {
		s := d.Status
		switch {
		case !d.Found:
			s = "not scheduled"
		case strings.HasPrefix(s, "replaced by "):
			s = "replaced"
		}
		out[s]++
	}
	return out
}

// WaveCounts returns, per wave of rec, the devices per status in devices
// (statuses of cmd's kind read with fleetstatus): a device whose update or
// job is no longer cmd counts as "replaced", one without any as "not
// scheduled".
func WaveCounts(rec Record, cmd Command, devices []fleetstatus.Device) []map[string]int {
	byID := make(map[string]fleetstatus.Device, len(devices))
	for _, d := range devices {
		if text := cmd.replaced(d); text != "" {
			d.Status = text
		}
		byID[d.ID] = d
	}
	out := make([]map[string]int, len(rec.Waves))
	for k, w := range rec.Waves {
		ds := make([]fleetstatus.Device, 0, len(w.DeviceIDs))
		for _, id := range w.DeviceIDs {
			if d, ok := byID[id]; ok {
				ds = append(ds, d)
			} else {
				ds = append(ds, fleetstatus.Device{ID: id})
			}
		}
		out[k] = countStatuses(ds)
	}
	return out
}

// gateError is the error of a wave that did not pass its gate.
func gateError(label string, spec Spec, n int, err error) error {
	var we *fleetstatus.WaitError
	if !errors.As(err, &we) {
		return fmt.Errorf("%s: %w", label, err)
	}
	switch {
	case we.Reason == "failed":
		msg := fmt.Sprintf("%s stopped the rollout: %d of %d devices failed, more than max_failure_ratio %g allows "+
			"(%d). Failed: %s", label, len(we.Result.Failed), n, spec.MaxFailureRatio,
			MaxFailures(spec.MaxFailureRatio, n), we.Result.Describe(we.Result.Failed))
		if len(we.Result.Pending) > 0 {
			msg += fmt.Sprintf("; not done on %d: %s", len(we.Result.Pending), we.Result.Describe(we.Result.Pending))
		}
		return errors.New(msg)
	case we.Reason == "timeout" && spec.Command.notDoneFails():
		r := we.Result
		msg := fmt.Sprintf("%s stopped the rollout: %d of %d devices are not done after wave_timeout %s and count "+
			"as failed", label, len(r.Failed)+len(r.Pending), n, spec.WaveTimeout)
		if len(r.Failed) > 0 {
			msg += fmt.Sprintf(" (%d of them replaced)", len(r.Failed))
		}
		msg += fmt.Sprintf(", more than max_failure_ratio %g allows (%d). Not done: %s", spec.MaxFailureRatio,
			MaxFailures(spec.MaxFailureRatio, n), r.Describe(append(slices.Clone(r.Failed), r.Pending...)))
		return errors.New(msg)
	case we.Reason == "timeout":
		return fmt.Errorf("%s is not done after wave_timeout %s: %d of %d devices not done: %s", label,
			spec.WaveTimeout, len(we.Result.Pending), n, we.Result.Describe(we.Result.Pending))
	default:
		return fmt.Errorf("%s: %w", label, err)
	}
}

// passesAtTimeout reports whether a wave whose wait ended with err passes
// its gate all the same: for a command whose devices not done count as
// failed (a job), a wait that timed out with at most MaxFailures devices
// failed or not done.
func passesAtTimeout(spec Spec, n int, err error) bool {
	var we *fleetstatus.WaitError
	if !spec.Command.notDoneFails() || !errors.As(err, &we) || we.Reason != "timeout" {
		return false
	}
	return len(we.Result.Failed)+len(we.Result.Pending) <= MaxFailures(spec.MaxFailureRatio, n)
}

// describeWaves names the size of each planned wave: "1%: 1, 50%: 9".
func describeWaves(waves []Wave, plan [][]string) string {
	parts := make([]string, len(waves))
	for k, w := range waves {
		parts[k] = fmt.Sprintf("%s: %d", w.Text, len(plan[k]))
	}
	return strings.Join(parts, ", ")
}

// abbreviate lists at most 20 IDs.
func abbreviate(ids []string) string {
	const most = 20
	s := strings.Join(ids[:min(len(ids), most)], ", ")
	if len(ids) > most {
		s += fmt.Sprintf(" and %d more", len(ids)-most)
	}
	return s
}
