package rollout

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
	_ "time/tzdata" // the zones, wherever the tests run

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// fakeClock is a Clock whose Sleep only moves its time.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	f.slept = append(f.slept, d)
	return ctx.Err()
}

func (f *fakeClock) total() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	var t time.Duration
	for _, d := range f.slept {
		t += d
	}
	return t
}

func TestPacer(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	fc := &fakeClock{now: t0}
	p := newPacer(fc, 4)
	var at []time.Duration
	for range 5 {
		if err := p.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		at = append(at, fc.Now().Sub(t0))
	}
	want := []time.Duration{0, 15 * time.Second, 30 * time.Second, 45 * time.Second, time.Minute}
	for i := range want {
		if at[i] != want[i] {
			t.Fatalf("schedules at %v, want %v", at, want)
		}
	}
	// Time spent elsewhere counts: after a long pause, the next goes at once.
	fc.now = fc.now.Add(time.Hour)
	before := fc.Now()
	_ = p.wait(context.Background())
	if fc.Now() != before {
		t.Error("waited after a pause longer than the spacing")
	}
	if newPacer(fc, 0) != nil || (*pacer)(nil).wait(context.Background()) != nil {
		t.Error("no pacing without a rate")
	}
}

func TestRunPacesSchedules(t *testing.T) {
	e := newEnv(t, 6)
	fc := &fakeClock{now: time.Now()}
	spec := e.spec("50%", "100%")
	spec.MaxPerMinute, spec.Clock = 6, fc
	if _, err := Run(context.Background(), e.c, spec, nil, nil); err != nil {
		t.Fatal(err)
	}
	// 6 schedules 10 seconds apart, across the waves: 50 seconds in all.
	if n := e.schedules(); n != 6 {
		t.Fatalf("%d schedules, want 6", n)
	}
	if got := fc.total(); got != 50*time.Second {
		t.Errorf("paced for %s (%v), want 50s", got, fc.slept)
	}
}

