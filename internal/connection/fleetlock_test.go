package connection

import (
	"testing"
	"time"
)

// A hold of fleets waits for an overlapping hold, a whole workspace for any
// hold of its fleets, and disjoint holds do not wait.
func TestHoldFleets(t *testing.T) {
	t.Parallel()
	d := &ProviderData{}
	waits := func(ws string, fleets []string) bool {
		got := make(chan func(), 1)
		go func() { got <- d.HoldFleets(ws, fleets) }()
		select {
		case release := <-got:
			release()
			return false
		case <-time.After(100 * time.Millisecond):
			go func() { (<-got)() }() // released once the hold in the way is
			return true
		}
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
