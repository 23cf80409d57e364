package connection

import (
	"context"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// Bounded concurrency for resources that make many API calls in one
// Terraform operation (zdm_fleet_devices).

// RunBounded calls fn(i) for i from 0 to n-1, at most limit at a time, in
// order of i. Once ctx is done it starts no more calls (the calls already
// running are left to finish, and RunBounded waits for them). It returns how
// many calls were started: the indexes from that number on never ran.
//
// errgroup bounds the goroutines; each one claims the next index only after
// checking ctx, so the calls started are always a prefix of 0..n-1 even when
// goroutines run out of order.
func RunBounded(ctx context.Context, n, limit int, fn func(i int)) int {
	if n <= 0 {
		return 0
	}
	var g errgroup.Group
	g.SetLimit(max(1, min(limit, n)))
	var next atomic.Int64
	for range n {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if ctx.Err() != nil {
				return nil
			}
			fn(int(next.Add(1) - 1))
			return nil
		})
	}
	_ = g.Wait() // the calls return no error
	return int(next.Load())
}
