package localzdm

import (
	"container/heap"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/settings"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/store"
)

// DeviceBehavior scripts how the simulated devices answer the jobs and FOTA
// scheduled on them (see settings.DeviceBehavior).
type DeviceBehavior = settings.DeviceBehavior

// Defaults of the health points devices publish (see
// DeviceBehavior.PublishHealth).
const (
	DefaultHealthTag          = settings.DefaultHealthTag
	DefaultHealthPayload      = settings.DefaultHealthPayload
	DefaultHealthErrorTag     = settings.DefaultHealthErrorTag
	DefaultHealthErrorPayload = settings.DefaultHealthErrorPayload
)

// CheckHealthTag checks a health tag named field: a valid data point tag.
func CheckHealthTag(field, tag string) error { return settings.CheckHealthTag(field, tag) }

// ParseHealthPayload checks a health payload named field, a JSON object,
// and returns it compacted.
func ParseHealthPayload(field string, raw []byte) (json.RawMessage, error) {
	return settings.ParseHealthPayload(field, raw)
}

// checkBehavior validates b for this server: a job failure status is a
// status beyond the specification, which a state file does not keep.
func (s *Server) checkBehavior(b DeviceBehavior) error {
	if err := b.Validate(); err != nil {
		return err
	}
	if b.JobFailureStatus != "" && s.opts.StateFile != "" {
		return invalidArgument("\"job_failure_status\" %q cannot be used with a state file, which keeps only the job statuses of the API specification (%q and %q); leave it empty so that failing devices leave their jobs pending", b.JobFailureStatus, JobStatusPending, JobStatusDone)
	}
	return nil
}

// SetDeviceBehavior replaces the device behavior (see DeviceBehavior). The
// jobs and FOTA still pending are planned anew under it, as if scheduled
// now: turning devices on answers the work scheduled while they were off,
// and a shorter delay applies to the answers already planned. Invalid
// settings are refused and change nothing.
func (s *Server) SetDeviceBehavior(b DeviceBehavior) error {
	if err := s.checkBehavior(b); err != nil {
		return err
	}
	s.st.Mu.Lock()
	s.behavior = b.Normalized()
	s.replanPendingLocked(time.Now())
	s.st.Mu.Unlock()
	return nil
}

// replanPendingLocked drops the planned answers and plans, under the
// current behavior, the answer of every device to its pending jobs (by
// name) and FOTA, as if scheduled at now; s.st.Mu is held for writing.
func (s *Server) replanPendingLocked(now time.Time) {
	s.clearAnswers()
	for _, wsID := range slices.Sorted(maps.Keys(s.st.Workspaces)) {
		w := s.st.Workspaces[wsID]
		p := s.newPlannerLocked(w)
		if p == nil {
			continue
		}
		for _, id := range w.Devices {
			d := s.st.Devices[id]
			if d == nil {
				continue
			}
			for _, name := range slices.Sorted(maps.Keys(d.Jobs)) {
				if j := d.Jobs[name]; j.Status == JobStatusPending {
					s.planLocked(p, d, target{job: j}, now)
				}
			}
			if d.FOTA != nil && d.FOTA.Status == FOTAStatusPending {
				s.planLocked(p, d, target{fota: d.FOTA}, now)
			}
		}
	}
}

// CurrentDeviceBehavior returns the device behavior in effect.
func (s *Server) CurrentDeviceBehavior() DeviceBehavior {
	s.st.Mu.RLock()
	defer s.st.Mu.RUnlock()
	return s.behavior.Normalized()
}

// PendingAnswers is the number of device answers planned and not given yet.
func (s *Server) PendingAnswers() int {
	s.answers.mu.Lock()
	defer s.answers.mu.Unlock()
	return len(s.answers.q)
}

// target is what a device answers: a job (by name) or its FOTA.
type target struct {
	job  *job  // nil for a FOTA
	fota *fota // nil for a job
}

func (t target) key() string {
	if t.job != nil {
		return "job\x00" + t.job.Name
	}
	return "fota\x00" + t.fota.FirmwareID + "\x00" + t.fota.FirmwareVersion
}

// extra names the work in a health point's payload.
func (t target) extra() map[string]string {
	if t.job != nil {
		return map[string]string{"job": t.job.Name}
	}
	return map[string]string{"firmware_id": t.fota.FirmwareID, "firmware_version": t.fota.FirmwareVersion}
}

// answer is a device's planned answer to one scheduling.
type answer struct {
	due    time.Time
	dev    *device
	t      target
	status string
	health *healthPoint // published with the answer; nil for none
}

// healthPoint is the tag and payload of a planned health point.
type healthPoint struct {
	tag     string
	payload json.RawMessage
}

// answerQueue is a min-heap of planned answers by due time.
type answerQueue []*answer

