// Command zdm-bench measures the provider with the real Terraform CLI
// against the local ZDM server, and compares each step with the same step on
// Terraform's built-in terraform_data resource (Terraform's own floor).
//
// It starts the local server in-process (loopback only), builds the provider
// binary, and for each size N of -sizes runs, in fresh working directories:
// apply (create N devices), a no-op plan (refresh N), and an apply that
// renames all N; then the create and the no-op plan again with -latency added
// to every API request, against the network floor N x latency / parallelism.
// It runs terraform query over -query-size devices, and reads -points data
// points with the client's StreamData, a bare encoding/json decoder and the
// zdm_timeseries data source. It reads the firmware status of -fleet-status
// devices with zdm_fleet_status at -latency, and applies -fault-size devices
// while the service answers 10% of the requests 503 and rate-limits the key
// (429), reporting missing and duplicated devices and whether the plan after
// is empty. For every step it reports the wall time, the API requests by
// route (from the server's counters) and the provider's peak RSS.
//
// Usage:
//
//	go run ./cmd/zdm-bench [-quick] [-sizes 100,1000,2000] [-query-size 10000] [-points 175000]
//	go run ./cmd/zdm-bench -only timeseries -json ts.json       # one section
//	go run ./cmd/zdm-bench -only fleetstatus                    # zdm_fleet_status, 1,000 devices
//	go run ./cmd/zdm-bench -render full.json,ts.json            # merged report
//	go run ./cmd/zdm-bench -only shards -shards 50 -shard-size 10000  # states planned at once
//
// It prints its tables, and writes the report (-out, bench/RESULTS.md), its
// plot (-plot, a PNG image drawn with gonum's plot) and the numbers of the
// performance guide (-guide, the regions marked <!-- bench:NAME:begin --> in
// templates/guides/performance.md.tmpl; `make generate` renders it to docs/).
// Each section of the benchmark is a scenario in a file of its own
// (scenario.go).
//
// Size: one scenario a file, each about 200 lines of configuration writing,
// running and reporting; the command is its scenarios, so it grows with
// them rather than holding a concept that could stand alone.
//
// Loop: scenario.go lists every scenario (its run function and report),
// and every scenario uses the shared pieces of main.go and bench.go (the
// options, the server, the CLI runs, the results): a registry and its
// entries, so the files of the scenarios are one loop with it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// options are the command-line settings.
type options struct {
	sizes        []int
	querySize    int
	points       int
	fleetStatus  int
	fleetDevices int
	faultSize    int
	shareSize    int
	shareApplies string
	shareHeaders string
	healthSize   int
	// gateBaselineRef, gateDevices, gateRollout and gateRepeat set the
	// cost of the checks before writes (gatecost.go).
	gateBaselineRef string
	gateDevices     int
	gateRollout     int
	gateRepeat      int
	scale           []scaleSpec
	own             []int
	ownFleet        int
	// shards, shardSize and shardParallel set the states of one
	// workspace planned at once (shards.go).
	shards        int
	shardSize     int
	shardParallel int
	scaleLatency  time.Duration
	latency       time.Duration
	parallelism   int
	planRepeat    int
	terraform     string
	out           string
	plot          string
	guide         string
	jsonOut       string
	render        string
	only          string
	work          string
	keep          bool
	reattach      bool
	floor         bool
	quick         bool
}

