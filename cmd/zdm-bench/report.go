package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// results are everything one run measured: one field per scenario.
type results struct {
	Machine      machine             `json:"machine"`
	Options      map[string]string   `json:"options"`
	Sizes        []sizeResult        `json:"sizes"`
	Query        *queryResult        `json:"query,omitempty"`
	Timeseries   *timeseriesResult   `json:"timeseries,omitempty"`
	FleetStatus  *fleetStatusResult  `json:"fleet_status,omitempty"`
	FleetDevices *fleetDevicesResult `json:"fleet_devices,omitempty"`
	Faults       *faultResult        `json:"faults,omitempty"`
	Share        *shareResult        `json:"share,omitempty"`
	Scale        *scaleResult        `json:"scale,omitempty"`
	Own          *ownResult          `json:"own,omitempty"`
	Shards       *shardsResult       `json:"shards,omitempty"`
	HealthRead   *healthReadResult   `json:"health_read,omitempty"`
	GateCost     *gateCostResult     `json:"gate_cost,omitempty"`
	Finished     time.Time           `json:"finished"`
}

func writeJSON(path string, res *results) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// mergeResults returns base with the scenarios that next measured replaced
// by those of next, with the option that sets their scale. The machine and
// the other options stay those of base, the first run.
func mergeResults(base, next *results) *results {
	if base == nil {
		return next
	}
	merged := *base
	merged.Options = maps.Clone(base.Options)
	if merged.Options == nil {
		merged.Options = map[string]string{}
	}
	for _, sc := range scenarios {
		if sc.measured(next) {
			sc.take(&merged, next)
			merged.Options[sc.option] = next.Options[sc.option]
		}
	}
	return &merged
}

// target is one of the goals of the benchmark.
type target struct {
	name, measured string
	met            bool
}

// renderTables is the section of each scenario measured, then the targets.
func renderTables(res *results) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	var targets []target
	for _, sc := range scenarios {
		if sc.measured(res) {
			sc.report(w, res)
			targets = append(targets, sc.targets(res)...)
		}
	}
	w("## Targets\n\n")
	writeHeader(w, []string{"target", "measured", "result"})
	for _, t := range targets {
		mark := "met"
		if !t.met {
			mark = "**missed**"
		}
		w("| %s | %s | %s |\n", t.name, t.measured, mark)
	}
	return b.String()
}

// renderResults is bench/RESULTS.md: the tables, the plot, the machine and
// how to run it again.
func renderResults(res *results, tables, plot string) []byte {
	m := res.Machine
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Benchmark results\n\n")
	w("Written by `make bench` (`cmd/zdm-bench`): the provider driven by the real Terraform CLI against the local ZDM " +
		"server, on loopback, compared in the same run with Terraform's built-in `terraform_data` (Terraform's own floor) " +
		"and with a *plugin floor*: a provider with the same `zdm_device` schema whose operations do nothing. The ratios " +
		"are what matter; absolute times depend on the machine. The user's summary is the performance guide " +
		"(`docs/guides/performance.md`).\n\n")
	if plot != "" {
		w("![Wall time of each step against N](%s)\n\n", plot)
	}
	w("%s\n", tables)
	w("## Machine\n\n")
	writeHeader(w, []string{"", ""})
	w("| CPUs | %d (%s) |\n", m.CPUs, m.CPUModel)
	w("| memory | %.1f GiB |\n", m.MemoryGiB)
	w("| load average at the start (1, 5, 15 min) | %s |\n", m.LoadStart)
	w("| system | %s |\n", m.Kernel)
	w("| Terraform | %s |\n", m.Terraform)
	w("| Go | %s |\n", m.GoVersion)
	w("| provider started by | %s |\n", res.Options["mode"])
	w("| date | %s |\n\n", m.Started.Format("2006-01-02"))
	w("The machine may have been shared with other work while the benchmark ran, so absolute times are noisy; each step " +
		"ran on `terraform_data` and on the provider back to back, so that both saw the same load.\n\n")
	w("## Reproduce\n\n```shell\n")
	w("make bench        # N = 100, 1,000, 2,000; query of 10,000; 175,000 points; rewrites this report, its plot and the guide's numbers\n")
	w("make bench-quick  # N = 100 and 500 in a couple of minutes; prints the tables only\n")
	w("go run ./cmd/zdm-bench -only sizes -sizes 100,1000 -out '' -plot '' -guide ''  # any subset, tables only\n")
	w("```\n\nIt needs Go and a Terraform CLI >= 1.14 (`scripts/install-terraform.sh` builds one; or `-terraform`). It only " +
		"talks to loopback addresses. Flags: `go run ./cmd/zdm-bench -help`.\n")
	return []byte(b.String())
}

// updateGuide replaces, in the guide's text, the region of each scenario
// with a summary by that scenario's: the text between
// <!-- bench:NAME:begin --> and <!-- bench:NAME:end -->.
func updateGuide(guide []byte, res *results) ([]byte, error) {
	for _, sc := range scenarios {
		if sc.summary == nil || !sc.measured(res) {
			continue
		}
		text := sc.summary(res)
		if text == "" {
			continue
		}
		begin, end := []byte("<!-- bench:"+sc.name+":begin -->\n"), []byte("<!-- bench:"+sc.name+":end -->")
		i, j := bytes.Index(guide, begin), bytes.Index(guide, end)
		if i < 0 || j < i {
			return nil, fmt.Errorf("the guide has no region %s...%s", bytes.TrimSpace(begin), end)
		}
		guide = slices.Concat(guide[:i+len(begin)], []byte(text), guide[j:])
	}
	return guide, nil
}

// writeHeader writes a table header: text columns are left-aligned, numbers
// right-aligned.
func writeHeader(w printf, head []string) {
	w("| %s |\n|", strings.Join(head, " | "))
	for _, h := range head {
		switch {
		case h == "" || h == "step" || h == "measure" || h == "target" || h == "measured" || h == "result" ||
			strings.HasPrefix(h, "API"):
			w("---|")
		default:
			w("--:|")
		}
	}
	w("\n")
}

// requestsText lists the requests by route, most frequent first, without
// the workspace prefix.
func requestsText(routes map[string]int64) string {
	if len(routes) == 0 {
		return "none"
	}
	keys := slices.Collect(maps.Keys(routes))
	slices.SortFunc(keys, func(a, b string) int {
		if routes[a] != routes[b] {
			return int(routes[b] - routes[a])
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		label := strings.Replace(k, "/v3/workspaces/{workspace_id}", "…", 1)
		label = strings.ReplaceAll(label, "{device_id}", "{id}")
		parts = append(parts, fmt.Sprintf("%s `%s`", num(int(routes[k])), label))
	}
	return strings.Join(parts, ", ")
}

// num formats n with thousands separators.
func num(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func times(r float64) string { return fmt.Sprintf("%.2fx", r) }

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }
