package rollout

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
)

// TestRunReadsAgainBeforeEachWave: devices of wave 2 get the firmware from
// elsewhere while wave 1 runs (after the rollout's first read). Wave 2 reads
// its devices again before sending and counts them as having it: each
// device is sent the firmware once. (Deciding from the first read, the
// rollout sent it to them a second time.)
func TestRunReadsAgainBeforeEachWave(t *testing.T) {
	e := newEnv(t, 10)
	spec := e.spec("10%", "100%")
	order := Order(spec.Identity(), e.ids)
	meanwhile := order[1:4] // wave 2's
	progress := func(s string) {
		if strings.HasPrefix(s, "Wave 1 of 2 (10%): scheduling") {
			for _, id := range meanwhile {
				if _, err := e.c.ScheduleFOTA(context.Background(), id, "fw", "2.0"); err != nil {
					t.Error(err)
				}
			}
		}
	}
	e.srv.ResetCounters()
	rec, err := Run(context.Background(), e.c, spec, nil, progress)
	if err != nil {
		t.Fatal(err)
	}
	// The positive control: the three sends elsewhere are counted.
	if n := e.schedules(); n != 10 {
		t.Errorf("%d schedules (3 of them elsewhere), want 10: a device was sent the firmware twice", n)
	}
	if w := rec.Waves[1]; w.Scheduled != 6 || len(w.DeviceIDs) != 9 {
		t.Errorf("wave 2: %d scheduled of %d devices, want 6 of 9", w.Scheduled, len(w.DeviceIDs))
	}
}

// TestRunConcurrentRolloutsSendOnce: another rollout of the same firmware
// with another salt sends to every device after this one read them and
// before it sends (it runs inside this one's progress, between the two).
// The reads cannot show those sends; the process's send log does: no
// device gets the firmware twice.
func TestRunConcurrentRolloutsSendOnce(t *testing.T) {
	e := newEnv(t, 8)
	other := e.spec("50%", "100%")
	other.Salt = "other"
	var (
		once     sync.Once
		otherRec Record
		otherErr error
	)
	progress := func(s string) {
		if strings.Contains(s, ": scheduling") {
			once.Do(func() { otherRec, otherErr = Run(context.Background(), e.c, other, nil, nil) })
		}
	}
	e.srv.ResetCounters()
	rec, err := Run(context.Background(), e.c, e.spec("100%"), nil, progress)
	if err != nil || otherErr != nil {
		t.Fatalf("rollouts: %v; %v", err, otherErr)
	}
	if otherRec.Waves[0].Scheduled+otherRec.Waves[1].Scheduled != 8 {
		t.Fatalf("the other rollout scheduled %d devices, want 8 (the test's premise)", otherRec.Waves[0].Scheduled+otherRec.Waves[1].Scheduled)
	}
	if n := e.schedules(); n != 8 {
		t.Errorf("%d schedules for 8 devices: the rollout sent again what the other sent", n)
	}
	if w := rec.Waves[0]; w.Scheduled != 0 || len(w.DeviceIDs) != 8 {
		t.Errorf("wave: %d scheduled of %d devices, want 0 of 8 (all counted as having it)", w.Scheduled, len(w.DeviceIDs))
	}
}