func main() {
	if isNullProvider() {
		if err := serveNullProvider(); err != nil {
			fmt.Fprintln(os.Stderr, "null provider:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == measureCommand {
		if err := runMeasureChild(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "zdm-bench:", err)
			os.Exit(1)
		}
		return
	}
	opts, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "zdm-bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, opts); err != nil {
		fmt.Fprintln(os.Stderr, "zdm-bench:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("zdm-bench", flag.ContinueOnError)
	sizes := fs.String("sizes", "100,1000,2000", "comma-separated numbers of devices for the apply/plan/update steps")
	fs.IntVar(&o.querySize, "query-size", 10000, "number of devices listed by terraform query (0 skips the step)")
	fs.IntVar(&o.points, "points", 175000, "number of data points read (0 skips the time-series step)")
	fs.IntVar(&o.faultSize, "fault-size", 1000, "number of devices of the fault apply (10% 503 and a 429 limit; 0 skips it)")
	fs.IntVar(&o.shareSize, "share-size", 1000, "devices per apply of the shared rate limit (1, 2, 4 and 8 applies at once on one key; 0 skips it)")
	fs.StringVar(&o.shareApplies, "share-applies", "1,2,4,8", "comma-separated numbers of applies at once of the shared rate limit")
	fs.StringVar(&o.shareHeaders, "share-headers", "none,ietf", "comma-separated quota headers the local server sends in the shared rate limit: none, ietf, draft, x")
	scale := fs.String("scale", "1x100000,100x10000", "comma-separated RESOURCESxDEVICES: zdm_fleet_devices in one workspace, "+
		"created without latency and planned, against the null provider's (0 skips them)")
	fs.DurationVar(&o.scaleLatency, "scale-latency", 0, "latency added to every API request of the scale creates, "+
		"reported against the network floor (0: none)")
	own := fs.String("own", "0", "comma-separated numbers of devices W of a workspace in which a state of one fleet of "+
		"-own-fleet devices is planned with no change; the first is the base of the provider's memory ratio (0 skips it)")
	fs.IntVar(&o.ownFleet, "own-fleet", 10000, "devices of the state's fleet in the -own workspaces")
	fs.IntVar(&o.shards, "shards", 0, "number of states, each one fleet of -shard-size devices of one workspace, "+
		"planned with no change -shard-parallel at a time against a lone workspace of one fleet (0 skips it)")
	fs.IntVar(&o.shardSize, "shard-size", 10000, "devices of each fleet of -shards")
	fs.IntVar(&o.shardParallel, "shard-parallel", 8, "plans of -shards at a time")
	fs.IntVar(&o.healthSize, "health-size", 1000, "devices of the rollout wave whose health points are read with -latency (0 skips it)")
	fs.StringVar(&o.gateBaselineRef, "gate-baseline-ref", "", "git ref of a provider before the checks that read the service "+
		"before writes: build it and compare its create of -gate-devices zdm_fleet_devices, their no-op plan and a rollout "+
		"over -gate-rollout devices with this provider's, every request waiting -latency (empty skips it)")
	fs.IntVar(&o.gateDevices, "gate-devices", 10000, "devices of the zdm_fleet_devices create of -gate-baseline-ref (0 skips it)")
	fs.IntVar(&o.gateRollout, "gate-rollout", 1000, "devices of the zdm_job_rollout of -gate-baseline-ref (0 skips it)")
	fs.IntVar(&o.gateRepeat, "gate-repeat", 2, "runs of each step of -gate-baseline-ref with each provider, alternating them")
	fs.IntVar(&o.fleetDevices, "fleet-devices", 10000, "number of devices of the zdm_fleet_devices steps, against 2,000 zdm_device (0 skips them)")
	fs.IntVar(&o.fleetStatus, "fleet-status", 1000, "number of devices whose firmware status zdm_fleet_status reads with -latency (0 skips the step)")
	fs.DurationVar(&o.latency, "latency", 20*time.Millisecond, "latency added to every API request in the latency steps (0 skips them)")
	fs.IntVar(&o.parallelism, "parallelism", 10, "terraform -parallelism")
	fs.IntVar(&o.planRepeat, "plan-repeat", 3, "runs of each no-op plan (the median is reported)")
	fs.StringVar(&o.terraform, "terraform", "", "Terraform CLI (default: the path scripts/install-terraform.sh prints)")
	fs.StringVar(&o.out, "out", "bench/RESULTS.md", "report to write (empty: none)")
	fs.StringVar(&o.plot, "plot", "bench/performance.png", "plot to write, a PNG image (empty: none)")
	fs.StringVar(&o.guide, "guide", "templates/guides/performance.md.tmpl", "guide whose bench regions to update (empty: none)")
	fs.StringVar(&o.jsonOut, "json", "", "also write the raw results as JSON to this file")
	fs.StringVar(&o.render, "render", "", "run nothing: write the report and plot of the results in these comma-separated JSON "+
		"files (from -json); the sections (sizes, query, timeseries) of a later file replace those of the earlier ones")
	fs.StringVar(&o.only, "only", "", "run only this scenario: "+scenarioNames()+" (no report files unless -out, -plot "+
		"or -guide are given; merge its -json results into a full run's with -render full.json,part.json)")
	fs.StringVar(&o.work, "work", "", "working directory (default: a new temporary directory)")
	fs.BoolVar(&o.keep, "keep", false, "keep the working directory")
	fs.BoolVar(&o.reattach, "reattach", false, "serve the provider in debug mode and attach Terraform to it "+
		"(exact rusage; the provider's start-up is then not part of the wall times)")
	fs.BoolVar(&o.floor, "floor", true, "also run each step on the null provider: zdm_device's schema, no work (the plugin floor)")
	fs.BoolVar(&o.quick, "quick", false, "small run for a quick check: -sizes 100,500 -query-size 1000 -points 20000 "+
		"-plan-repeat 1, and no report files unless -out, -plot or -guide are given")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if o.quick {
		defaults := map[string]func(){
			"sizes":         func() { *sizes = "100,500" },
			"query-size":    func() { o.querySize = 1000 },
			"points":        func() { o.points = 20000 },
			"fleet-status":  func() { o.fleetStatus = 200 },
			"fleet-devices": func() { o.fleetDevices = 500 },
			"fault-size":    func() { o.faultSize = 300 },
			"share-size":    func() { o.shareSize = 200 },
			"health-size":   func() { o.healthSize = 200 },
			"gate-devices":  func() { o.gateDevices = 500 },
			"gate-rollout":  func() { o.gateRollout = 200 },
			"scale":         func() { *scale = "1x2000,4x500" },
			"plan-repeat":   func() { o.planRepeat = 1 },
			"out":           func() { o.out = "" },
			"plot":          func() { o.plot = "" },
			"guide":         func() { o.guide = "" },
		}
		for name, apply := range defaults {
			if !set[name] {
				apply()
			}
		}
	}
	for _, s := range strings.Split(*sizes, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return o, fmt.Errorf("-sizes: %q is not a positive number", s)
		}
		o.sizes = append(o.sizes, n)
	}
	var err error
	if o.scale, err = parseScale(*scale); err != nil {
		return o, err
	}
	if o.own, err = parseOwn(*own, o.ownFleet); err != nil {
		return o, err
	}
	if o.only != "" {
		if !slices.ContainsFunc(scenarios, func(sc scenario) bool { return sc.name == o.only }) {
			return o, fmt.Errorf("-only: %q is not one of %s", o.only, scenarioNames())
		}
		// A partial run writes no report unless asked: it would replace the
		// whole report (merge it with -render instead).
		for name, path := range map[string]*string{"out": &o.out, "plot": &o.plot, "guide": &o.guide} {
			if !set[name] {
				*path = ""
			}
		}
	}
	switch {
	case o.querySize < 0 || o.points < 0 || o.latency < 0 || o.fleetStatus < 0 || o.fleetDevices < 0 || o.faultSize < 0 || o.shareSize < 0 || o.healthSize < 0 ||
		o.gateDevices < 0 || o.gateRollout < 0:
		return o, errors.New("-query-size, -points, -fleet-status, -fault-size, -gate-devices, -gate-rollout and -latency must not be negative")
	case o.only == gateCostScenario.name && o.gateBaselineRef == "":
		return o, errors.New("-only gatecost needs -gate-baseline-ref (the git ref of the provider to compare with)")
	case o.shards < 0 || (o.shards > 0 && (o.shardSize < 1 || o.shardParallel < 1)):
		return o, errors.New("-shards must not be negative, -shard-size and -shard-parallel must be at least 1")
	case o.parallelism < 1 || o.planRepeat < 1 || o.gateRepeat < 1:
		return o, errors.New("-parallelism, -plan-repeat and -gate-repeat must be at least 1")
	case o.points > 175000:
		return o, errors.New("-points: at most 175000 (one page of the storage service)")
	}
	return o, nil
}

func run(ctx context.Context, o options) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	if o.render != "" {
		var res *results
		for _, path := range strings.Split(o.render, ",") {
			b, err := os.ReadFile(path) //nolint:gosec // G304: a results file named on the command line.
			if err != nil {
				return err
			}
			var r results
			if err := json.Unmarshal(b, &r); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			res = mergeResults(res, &r)
		}
		return writeReport(root, o, res)
	}
	if o.terraform == "" {
		logf("locating the Terraform CLI (scripts/install-terraform.sh)")
		if o.terraform, err = installTerraform(ctx, root); err != nil {
			return err
		}
	}
	work := o.work
	if work == "" {
		if work, err = os.MkdirTemp("", "zdm-bench-"); err != nil {
			return err
		}
	} else if err := os.MkdirAll(work, 0o750); err != nil {
		return err
	}
	if !o.keep && o.work == "" {
		defer func() { _ = os.RemoveAll(work) }()
	}
	logf("working directory %s", work)

	b, err := newBench(ctx, o, root, work)
	if err != nil {
		return err
	}
	defer b.close()

	res := &results{Machine: describeMachine(ctx, o.terraform), Options: o.describe()}
	for _, sc := range scenarios {
		if o.selected(sc) {
			if err := sc.run(ctx, b, res); err != nil {
				return err
			}
		}
	}
	res.Finished = time.Now().UTC()
	if o.jsonOut != "" {
		if err := writeJSON(o.jsonOut, res); err != nil {
			return err
		}
	}
	return writeReport(root, o, res)
}

