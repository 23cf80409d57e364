// Command zdm-modelcheck runs the model checker of internal/modelcheck:
// random sequences of Terraform operations against zdm-local, checked for
// duplicates and resends after every step. Each sequence i of -sequences
// uses the seed -seed+i; a failing one is shrunk and printed with its
// seed, and the command exits 1.
//
//	go run ./cmd/zdm-modelcheck -terraform "$(scripts/install-terraform.sh)" -seed 1 -n 20 -sequences 5
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/modelcheck"
)

func main() {
	terraform := flag.String("terraform", os.Getenv("TF_ACC_TERRAFORM_PATH"), "path of the Terraform or OpenTofu CLI")
	host := flag.String("host", "registry.terraform.io", "registry host the CLI resolves zdm/zdm under (registry.opentofu.org for OpenTofu)")
	seed := flag.Int64("seed", 1, "seed of the first sequence")
	n := flag.Int("n", 20, "steps per sequence")
	sequences := flag.Int("sequences", 1, "sequences to run (seeds seed, seed+1, ...)")
	short := flag.Bool("short", false, "draw only the operations of the short run (ShortOps)")
	fleet := flag.Bool("fleet", false, "draw only the fleet-wide and rollout operations (FleetOps)")
	fota := flag.Bool("fota", false, "draw only the firmware updates of one device, with the device edits around them (FOTAOps)")
	mutant := flag.Bool("mutant", false, "check the provider built with -tags zdm_mutant_nogate (the positive control)")
	shrink := flag.Bool("shrink", true, "shrink a failing sequence")
	budget := flag.Duration("budget", 0, "stop starting sequences after this long (0: no limit)")
	verbose := flag.Bool("v", false, "print each step")
	skip := flag.String("skip", "", "operations not to draw, comma-separated (such as job-taint,fleet-taint: holes already known)")
	flag.Parse()
	if *terraform == "" {
		fmt.Fprintln(os.Stderr, "zdm-modelcheck: -terraform (or TF_ACC_TERRAFORM_PATH) is required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ops := modelcheck.LongOps
	if *short {
		ops = modelcheck.ShortOps
	}
	if *fleet {
		ops = modelcheck.FleetOps
	}
	if *fota {
		ops = modelcheck.FOTAOps
	}
	ops = slices.DeleteFunc(slices.Clone(ops), func(op modelcheck.Op) bool {
		return slices.Contains(strings.Split(*skip, ","), string(op))
	})
	os.Exit(run(ctx, *terraform, *host, *seed, *n, *sequences, ops, *mutant, *shrink, *budget, *verbose))
}

func run(ctx context.Context, terraform, host string, seed int64, n, sequences int, ops []modelcheck.Op, mutant, shrink bool,
	budget time.Duration, verbose bool) int {
	work, err := os.MkdirTemp("", "zdm-modelcheck-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(work)
	var tags []string
	if mutant {
		tags = append(tags, "zdm_mutant_nogate")
	}
	if err := modelcheck.BuildProvider(ctx, ".", work, tags...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	opts := modelcheck.Options{Terraform: terraform, ProviderDir: work, Host: host, Ops: ops, WorkDir: work}
	if verbose {
		opts.Log = func(format string, args ...any) { fmt.Printf(format+"\n", args...) }
	}
	start := time.Now()
	failed, steps, applies := 0, 0, 0
	ran := 0
	for i := range sequences {
		if budget > 0 && time.Since(start) > budget {
			break
		}
		s := seed + int64(i)
		res, err := modelcheck.Check(ctx, opts, s, n, false)
		if err != nil {
			fmt.Fprintf(os.Stderr, "seed %d: %v\n", s, err)
			return 2
		}
		ran++
		steps += len(res.Steps)
		applies += res.Applies
		if len(res.Violations) == 0 {
			fmt.Printf("seed %d: %d steps, %d applies, %d failed in Terraform: no violation\n", s, len(res.Steps), res.Applies, res.Failed)
			continue
		}
		failed++
		fmt.Print(modelcheck.Report(s, res))
		if shrink {
			sopts := opts
			sopts.StopAtFirst = true
			min, err := modelcheck.Shrink(ctx, sopts, res)
			if err != nil {
				fmt.Fprintf(os.Stderr, "seed %d: shrink: %v\n", s, err)
			}
			fmt.Printf("minimal sequence of seed %d:\n%s", s, modelcheck.Report(s, min))
		}
	}
	fmt.Printf("zdm-modelcheck: %d sequences of %d steps (%d steps, %d applies) in %s: %d with violations\n",
		ran, n, steps, applies, time.Since(start).Round(time.Second), failed)
	if failed > 0 {
		return 1
	}
	return 0
}
