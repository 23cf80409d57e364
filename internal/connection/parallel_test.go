package connection

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunBounded(t *testing.T) {
	t.Parallel()
	var running, peak atomic.Int64
	seen := make([]atomic.Int64, 50)
	n := RunBounded(t.Context(), 50, 4, func(i int) {
		r := running.Add(1)
		for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
		}
		time.Sleep(2 * time.Millisecond)
		seen[i].Add(1)
		running.Add(-1)
	})
	if n != 50 {
		t.Errorf("started %d calls, want 50", n)
	}
	for i := range seen {
		if seen[i].Load() != 1 {
			t.Errorf("call %d ran %d times", i, seen[i].Load())
		}
	}
	if p := peak.Load(); p != 4 {
		t.Errorf("peak concurrency %d, want 4", p)
	}

	// A canceled context starts nothing more; the calls started are a prefix.
	// A call after the 6th waits for the cancel, so that no worker can run
	// ahead of it: at most limit-1 calls can have started after it.
	ctx, cancel := context.WithCancel(t.Context())
	canceled := make(chan struct{})
	var ran [20]atomic.Bool
	n = RunBounded(ctx, 20, 2, func(i int) {
		ran[i].Store(true)
		switch {
		case i == 5:
			cancel()
			close(canceled)
		case i > 5:
			<-canceled
		}
	})
	if n < 6 || n > 8 {
		t.Errorf("started %d calls after a cancel at the 6th, want 6 to 8", n)
	}
	for i := range ran {
		if ran[i].Load() != (i < n) {
			t.Errorf("call %d ran = %v, but %d calls were started", i, ran[i].Load(), n)
		}
	}
}
