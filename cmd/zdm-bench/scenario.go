package main

import (
	"context"
)

// A scenario is one section of the benchmark, in a file of its own: it
// measures into the results and renders its part of the report. To add one,
// write its file (its run function, its result type and its report), give
// its results a field of results, and add it to scenarios.
type scenario struct {
	// name selects it with -only.
	name string
	// option is the key of Options that sets its scale ("sizes", "points"),
	// which -render takes along with its results.
	option string
	// enabled says whether the options ask for it (-points 0 skips the time
	// series, for example).
	enabled func(o options) bool
	// run measures, storing its results into res.
	run func(ctx context.Context, b *bench, res *results) error
	// measured says whether res holds its results; take copies them from src
	// into dst (-render of several runs).
	measured func(res *results) bool
	take     func(dst, src *results)
	// report writes its section of bench/RESULTS.md: tables and findings.
	report func(w printf, res *results)
	// targets are its goals, listed together at the end of the report.
	targets func(res *results) []target
	// summary, when set, is what the performance guide shows of it: the
	// text between <!-- bench:NAME:begin --> and <!-- bench:NAME:end -->.
	summary func(res *results) string
}

// scenarios run in this order.
var scenarios = []scenario{sizesScenario, queryScenario, timeseriesScenario, fleetStatusScenario, fleetDevicesScenario, faultsScenario, shareScenario, scaleScenario, ownScenario, shardsScenario, healthReadScenario, gateCostScenario}

// selected says whether the run measures sc.
func (o options) selected(sc scenario) bool {
	return (o.only == "" || o.only == sc.name) && sc.enabled(o)
}

// printf writes formatted text to a report.
type printf func(format string, args ...any)