// writeReport prints the tables of res and writes the report, the plot and
// the guide's numbers.
func writeReport(root string, o options, res *results) error {
	tables := renderTables(res)
	fmt.Println(tables)
	plotLink := ""
	if o.plot != "" && sizesScenario.measured(res) {
		png, err := renderPlot(res)
		if err != nil {
			return err
		}
		if err := writeFile(inRepo(root, o.plot), png); err != nil {
			return err
		}
		logf("wrote %s", o.plot)
		if o.out != "" {
			if plotLink, err = filepath.Rel(filepath.Dir(inRepo(root, o.out)), inRepo(root, o.plot)); err != nil {
				return err
			}
		}
	}
	if o.out != "" {
		if err := writeFile(inRepo(root, o.out), renderResults(res, tables, filepath.ToSlash(plotLink))); err != nil {
			return err
		}
		logf("wrote %s", o.out)
	}
	if o.guide != "" {
		path := inRepo(root, o.guide)
		guide, err := os.ReadFile(path) //nolint:gosec // G304: a file of the repository named by -guide.
		if err != nil {
			return err
		}
		if guide, err = updateGuide(guide, res); err != nil {
			return fmt.Errorf("%s: %w", o.guide, err)
		}
		if err := writeFile(path, guide); err != nil {
			return err
		}
		logf("updated %s (run make generate)", o.guide)
	}
	return nil
}

