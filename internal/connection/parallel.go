package connection

import (
	"context"
	"sync"
	"sync/atomic"
)

// Bounded concurrency for resources that make many API calls in one
// Terraform operation (zdm_fleet_devices).

// RunBounded calls fn(i) for i from 0 to n-1, at most limit at a time, in
// order of i. Once ctx is done it starts no more calls (the calls already
// running are left to finish, and runBounded waits for them). It returns how
// many calls were started: the indexes from that number on never ran.
func RunBounded(ctx context.Context, n, limit int, fn func(i int)) int {
	if n <= 0 {
		return 0
	}
	limit = max(1, min(limit, n))
	var next atomic.Int64
	var started atomic.Int64
	var wg sync.WaitGroup
	for range limit {
		wg.Go(func() {
			for {
				if ctx.Err() != nil {
					return
				}
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				started.Add(1)
				fn(i)
			}
		})
	}
	wg.Wait()
	return int(started.Load())
}