// TestRunConcurrentRolloutsRace runs two rollouts of one firmware with
// different salts at once, many times over: each device gets it once.
func TestRunConcurrentRolloutsRace(t *testing.T) {
	e := newEnv(t, 6)
	for round := range 5 {
		fw := "r" + string(rune('0'+round))
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, salt := range []string{"a", "b"} {
			spec := e.spec("50%", "100%")
			spec.Command = FOTA(fwOf(fw))
			spec.Salt = salt
			wg.Go(func() { _, errs[i] = Run(context.Background(), e.c, spec, nil, nil) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if n := e.schedules(); n != int64(6*(round+1)) {
			t.Fatalf("round %d: %d schedules in all, want %d", round, n, 6*(round+1))
		}
	}
}

// stepClock is a fake clock that calls onSleep after each sleep.
type stepClock struct {
	fakeClock
	onSleep func(n int)
	n       int
}

func (s *stepClock) Sleep(ctx context.Context, d time.Duration) error {
	err := s.fakeClock.Sleep(ctx, d)
	s.n++
	if s.onSleep != nil {
		s.onSleep(s.n)
	}
	return err
}

// TestRunPacedSendReadsAgain: a paced send a minute after the wave's read
// reads its device again; a device given the firmware meanwhile is not
// sent it.
func TestRunPacedSendReadsAgain(t *testing.T) {
	e := newEnv(t, 4)
	spec := e.spec("100%")
	order := Order(spec.Identity(), e.ids)
	sc := &stepClock{fakeClock: fakeClock{now: time.Now()}}
	sc.onSleep = func(n int) {
		if n == 1 { // after the first send, before the second
			if _, err := e.c.ScheduleFOTA(context.Background(), order[3], "fw", "2.0"); err != nil {
				t.Error(err)
			}
		}
	}
	spec.MaxPerMinute, spec.Clock = 1, sc
	e.srv.ResetCounters()
	rec, err := Run(context.Background(), e.c, spec, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := e.schedules(); n != 4 {
		t.Errorf("%d schedules (1 of them elsewhere), want 4", n)
	}
	if w := rec.Waves[0]; w.Scheduled != 3 || len(w.DeviceIDs) != 4 {
		t.Errorf("wave: %d scheduled of %d devices, want 3 of 4", w.Scheduled, len(w.DeviceIDs))
	}
}

// TestRunPacedStopsAtWindowEnd: a paced wave reaching the end of its
// maintenance window stops sending, records what it sent, and says when
// the next window opens; the next run, in that window, sends the rest, no
// device twice.
func TestRunPacedStopsAtWindowEnd(t *testing.T) {
	e := newEnv(t, 5)
	// Monday 2026-01-12 10:00 UTC; the window closes at 10:02 (and opens
	// again next Monday at 09:00): one send a minute fits two.
	t0 := time.Date(2026, 1, 12, 10, 0, 0, 0, time.UTC)
	fc := &fakeClock{now: t0}
	spec := e.spec("100%")
	spec.MaxPerMinute, spec.Clock, spec.WindowWait = 1, fc, time.Hour
	spec.Windows = []Window{{Days: []time.Weekday{time.Monday}, Start: ClockTime{9, 0}, End: ClockTime{10, 2}, Location: time.UTC}}
	e.srv.ResetCounters()
	rec, err := Run(context.Background(), e.c, spec, nil, nil)
	var ow *OutsideWindowError
	if !errors.As(err, &ow) || !ow.Closed || ow.Have != 2 || ow.Of != 5 {
		t.Fatalf("err = %v, want the window closed after 2 of 5", err)
	}
	next := time.Date(2026, 1, 19, 9, 0, 0, 0, time.UTC)
	if rec.Status != StatusStopped || !rec.NextWindowOpensAt.Equal(next) {
		t.Errorf("status %s, next window %s; want stopped, %s", rec.Status, rec.NextWindowOpensAt, next)
	}
	if w := rec.Waves[0]; w.Scheduled != 2 || len(w.DeviceIDs) != 2 || w.Complete {
		t.Errorf("wave: %+v, want 2 scheduled, not complete", w)
	}
	// 10:00 and 10:01; the next, due at 10:02, is outside.
	if n := e.schedules(); n != 2 {
		t.Errorf("%d schedules, want 2", n)
	}
	// The next window: the rest, each device once.
	fc.mu.Lock()
	fc.now = next
	fc.mu.Unlock()
	resumed, err := Run(context.Background(), e.c, spec, &rec, nil)
	if err != nil || resumed.Status != StatusCompleted || !resumed.NextWindowOpensAt.IsZero() {
		t.Fatalf("resume: %v, %+v", err, resumed)
	}
	if n := e.schedules(); n != 5 {
		t.Errorf("%d schedules after the resume, want 5", n)
	}
	if got := resumed.Devices(); !slices.Equal(got, slices.Sorted(slices.Values(e.ids))) || resumed.Waves[0].Scheduled != 5 {
		t.Errorf("devices %v, scheduled %d", got, resumed.Waves[0].Scheduled)
	}
}

// TestRunPacedWaitsForNextWindow: when the next window opens within
// WindowWait, the wave waits for it and goes on in the same run; nothing is
// sent between the windows.
func TestRunPacedWaitsForNextWindow(t *testing.T) {
	e := newEnv(t, 4)
	t0 := time.Date(2026, 1, 12, 10, 0, 0, 0, time.UTC)
	// At the wait for the second window, the sends of the first are all
	// done: two, at 10:00 and 10:01.
	var atWait []int64
	sc := &stepClock{fakeClock: fakeClock{now: t0}}
	sc.onSleep = func(int) {
		if sc.Now().Equal(time.Date(2026, 1, 12, 10, 30, 0, 0, time.UTC)) {
			atWait = append(atWait, e.schedules())
		}
	}
	spec := e.spec("100%")
	spec.MaxPerMinute, spec.Clock, spec.WindowWait = 1, sc, time.Hour
	mon := []time.Weekday{time.Monday}
	spec.Windows = []Window{
		{Days: mon, Start: ClockTime{9, 0}, End: ClockTime{10, 2}, Location: time.UTC},
		{Days: mon, Start: ClockTime{10, 30}, End: ClockTime{11, 0}, Location: time.UTC},
	}
	e.srv.ResetCounters()
	rec, err := Run(context.Background(), e.c, spec, nil, nil)
	if err != nil || rec.Status != StatusCompleted {
		t.Fatalf("err = %v, record %+v", err, rec)
	}
	if !slices.Equal(atWait, []int64{2}) {
		t.Errorf("schedules when the second window opened: %v, want [2]", atWait)
	}
	if n := e.schedules(); n != 4 {
		t.Errorf("%d schedules, want 4", n)
	}
	// 10:30 and 10:31 for the last two.
	if end := sc.Now(); !end.Equal(time.Date(2026, 1, 12, 10, 31, 0, 0, time.UTC)) {
		t.Errorf("the clock ends at %s, want 10:31", end.Format(time.TimeOnly))
	}
}

// TestSendLog: a send in flight is waited for; one that ended after a
// device's read counts as seen, one before it does not (the read saw it);
// the log empties when no run is in progress.
func TestSendLog(t *testing.T) {
	l := &sendLog{}
	l.enter()
	k := sendKey{1}
	before := l.mark()
	seen, release := l.claim(k, before)
	if seen {
		t.Fatal("seen before any send")
	}
	got := make(chan bool)
	go func() {
		s, _ := l.claim(k, before)
		got <- s
	}()
	select {
	case <-got:
		t.Fatal("a second claim did not wait for the send in flight")
	case <-time.After(50 * time.Millisecond):
	}
	release(true)
	if !<-got {
		t.Error("a send that ended after the read is not seen")
	}
	after := l.mark()
	if s, rel := l.claim(k, after); s {
		t.Error("a send that ended before the read is seen (the read decides)")
	} else {
		rel(false)
	}
	// A send that cannot have reached the service is not seen.
	k2 := sendKey{2}
	m := l.mark()
	_, rel := l.claim(k2, m)
	rel(false)
	if s, rel := l.claim(k2, m); s {
		t.Error("a send not sent is seen")
	} else {
		rel(false)
	}
	l.leave()
	if len(l.done) != 0 {
		t.Errorf("the log keeps %d sends after the last run", len(l.done))
	}
}

// fwOf is the firmware "fw" at version v.
func fwOf(v string) fleetstatus.Firmware { return fleetstatus.Firmware{ID: "fw", Version: v} }
