package rollout

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// Clock is the time of the pacing and the maintenance windows: tests give
// a fake one.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or until ctx ends (returning its error).
	Sleep(ctx context.Context, d time.Duration) error
}

// realClock is the machine's clock.
type realClock struct{}

func (realClock) Now() time.Time                                   { return time.Now() }
func (realClock) Sleep(ctx context.Context, d time.Duration) error { return client.Sleep(ctx, d) }

// clock is the spec's clock, or the machine's.
func (s Spec) clock() Clock {
	if s.Clock != nil {
		return s.Clock
	}
	return realClock{}
}

// pacer spaces the schedules of a run: at most perMinute a minute, the
// first at once, each next one a minute/perMinute after the one before.
type pacer struct {
	clock Clock
	every time.Duration
	next  time.Time
}

// newPacer paces perMinute schedules a minute; nil (no pacing) for 0.
func newPacer(clock Clock, perMinute int) *pacer {
	if perMinute <= 0 {
		return nil
	}
	return &pacer{clock: clock, every: time.Minute / time.Duration(perMinute)}
}

// wait returns when the next schedule may be sent.
func (p *pacer) wait(ctx context.Context) error {
	if p == nil {
		return nil
	}
	now := p.clock.Now()
	if p.next.After(now) {
		if err := p.clock.Sleep(ctx, p.next.Sub(now)); err != nil {
			return err
		}
		now = p.next
	}
	p.next = now.Add(p.every)
	return nil
}

// Window is a maintenance window: on Days, from Start to End (wall clock
// in Location; an End not after Start ends the next day, so "22:00" to
// "04:00" runs across midnight, on the day it starts).
type Window struct {
	Days     []time.Weekday
	Start    ClockTime
	End      ClockTime
	Location *time.Location
}

// ClockTime is a wall-clock time of day.
type ClockTime struct{ Hour, Minute int }

// ParseClockTime parses "HH:MM" (24-hour).
func ParseClockTime(s string) (ClockTime, error) {
	t, err := time.Parse("15:04", s)
	if err != nil || len(s) != 5 {
		return ClockTime{}, fmt.Errorf("%q is not a time of day such as \"22:00\" (24-hour HH:MM)", s)
	}
	return ClockTime{t.Hour(), t.Minute()}, nil
}

func (c ClockTime) String() string { return fmt.Sprintf("%02d:%02d", c.Hour, c.Minute) }

// Weekdays maps the day names the windows take to days.
var Weekdays = map[string]time.Weekday{
	"mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday, "thu": time.Thursday,
	"fri": time.Friday, "sat": time.Saturday, "sun": time.Sunday,
}

// span is the window that starts on the day of y, m, d.
func (w Window) span(y int, m time.Month, d int) (time.Time, time.Time) {
	start := time.Date(y, m, d, w.Start.Hour, w.Start.Minute, 0, 0, w.Location)
	endDay := d
	if w.End.Hour*60+w.End.Minute <= w.Start.Hour*60+w.Start.Minute {
		endDay++
	}
	return start, time.Date(y, m, endDay, w.End.Hour, w.End.Minute, 0, 0, w.Location)
}

// InWindow reports whether t falls in one of windows, and when not, the
// next time one opens (zero when none ever does). No windows: always in.
func InWindow(windows []Window, t time.Time) (bool, time.Time) {
	if len(windows) == 0 {
		return true, time.Time{}
	}
	var next time.Time
	for _, w := range windows {
		lt := t.In(w.Location)
		// The day before (a window across midnight), up to a week ahead.
		for off := -1; off <= 8; off++ {
			day := time.Date(lt.Year(), lt.Month(), lt.Day()+off, 12, 0, 0, 0, w.Location)
			if !slices.Contains(w.Days, day.Weekday()) {
				continue
			}
			s, e := w.span(day.Year(), day.Month(), day.Day())
			if !t.Before(s) && t.Before(e) {
				return true, time.Time{}
			}
			if s.After(t) && (next.IsZero() || s.Before(next)) {
				next = s
			}
		}
	}
	return false, next
}

// OutsideWindowError is the end of a run that found no maintenance window
// open before a wave, the next opening too far away to wait for.
type OutsideWindowError struct {
	Label    string
	NextOpen time.Time
	// Wait is how long the run would have waited at most.
	Wait time.Duration
	// Closed is set when the window closed while the wave was being
	// scheduled: Have of its Of devices have the command.
	Closed   bool
	Have, Of int
}

func (e *OutsideWindowError) Error() string {
	if e.Closed {
		return fmt.Sprintf("%s stopped scheduling when its maintenance window closed, %d of its %d devices having "+
			"it: the next window opens at %s, later than %s from now. Apply (or invoke the action) again once it is "+
			"open: the rollout resumes this wave, scheduling only the devices that do not have it yet", e.Label,
			e.Have, e.Of, e.NextOpen.UTC().Format(time.RFC3339), e.Wait)
	}
	return fmt.Sprintf("%s waits for a maintenance window: the next one opens at %s, later than %s from now. "+
		"Apply (or invoke the action) again once it is open: the rollout resumes from this wave", e.Label,
		e.NextOpen.UTC().Format(time.RFC3339), e.Wait)
}

// awaitWindow returns once a maintenance window is open, waiting for the
// next one when it opens within spec.WindowWait; otherwise it records the
// next opening in rec and returns an *OutsideWindowError.
func awaitWindow(ctx context.Context, spec Spec, rec *Record, label string, progress Progress) error {
	clock := spec.clock()
	for {
		now := clock.Now()
		open, next := InWindow(spec.Windows, now)
		if open {
			rec.NextWindowOpensAt = time.Time{}
			return nil
		}
		rec.NextWindowOpensAt = next
		if next.IsZero() || next.Sub(now) > spec.WindowWait {
			return &OutsideWindowError{Label: label, NextOpen: next, Wait: spec.WindowWait}
		}
		progress(fmt.Sprintf("%s: outside every maintenance window, waiting until %s", label,
			next.UTC().Format(time.RFC3339)))
		if err := clock.Sleep(ctx, next.Sub(now)); err != nil {
			return fmt.Errorf("%s: stopped while waiting for a maintenance window: %w", label, err)
		}
	}
}