// scenarioNames lists the names of the scenarios, for -only.
func scenarioNames() string {
	names := make([]string, len(scenarios))
	for i, sc := range scenarios {
		names[i] = sc.name
	}
	return strings.Join(names, ", ")
}

// describe returns the settings that shape the results, for the report.
func (o options) describe() map[string]string {
	sizes := make([]string, len(o.sizes))
	for i, n := range o.sizes {
		sizes[i] = strconv.Itoa(n)
	}
	mode := "dev_overrides (Terraform starts the provider)"
	if o.reattach {
		mode = "reattach (provider served in debug mode)"
	}
	return map[string]string{
		"sizes":             strings.Join(sizes, ","),
		"query_size":        strconv.Itoa(o.querySize),
		"points":            strconv.Itoa(o.points),
		"fleet_status":      strconv.Itoa(o.fleetStatus),
		"fleet_devices":     strconv.Itoa(o.fleetDevices),
		"fault_size":        strconv.Itoa(o.faultSize),
		"share_size":        strconv.Itoa(o.shareSize),
		"health_size":       strconv.Itoa(o.healthSize),
		"gate_baseline_ref": o.gateBaselineRef,
		"scale":             scaleText(o.scale),
		"scale_latency":     o.scaleLatency.String(),
		"own":               ownText(o.own, o.ownFleet),
		"shards":            shardsText(o.shards, o.shardSize, o.shardParallel),
		"latency":           o.latency.String(),
		"parallelism":       strconv.Itoa(o.parallelism),
		"plan_repeat":       strconv.Itoa(o.planRepeat),
		"mode":              mode,
	}
}

// logf reports progress on standard error.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s zdm-bench: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// inRepo resolves a path relative to the repository's root.
func inRepo(root, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(root, path)
}

func writeFile(path string, content []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return err
	}
	return os.WriteFile(path, content, 0o644) //nolint:gosec // G306: a file of the repository, readable like the others.
}