func TestParseClockTime(t *testing.T) {
	if c, err := ParseClockTime("07:05"); err != nil || c != (ClockTime{7, 5}) {
		t.Errorf("07:05 = %v, %v", c, err)
	}
	for _, bad := range []string{"7:05", "24:00", "12:60", "noon", "12:00:00", ""} {
		if _, err := ParseClockTime(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestInWindow(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Friday 22:00 to 04:00 (across midnight), Berlin.
	night := []Window{{Days: []time.Weekday{time.Friday}, Start: ClockTime{22, 0}, End: ClockTime{4, 0}, Location: berlin}}
	cases := []struct {
		windows []Window
		at      string
		open    bool
		next    string
	}{
		// 2026-01-09 is a Friday; Berlin is UTC+1 in winter.
		{night, "2026-01-09T20:59:00Z", false, "2026-01-09T21:00:00Z"},
		{night, "2026-01-09T21:00:00Z", true, ""},
		// Saturday 03:59 in Berlin: still Friday's window.
		{night, "2026-01-10T02:59:00Z", true, ""},
		// Saturday 04:00: closed until next Friday.
		{night, "2026-01-10T03:00:00Z", false, "2026-01-16T21:00:00Z"},
		// Across the spring change (Sunday 2026-03-29, 02:00 CET -> 03:00
		// CEST): Friday 27 opens at 21:00Z, Friday April 3 at 20:00Z.
		{night, "2026-03-28T12:00:00Z", false, "2026-04-03T20:00:00Z"},
		// A window through the skipped hour: Sunday 01:30-03:30 opens at
		// 00:30Z and closes at 01:30Z (03:30 CEST); the next Sunday it opens at
		// 01:30 CEST, 23:30Z on Saturday.
		{[]Window{{Days: []time.Weekday{time.Sunday}, Start: ClockTime{1, 30}, End: ClockTime{3, 30}, Location: berlin}},
			"2026-03-29T01:29:00Z", true, ""},
		{[]Window{{Days: []time.Weekday{time.Sunday}, Start: ClockTime{1, 30}, End: ClockTime{3, 30}, Location: berlin}},
			"2026-03-29T01:30:00Z", false, "2026-04-04T23:30:00Z"},
		// Across the autumn change (Sunday 2026-10-25, 03:00 CEST -> 02:00
		// CET): a 09:00 window opens at 08:00Z that day, 07:00Z the Sunday
		// before.
		{[]Window{{Days: []time.Weekday{time.Sunday}, Start: ClockTime{9, 0}, End: ClockTime{17, 0}, Location: berlin}},
			"2026-10-18T06:00:00Z", false, "2026-10-18T07:00:00Z"},
		{[]Window{{Days: []time.Weekday{time.Sunday}, Start: ClockTime{9, 0}, End: ClockTime{17, 0}, Location: berlin}},
			"2026-10-24T12:00:00Z", false, "2026-10-25T08:00:00Z"},
		// Two windows: the earliest next opening wins.
		{append(night[:1:1], Window{Days: []time.Weekday{time.Wednesday}, Start: ClockTime{1, 0}, End: ClockTime{2, 0},
			Location: time.UTC}), "2026-01-10T03:00:00Z", false, "2026-01-14T01:00:00Z"},
		// No windows: always open.
		{nil, "2026-01-10T03:00:00Z", true, ""},
	}
	for i, c := range cases {
		open, next := InWindow(c.windows, utc(c.at))
		var want time.Time
		if c.next != "" {
			want = utc(c.next)
		}
		if open != c.open || !next.Equal(want) {
			t.Errorf("case %d at %s: open %v, next %s; want %v, %s", i, c.at, open, next.UTC().Format(time.RFC3339), c.open, c.next)
		}
	}
}

func TestAwaitWindow(t *testing.T) {
	// Monday 2026-01-12 10:00 UTC; the window opens at 12:00.
	t0 := time.Date(2026, 1, 12, 10, 0, 0, 0, time.UTC)
	windows := []Window{{Days: []time.Weekday{time.Monday}, Start: ClockTime{12, 0}, End: ClockTime{14, 0}, Location: time.UTC}}
	fc := &fakeClock{now: t0}
	spec := Spec{Windows: windows, WindowWait: 3 * time.Hour, Clock: fc}
	var rec Record
	if err := awaitWindow(context.Background(), spec, &rec, "Wave 1 of 1 (100%)", func(string) {}); err != nil {
		t.Fatal(err)
	}
	if fc.total() != 2*time.Hour || !rec.NextWindowOpensAt.IsZero() {
		t.Errorf("waited %s, next %s", fc.total(), rec.NextWindowOpensAt)
	}
	// Too far away: the run stops, saying when the next window opens.
	fc = &fakeClock{now: t0}
	spec.WindowWait, spec.Clock = time.Hour, fc
	err := awaitWindow(context.Background(), spec, &rec, "Wave 2 of 3 (50%)", func(string) {})
	var ow *OutsideWindowError
	if !errors.As(err, &ow) || !ow.NextOpen.Equal(t0.Add(2*time.Hour)) || fc.total() != 0 ||
		!rec.NextWindowOpensAt.Equal(t0.Add(2*time.Hour)) || !strings.Contains(err.Error(), "2026-01-12T12:00:00Z") {
		t.Fatalf("err = %v, slept %s, next %s", err, fc.total(), rec.NextWindowOpensAt)
	}
}

func TestRunOutsideWindowSchedulesNothing(t *testing.T) {
	e := newEnv(t, 4)
	now := time.Now().UTC()
	// A window that opened an hour ago and closed a minute ago, every day.
	start := now.Add(-time.Hour)
	end := now.Add(-time.Minute)
	all := []time.Weekday{0, 1, 2, 3, 4, 5, 6}
	spec := e.spec("100%")
	spec.Clock = &fakeClock{now: now}
	spec.Windows = []Window{{Days: all, Start: ClockTime{start.Hour(), start.Minute()}, End: ClockTime{end.Hour(), end.Minute()}, Location: time.UTC}}
	rec, err := Run(context.Background(), e.c, spec, nil, nil)
	var ow *OutsideWindowError
	if !errors.As(err, &ow) || rec.NextWindowOpensAt.IsZero() || rec.Status != StatusStopped {
		t.Fatalf("err = %v, record %+v", err, rec)
	}
	if n := e.schedules(); n != 0 {
		t.Fatalf("%d schedules outside the window", n)
	}
	// The positive control: inside a window, the same run schedules.
	spec.Windows[0].End = ClockTime{now.Add(time.Hour).Hour(), now.Add(time.Hour).Minute()}
	if rec, err = Run(context.Background(), e.c, spec, &rec, nil); err != nil || !rec.NextWindowOpensAt.IsZero() {
		t.Fatalf("err = %v, record %+v", err, rec)
	}
	if n := e.schedules(); n != 4 {
		t.Errorf("%d schedules, want 4", n)
	}
}

func TestRunMinReported(t *testing.T) {
	e := newEnv(t, 10)
	e.answer(t, e.ids[0])
	spec := e.spec("100%")
	spec.MinReported = 10
	rec, err := Run(context.Background(), e.c, spec, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "1 of 10 devices failed") || strings.Contains(err.Error(), "not done on") {
		t.Fatalf("err = %v: the gate should wait for every device to report", err)
	}
	if c := rec.Waves[0].Counts; c["done"] != 9 || c["failed"] != 1 {
		t.Errorf("counts %v", c)
	}
}

func TestCheckHealthMinReported(t *testing.T) {
	t0 := time.Now()
	f := &fakeStorage{}
	spec := Spec{WorkspaceID: "ws", PollInterval: 10 * time.Millisecond, Health: &Health{Tag: "ok", Within: time.Hour}}
	windows := map[string]healthWindow{"a": {From: t0, Until: t0.Add(time.Hour)}, "b": {From: t0, Until: t0.Add(time.Hour)}}
	go func() {
		time.Sleep(50 * time.Millisecond)
		f.publish(client.DataPoint{DeviceID: "a", Tag: "ok", TimestampDevice: t0.Add(time.Second).Format(time.RFC3339Nano)},
			client.DataPoint{DeviceID: "b", Tag: "ok", TimestampDevice: t0.Add(time.Second).Format(time.RFC3339Nano)})
	}()
	// One failed device is already too many, but 3 must report first: the
	// check waits for both verdicts.
	res, err := checkHealth(context.Background(), f, spec, windows, 1, 0, 3, time.Now, func(string) {})
	if err != nil || len(res.Healthy) != 2 || len(res.Undecided) != 0 {
		t.Fatalf("result %+v, %v", res, err)
	}
}
