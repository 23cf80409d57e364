package connection

import (
	"testing"
	"time"
)

// waitsFor reports whether hold waits (100 ms); its hold is released once
// taken.
func waitsFor(hold func() func()) bool {
	got := make(chan func(), 1)
	go func() { got <- hold() }()
	select {
	case release := <-got:
		release()
		return false
	case <-time.After(100 * time.Millisecond):
		go func() { (<-got)() }() // released once the hold in the way is
		return true
	}
}

// Moves into a fleet share it; a move waits for a send holding its fleet
// or workspace, a send for a move into one of its fleets, and a move into a
// fleet a send waits for waits behind it.
func TestHoldMove(t *testing.T) {
	t.Parallel()
	d := &ProviderData{}
	move := func(ws, fleet string) bool { return waitsFor(func() func() { return d.holdMove(ws, fleet) }) }
	release := d.holdMove("w", "b")
	if move("w", "b") {
		t.Error("a move waits for another move into the same fleet")
	}
	if !waitsFor(func() func() { return d.HoldFleets("w", []string{"b", "c"}) }) {
		t.Error("a send does not wait for a move into one of its fleets")
	}
	// That send now waits: a new move into b waits behind it, one into a
	// does not.
	if !move("w", "b") {
		t.Error("a move into a fleet a send waits for does not wait behind it")
	}
	if move("w", "a") {
		t.Error("a move into another fleet waits")
	}
	release()
	time.Sleep(50 * time.Millisecond) // the waiting send and move take and release their holds
	release = d.HoldFleets("w", nil)
	if !move("w", "z") {
		t.Error("a move does not wait while its workspace is held for a send")
	}
	if move("v", "z") {
		t.Error("a move into a fleet of another workspace waits")
	}
	release()
}

// A hold of fleets waits for an overlapping hold, a whole workspace for any
// hold of its fleets, and disjoint holds do not wait.
func TestHoldFleets(t *testing.T) {
	t.Parallel()
	d := &ProviderData{}
	waits := func(ws string, fleets []string) bool {
		return waitsFor(func() func() { return d.HoldFleets(ws, fleets) })
	}
	release := d.HoldFleets("w", []string{"c", "b"})
	for _, tc := range []struct {
		ws     string
		fleets []string
		want   bool
	}{
		{"w", []string{"b"}, true},
		{"w", []string{"a", "c"}, true},
		{"w", nil, true},
		{"w", []string{"a"}, false},
		{"v", []string{"b"}, false},
		{"v", nil, false},
	} {
		if got := waits(tc.ws, tc.fleets); got != tc.want {
			t.Errorf("a hold of %s %v while w [b c] is held: waits %v, want %v", tc.ws, tc.fleets, got, tc.want)
		}
	}
	release()
	release = d.HoldFleets("w", nil)
	if !waits("w", []string{"z"}) {
		t.Error("a hold of a fleet does not wait while its whole workspace is held")
	}
	release()
	if waits("w", []string{"b", "z"}) {
		t.Error("a hold waits after every hold was released")
	}
}