func (q answerQueue) Len() int           { return len(q) }
func (q answerQueue) Less(i, j int) bool { return q[i].due.Before(q[j].due) }
func (q answerQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *answerQueue) Push(x any) {
	if a, ok := x.(*answer); ok {
		*q = append(*q, a)
	}
}
func (q *answerQueue) Pop() any {
	old := *q
	a := old[len(old)-1]
	*q = old[:len(old)-1]
	return a
}

// answers holds the planned answers and wakes the loop that gives them.
type answers struct {
	mu    sync.Mutex
	q     answerQueue
	wake  chan struct{}
	start sync.Once // starts answerLoop at the first delayed answer
}

// newPlannerLocked returns the plan of the current behavior for the
// devices of w; nil when devices do not answer; s.st.Mu is held.
func (s *Server) newPlannerLocked(w *workspace) *settings.Plan {
	if !s.behavior.Enabled {
		return nil
	}
	devices := make([]*device, 0, len(w.Devices))
	for _, id := range w.Devices {
		devices = append(devices, s.st.Devices[id])
	}
	return settings.NewPlan(s.behavior, devices)
}

// planLocked plans the answer of device d to the scheduling t made at now,
// giving it at once when it is due at once; s.st.Mu is held for writing.
func (s *Server) planLocked(p *settings.Plan, d *device, t target, now time.Time) {
	if p == nil {
		return
	}
	pa, ok := p.Answer(d, t.job != nil, t.key(), t.extra())
	if !ok {
		return // silent, or a failing device leaves its job pending
	}
	a := &answer{due: now.Add(pa.Delay), dev: d, t: t, status: pa.Status}
	if pa.HealthTag != "" {
		a.health = &healthPoint{tag: pa.HealthTag, payload: pa.HealthPayload}
	}
	if pa.Delay == 0 {
		s.giveAnswerLocked(a, now)
		return
	}
	s.answers.start.Do(func() { go s.answerLoop() })
	s.answers.mu.Lock()
	heap.Push(&s.answers.q, a)
	s.answers.mu.Unlock()
	select {
	case s.answers.wake <- struct{}{}:
	default:
	}
}

// giveAnswerLocked applies a device's answer when its scheduling is still
// the current one and pending; s.st.Mu is held for writing.
func (s *Server) giveAnswerLocked(a *answer, now time.Time) {
	d := a.dev
	if s.st.Devices[d.ID] != d {
		return // deleted
	}
	var ev event
	switch {
	case a.t.job != nil:
		if d.Jobs[a.t.job.Name] != a.t.job || a.t.job.Status != JobStatusPending {
			return // rescheduled, purged or set by hand
		}
		a.t.job.Status = a.status
		ev = jobEvent(d, a.t.job, directionD2C, now)
	default:
		if d.FOTA != a.t.fota || a.t.fota.Status != FOTAStatusPending {
			return
		}
		a.t.fota.Status = a.status
		ev = fotaEvent(d, a.t.fota, directionD2C, now)
	}
	s.st.Changed(d)
	w := s.st.Workspaces[d.WorkspaceID]
	s.emitLocked(w, []event{ev})
	if a.health != nil && w != nil && w.StorageEnabled {
		s.publishHealthLocked(w, d, a.health, now)
	}
}

// publishHealthLocked publishes a device's health point after a status
// change at now: a millisecond later, and after the device's previous
// health point, so that two answers given at one instant both keep theirs
// (a point with the device, tag and time of another is discarded);
// s.st.Mu is held for writing.
func (s *Server) publishHealthLocked(w *workspace, d *device, h *healthPoint, now time.Time) {
	at := now.Add(time.Millisecond)
	if last, ok := s.healthAt[d.ID]; ok && !at.After(last) {
		at = last.Add(time.Millisecond)
	}
	s.healthAt[d.ID] = at
	ts := store.Timestamp(at)
	if _, err := s.publishLocked(w, []DataPoint{{DeviceID: d.ID, Tag: h.tag, TimestampDevice: ts, TimestampIn: ts, Payload: h.payload}}, now); err != nil {
		s.log.Printf("localzdm: health point of device %s: %v", d.ID, err)
	}
}

// answerLoop gives the planned answers when they are due, until the server
// closes.
func (s *Server) answerLoop() {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		now := time.Now()
		var due []*answer
		next := time.Hour
		s.answers.mu.Lock()
		for len(s.answers.q) > 0 {
			if wait := s.answers.q[0].due.Sub(now); wait > 0 {
				next = wait
				break
			}
			if a, ok := heap.Pop(&s.answers.q).(*answer); ok {
				due = append(due, a)
			}
		}
		s.answers.mu.Unlock()
		if len(due) > 0 {
			s.st.Mu.Lock()
			for _, a := range due {
				s.giveAnswerLocked(a, now)
			}
			s.st.Mu.Unlock()
		}
		t.Reset(next)
		select {
		case <-t.C:
		case <-s.answers.wake:
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
		case <-s.closing:
			return
		}
	}
}

// clearAnswers drops every planned answer.
func (s *Server) clearAnswers() {
	s.answers.mu.Lock()
	s.answers.q = nil
	s.answers.mu.Unlock()
}
