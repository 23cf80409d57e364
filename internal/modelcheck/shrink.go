package modelcheck

import (
	"context"
	"fmt"
	"strings"
)

// Check generates n steps from seed over opts.Ops, runs them, and when a
// violation is found and shrink is set, shrinks the sequence (Shrink).
// The returned result is the minimal sequence's when shrunk.
func Check(ctx context.Context, opts Options, seed int64, n int, shrink bool) (*Result, error) {
	res, err := Run(ctx, opts, Generate(seed, n, opts.Ops))
	if err != nil || len(res.Violations) == 0 || !shrink {
		return res, err
	}
	return Shrink(ctx, opts, res)
}

// Shrink drops steps from a failing sequence while it still fails: first
// everything after the first violation, then chunks of halving size, then
// single steps, re-running the sequence from scratch each time. Steps
// tolerate the loss of the steps before them (an edit of a key that is
// gone is a no-op), so every subsequence runs.
func Shrink(ctx context.Context, opts Options, failing *Result) (*Result, error) {
	best := failing
	first := failing.Violations[0].Step
	if first+1 < len(best.Steps) {
		if res, err := Run(ctx, opts, best.Steps[:first+1]); err != nil {
			return best, err
		} else if len(res.Violations) > 0 {
			best = res
		}
	}
	for chunk := len(best.Steps) / 2; chunk >= 1; chunk /= 2 {
		for i := 0; i+chunk <= len(best.Steps); {
			if ctx.Err() != nil {
				return best, ctx.Err()
			}
			cand := append(append([]Step(nil), best.Steps[:i]...), best.Steps[i+chunk:]...)
			res, err := Run(ctx, opts, cand)
			if err != nil {
				return best, err
			}
			if len(res.Violations) > 0 {
				best = res
				continue // the same i now names the next steps
			}
			i += chunk
		}
	}
	return best, nil
}

// Report is a result as text: the seed, the sequence and what broke.
func Report(seed int64, res *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d: %d steps, %d applies, %d steps failed in Terraform, %d violations\n",
		seed, len(res.Steps), res.Applies, res.Failed, len(res.Violations))
	for i, s := range res.Steps {
		fmt.Fprintf(&b, "  %d. %s\n", i, s)
	}
	for _, v := range res.Violations {
		fmt.Fprintf(&b, "  VIOLATION %s\n", v)
	}
	return b.String()
}
