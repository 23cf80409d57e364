package main

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// results are everything one run measured.
type results struct {
	Machine     machine            `json:"machine"`
	Options     map[string]string  `json:"options"`
	Sizes       []sizeResult       `json:"sizes"`
	Query       *queryResult       `json:"query,omitempty"`
	Timeseries  *timeseriesResult  `json:"timeseries,omitempty"`
	FleetStatus *fleetStatusResult `json:"fleet_status,omitempty"`
	Finished    time.Time          `json:"finished"`
}

func writeJSON(path string, res *results) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// report is the rendered results.
type report struct {
	res   *results
	table string // the tables, for standard output and the page
}

func renderReport(res *results) report {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	o := res.Options

	if len(res.Sizes) > 0 {
		floor := hasFloor(res)
		w("### Provider against terraform_data\n\n")
		w("Wall time of each Terraform command with `-parallelism=%s`; a no-op plan is the median of %s runs. ", o["parallelism"], o["plan_repeat"])
		w("The ratios are the provider's time over the same step on as many `terraform_data` resources")
		if floor {
			w(", and over the *plugin floor*: a provider with the same `zdm_device` schema and identity whose operations do " +
				"nothing (what Terraform, the plugin protocol and the framework cost any provider)")
		}
		w(". API requests are those of the run that made the most.\n\n")
		head := []string{"N", "step", "terraform_data"}
		if floor {
			head = append(head, "plugin floor")
		}
		head = append(head, "zdm_device", "ratio to terraform_data")
		if floor {
			head = append(head, "ratio to the floor")
		}
		head = append(head, "API requests (zdm_device)")
		writeHeader(w, head)
		for _, s := range res.Sizes {
			for _, st := range s.Steps {
				row := []string{num(s.N), st.Name, secs(st.Baseline.Wall)}
				if floor {
					row = append(row, optional(st.Floor, func(m *measurement) string { return secs(m.Wall) }))
				}
				row = append(row, secs(st.ZDM.Wall), fmt.Sprintf("%.2fx", st.ratio()))
				if floor {
					row = append(row, optional(st.Floor, func(*measurement) string { return fmt.Sprintf("%.2fx", st.floorRatio()) }))
				}
				row = append(row, requestsText(st.ZDM.Requests))
				w("| %s |\n", strings.Join(row, " | "))
			}
		}
		w("\n")
		w("CPU time of Terraform and the provider processes together (less sensitive than wall time to the other load of the " +
			"machine), and the provider's peak resident memory:\n\n")
		head = []string{"N", "step", "CPU terraform_data"}
		if floor {
			head = append(head, "CPU plugin floor")
		}
		head = append(head, "CPU zdm_device", "of which the provider", "CPU ratio to terraform_data")
		if floor {
			head = append(head, "CPU ratio to the floor", "peak RSS plugin floor")
		}
		head = append(head, "peak RSS zdm_device")
		writeHeader(w, head)
		for _, s := range res.Sizes {
			for _, st := range s.Steps {
				row := []string{num(s.N), st.Name, secs(st.Baseline.TotalCPU)}
				if floor {
					row = append(row, optional(st.Floor, func(m *measurement) string { return secs(m.TotalCPU) }))
				}
				row = append(row, secs(st.ZDM.TotalCPU), secs(st.ZDM.CPU), fmt.Sprintf("%.2fx", ratio(st.ZDM.TotalCPU, st.Baseline.TotalCPU)))
				if floor {
					row = append(row,
						optional(st.Floor, func(m *measurement) string { return fmt.Sprintf("%.2fx", ratio(st.ZDM.TotalCPU, m.TotalCPU)) }),
						optional(st.Floor, func(m *measurement) string { return mib(m.RSS) }))
				}
				row = append(row, mib(st.ZDM.RSS))
				w("| %s |\n", strings.Join(row, " | "))
			}
		}
		w("\n")
	}

	if hasLatency(res) {
		w("### With %s of latency per request\n\n", o["latency"])
		w("Every API request waits %s in the local server. The network floor of a create is N x %s / %s (parallelism): "+
			"the time the N requests take when nothing else costs anything.\n\n", o["latency"], o["latency"], o["parallelism"])
		w("| N | apply: create N | network floor | ratio to floor | create without latency | ratio to it | plan: refresh N | API requests (plan) |\n")
		w("|--:|----------------:|--------------:|---------------:|-----------------------:|------------:|----------------:|---------------------|\n")
		for _, s := range res.Sizes {
			if s.Latency == nil {
				continue
			}
			l := s.Latency
			plain := stepOf(s, stepCreate).ZDM.Wall
			w("| %s | %s | %s | %.2fx | %s | %.2fx | %s | %s |\n", num(s.N), secs(l.Create.Wall), secs(l.Floor),
				float64(l.Create.Wall)/float64(l.Floor), secs(plain), ratio(l.Create.Wall, plain), secs(l.Plan.Wall),
				requestsText(l.Plan.Requests))
		}
		w("\n")
	}

	if q := res.Query; q != nil {
		w("### terraform query\n\n")
		w("`terraform query` of a `list \"zdm_device\"` block over a workspace of N devices (`limit = N`).\n\n")
		w("| N | results | wall | API requests | provider peak RSS |\n")
		w("|--:|--------:|-----:|--------------|------------------:|\n")
		w("| %s | %s | %s | %s | %s |\n\n", num(q.N), num(q.Results), secs(q.M.Wall), requestsText(q.M.Requests), mib(q.M.RSS))
	}

	if t := res.Timeseries; t != nil {
		w("### Time series\n\n")
		w("One page of %s data points, %s of JSON. Decoding: the same bytes in memory, decoded into the client's "+
			"`DataPoint` values by a bare `encoding/json` decoder and by the client's `StreamData` (which keeps every point, as "+
			"the data source does); medians of %d runs. Peak RSS: a process that reads the page from the local server and keeps "+
			"every point, and `terraform plan` reading it with the `zdm_timeseries` data source (the provider's process), "+
			"into the list `points` and, with `as_json = true`, into the string `points_json`.\n\n",
			num(t.Points), mib(t.JSONBytes), t.DecodeRepeats)
		w("| measure | value | relative |\n")
		w("|---------|------:|---------:|\n")
		w("| decode, bare `json.Decoder` | %s | 1.00x |\n", ms(t.BareDecode))
		w("| decode, `StreamData` | %s | %.2fx the bare decoder |\n", ms(t.StreamDecode), ratio(t.StreamDecode, t.BareDecode))
		w("| allocated, bare decoder | %s | %.2fx the JSON |\n", mib(t.BareAlloc), float64(t.BareAlloc)/float64(t.JSONBytes))
		w("| allocated, `StreamData` | %s | %.2fx the JSON |\n", mib(t.StreamAlloc), float64(t.StreamAlloc)/float64(t.JSONBytes))
		w("| peak RSS, process that only starts | %s | |\n", mib(t.IdleRSS))
		w("| peak RSS, bare decoder over HTTP | %s | %.2fx the JSON |\n", mib(t.BareRSS), float64(t.BareRSS)/float64(t.JSONBytes))
		w("| peak RSS, `StreamData` over HTTP | %s | %.2fx the JSON |\n", mib(t.StreamRSS), float64(t.StreamRSS)/float64(t.JSONBytes))
		if t.DataSource != nil && t.DataSourceMin != nil {
			w("| provider peak RSS, plan reading 1 point | %s | |\n", mib(t.DataSourceMin.RSS))
			w("| provider peak RSS, plan reading every point into `points` (list) | %s | %.2fx the JSON |\n", mib(t.DataSource.RSS),
				float64(t.DataSource.RSS)/float64(t.JSONBytes))
			w("| wall time of that plan | %s | |\n", secs(t.DataSource.Wall))
		}
		if j := t.DataSourceJSON; j != nil {
			w("| provider peak RSS, plan reading every point with `as_json = true` | %s | %.2fx the JSON |\n", mib(j.RSS),
				float64(j.RSS)/float64(t.JSONBytes))
			w("| wall time of that plan | %s | |\n", secs(j.Wall))
		}
		w("\n")
	}

	w("%s", fleetStatusSection(res.FleetStatus))
	if text := findings(res); text != "" {
		w("### What the numbers say\n\n%s\n", text)
	}

	w("### Targets\n\n")
	w("| target | measured | |\n|--------|----------|-|\n")
	for _, t := range targets(res) {
		mark := "met"
		if !t.met {
			mark = "**missed**"
		}
		w("| %s | %s | %s |\n", t.name, t.measured, mark)
	}
	return report{res: res, table: b.String()}
}

// findings explains the largest size's results in a few sentences.
func findings(res *results) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	if len(res.Sizes) > 0 {
		s := slices.MaxFunc(res.Sizes, func(a, b sizeResult) int { return a.N - b.N })
		plan := stepOf(s, stepPlan)
		w("- **Refresh.** A no-op plan of %s devices made %d API requests (one `GET`, then lists of the workspace). ",
			num(s.N), plan.ZDM.totalRequests())
		if plan.Floor != nil {
			w("Its wall time is %.2fx that of `terraform_data`, but the plugin floor, which does no work at all, is already "+
				"%.2fx: that is what Terraform's four calls per resource to a plugin over gRPC, and the framework's handling of "+
				"them, cost. The provider's own work adds %s to the floor in wall time and %s in CPU time.\n",
				plan.ratio(), ratio(plan.Floor.Wall, plan.Baseline.Wall), percent(plan.floorRatio()),
				percent(ratio(plan.ZDM.TotalCPU, plan.Floor.TotalCPU)))
		} else {
			w("Its wall time is %.2fx that of `terraform_data`.\n", plan.ratio())
		}
		if l := s.Latency; l != nil {
			create := stepOf(s, stepCreate)
			w("- **Latency.** With %s added to each request, creating %s devices took %s: %.2fx the network floor of %s, "+
				"and %.2fx the same create without latency (%s). Even `terraform_data` needs %s for that create: "+
				"Terraform's own work per resource, not the network, bounds a create (`-parallelism=%s`).\n",
				l.Latency, num(s.N), secs(l.Create.Wall), float64(l.Create.Wall)/float64(l.Floor), secs(l.Floor),
				ratio(l.Create.Wall, create.ZDM.Wall), secs(create.ZDM.Wall), secs(create.Baseline.Wall), res.Options["parallelism"])
		}
	}
	if t := res.Timeseries; t != nil {
		w("- **Time series.** `StreamData` decodes %s points in %.2fx the time of a bare decoder and allocates %.2fx the "+
			"JSON (the bare decoder %.2fx); a process that keeps every point peaks at %.2fx the JSON.",
			num(t.Points), ratio(t.StreamDecode, t.BareDecode), float64(t.StreamAlloc)/float64(t.JSONBytes),
			float64(t.BareAlloc)/float64(t.JSONBytes), float64(t.StreamRSS)/float64(t.JSONBytes))
		if t.DataSource != nil {
			w(" Through `zdm_timeseries` the provider peaks at %.1fx: the framework holds the points as Terraform values "+
				"(several times the size of their JSON), copies them to compare them with themselves (semantic equality), and "+
				"encodes them for Terraform.", float64(t.DataSource.RSS)/float64(t.JSONBytes))
		}
		if j := t.DataSourceJSON; j != nil {
			w(" With `as_json = true` (the points as one JSON text in `points_json`) it peaks at %.2fx, and the plan takes %s",
				float64(j.RSS)/float64(t.JSONBytes), secs(j.Wall))
			if t.DataSource != nil {
				w(" instead of %s", secs(t.DataSource.Wall))
			}
			w(".")
		}
		if v := timeseriesVerdict(t); v != "" {
			w(" %s", v)
		}
		w("\n")
	}
	return b.String()
}

// maxRSSRatio is the target of the provider's peak RSS reading a page of
// data points, over the size of their JSON.
const maxRSSRatio = 3

// timeseriesVerdict says which mode of zdm_timeseries meets the peak RSS
// target, and which mode large reads should use.
func timeseriesVerdict(t *timeseriesResult) string {
	if t.DataSource == nil || t.DataSourceJSON == nil || t.JSONBytes <= 0 {
		return ""
	}
	listRatio := float64(t.DataSource.RSS) / float64(t.JSONBytes)
	jsonRatio := float64(t.DataSourceJSON.RSS) / float64(t.JSONBytes)
	list, asJSON := listRatio <= maxRSSRatio, jsonRatio <= maxRSSRatio
	target := fmt.Sprintf("the target of a provider peak RSS of at most %dx the JSON", maxRSSRatio)
	switch {
	case asJSON && !list:
		return "Only `as_json = true` meets " + target + "; the `points` list misses it. " +
			"Large reads should use `as_json = true` (and `jsondecode(points_json)` where the points are needed as values)."
	case asJSON && list:
		return "Both modes meet " + target + "; `as_json = true` uses less memory."
	case list:
		return "Only the `points` list meets " + target + "; `as_json = true` misses it."
	case jsonRatio < listRatio:
		return fmt.Sprintf("Neither mode meets %s: `as_json = true` comes closest, at %.2fx against %.2fx for the "+
			"`points` list, and large reads should use it (with `jsondecode(points_json)` where the points are needed as values).",
			target, jsonRatio, listRatio)
	default:
		return "Neither mode meets " + target + "."
	}
}

// percent formats a ratio as the percentage it adds ("+4%"), or says that
// nothing measurable was added.
func percent(r float64) string {
	if r <= 1.005 {
		return "nothing measurable"
	}
	return fmt.Sprintf("%.0f%%", (r-1)*100)
}

// target is one of the goals of the benchmark.
type target struct {
	name, measured string
	met            bool
}

// targets evaluates the goals on the largest size run (2,000 in a full run).
func targets(res *results) []target {
	var out []target
	if len(res.Sizes) > 0 {
		s := slices.MaxFunc(res.Sizes, func(a, b sizeResult) int { return a.N - b.N })
		plan := stepOf(s, stepPlan)
		out = append(out,
			target{fmt.Sprintf("no-op plan of %s devices: at most 5 API requests", num(s.N)),
				fmt.Sprintf("%d", plan.ZDM.totalRequests()), plan.ZDM.totalRequests() <= 5},
			target{fmt.Sprintf("no-op plan of %s devices: at most 1.3x terraform_data", num(s.N)),
				fmt.Sprintf("%.2fx", plan.ratio()), plan.ratio() <= 1.3})
		if l := s.Latency; l != nil {
			r := float64(l.Create.Wall) / float64(l.Floor)
			out = append(out, target{fmt.Sprintf("create of %s devices at %s latency: at most 1.15x the network floor",
				num(s.N), l.Latency), fmt.Sprintf("%.2fx (%s for a floor of %s)", r, secs(l.Create.Wall), secs(l.Floor)), r <= 1.15})
		}
	}
	if q := res.Query; q != nil {
		lists := q.M.Requests["GET /v3/workspaces/{workspace_id}/devices"]
		out = append(out, target{fmt.Sprintf("query of %s devices: 1 list request", num(q.N)),
			fmt.Sprintf("requests: %d, lists: %d", q.M.totalRequests(), lists), q.M.totalRequests() == 1 && lists == 1})
	}
	if t := res.Timeseries; t != nil {
		r := ratio(t.StreamDecode, t.BareDecode)
		out = append(out, target{fmt.Sprintf("%s points: decode at most 1.5x a bare decoder", num(t.Points)),
			fmt.Sprintf("%.2fx", r), r <= 1.5})
		for _, m := range []struct {
			mode string
			m    *measurement
		}{{"`points` list", t.DataSource}, {"`as_json = true`", t.DataSourceJSON}} {
			if m.m == nil {
				continue
			}
			r := float64(m.m.RSS) / float64(t.JSONBytes)
			out = append(out, target{fmt.Sprintf("%s points through the data source (%s): provider peak RSS at most %dx the JSON",
				num(t.Points), m.mode, maxRSSRatio), fmt.Sprintf("%.2fx (%s for %s)", r, mib(m.m.RSS), mib(t.JSONBytes)), r <= maxRSSRatio})
		}
	}
	return append(out, fleetStatusTargets(res.FleetStatus)...)
}

// page is the tfplugindocs template of the performance guide.
func (r report) page(svgPath string) []byte {
	res := r.res
	m := res.Machine
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w(`---
page_title: "Performance"
subcategory: ""
description: |-
  How the zdm provider scales with the number of devices, measured against Terraform's own floor.
---

# Performance

Terraform reads, creates and updates every resource with its own call to the
provider. The provider keeps that cheap:

- **Batched reads.** The reads of the devices (and fleets) of a workspace are
  answered from one shared list request instead of one request per device, so a
  plan of thousands of devices costs a few requests (see "Batched reads" in
  [DESIGN.md](../../DESIGN.md)).
- **Pooled connections.** Concurrent requests (` + "`-parallelism`" + `) reuse their connections.
- **No unread logs.** Unless a ` + "`TF_LOG`" + ` variable asks for logs, the provider turns the SDK's
  per-request trace logging off: Terraform would discard it, and encoding it cost a third
  of the provider's CPU.
- **Streamed time series.** ` + "`zdm_timeseries`" + ` decodes data points as they arrive,
  without holding the whole answer in memory. With ` + "`as_json = true`" + ` it hands them to
  Terraform as one JSON text (` + "`points_json`" + `) instead of a list of objects: the mode for
  large reads.

The numbers below come from ` + "`make bench`" + ` (the program ` + "`cmd/zdm-bench`" + `): it starts the
local ZDM server in-process on loopback, builds the provider, and runs the real Terraform
CLI on N ` + "`zdm_device`" + ` resources and, in the same run, on N built-in ` + "`terraform_data`" + `
resources, which cost Terraform its own work and no provider call: Terraform's own floor.
Each step also runs on a *plugin floor*: a provider with the same ` + "`zdm_device`" + ` schema whose
operations do nothing, which shows what driving any plugin costs. The ratios to these
floors are what matter; the absolute times depend on the machine.

`)
	if svgPath != "" {
		rel, err := filepath.Rel(filepath.Dir(filepath.Join("docs", "guides", "performance.md")), svgPath)
		if err != nil {
			rel = svgPath
		}
		w("![Wall time of each step against N, zdm_device and terraform_data](%s)\n\n", filepath.ToSlash(rel))
	}
	w("## Results\n\n")
	w("%s\n", r.table)
	w("## Machine\n\n")
	w("| | |\n|-|-|\n")
	w("| CPUs | %d (%s) |\n", m.CPUs, m.CPUModel)
	w("| memory | %.1f GiB |\n", m.MemoryGiB)
	w("| load average at the start (1, 5, 15 min) | %s |\n", m.LoadStart)
	w("| system | %s |\n", m.Kernel)
	w("| Terraform | %s |\n", m.Terraform)
	w("| Go | %s |\n", m.GoVersion)
	w("| provider started by | %s |\n", res.Options["mode"])
	w("| date | %s |\n\n", m.Started.Format("2006-01-02"))
	w("The machine was shared with other work while the benchmark ran, so absolute times are noisy; each step ran on " +
		"`terraform_data` and on the provider back to back, so that both saw the same load.\n\n")
	w("## Reproduce\n\n")
	w("```shell\n")
	w("make bench        # N = 100, 1,000, 2,000; query of 10,000; 175,000 points; rewrites this page and its plot\n")
	w("make bench-quick  # N = 100 and 500 in a couple of minutes; prints the tables only\n")
	w("go run ./cmd/zdm-bench -sizes 100,1000 -query-size 0 -points 0 -out '' -svg ''  # any subset\n")
	w("```\n\n")
	w("The benchmark needs Go and the Terraform CLI that `scripts/install-terraform.sh` builds (any Terraform " +
		">= 1.14 with `-terraform`). It only talks to loopback addresses. Flags: `go run ./cmd/zdm-bench -help`.\n")
	return []byte(b.String())
}

// renderSVG plots the wall time of each step against N for the provider and
// terraform_data, and the create with latency against its network floor.
func renderSVG(res *results) []byte {
	type series struct {
		name, color string
		dash        bool
		pts         [][2]float64 // N, seconds
	}
	type panel struct {
		title  string
		series []series
	}
	var panels []panel
	for _, name := range []string{stepCreate, stepPlan, stepUpdate} {
		zdm := series{name: "zdm_device", color: "#5c4ee5"}
		base := series{name: "terraform_data", color: "#888888", dash: true}
		floor := series{name: "plugin floor", color: "#2e9e5b", dash: true}
		for _, s := range res.Sizes {
			st := stepOf(s, name)
			zdm.pts = append(zdm.pts, [2]float64{float64(s.N), st.ZDM.Wall.Seconds()})
			base.pts = append(base.pts, [2]float64{float64(s.N), st.Baseline.Wall.Seconds()})
			if st.Floor != nil {
				floor.pts = append(floor.pts, [2]float64{float64(s.N), st.Floor.Wall.Seconds()})
			}
		}
		ps := []series{zdm, base}
		if len(floor.pts) > 0 {
			ps = append(ps, floor)
		}
		panels = append(panels, panel{name, ps})
	}
	if hasLatency(res) {
		zdm := series{name: "zdm_device", color: "#5c4ee5"}
		floor := series{name: "network floor", color: "#d9534f", dash: true}
		for _, s := range res.Sizes {
			if s.Latency != nil {
				zdm.pts = append(zdm.pts, [2]float64{float64(s.N), s.Latency.Create.Wall.Seconds()})
				floor.pts = append(floor.pts, [2]float64{float64(s.N), s.Latency.Floor.Seconds()})
			}
		}
		panels = append(panels, panel{"apply: create N, " + res.Options["latency"] + " latency", []series{zdm, floor}})
	}

	const pw, ph, left, right, top, bottom = 260.0, 230.0, 46.0, 14.0, 34.0, 40.0
	width, height := pw*float64(len(panels)), ph+40
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n",
		width, height, width, height)
	w(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	for i, p := range panels {
		x0 := float64(i) * pw
		maxN, maxY := 1.0, 0.001
		for _, s := range p.series {
			for _, pt := range s.pts {
				maxN, maxY = max(maxN, pt[0]), max(maxY, pt[1])
			}
		}
		maxY = niceCeil(maxY)
		px := func(n float64) float64 { return x0 + left + n/maxN*(pw-left-right) }
		py := func(y float64) float64 { return top + (1-y/maxY)*(ph-top-bottom) }
		w(`<text x="%.1f" y="16" text-anchor="middle" font-weight="bold">%s</text>`+"\n", x0+pw/2, html.EscapeString(p.title))
		// Axes, grid and labels.
		for k := 0; k <= 5; k++ {
			y := maxY * float64(k) / 5
			w(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", px(0), py(y), px(maxN), py(y))
			w(`<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", px(0)-4, py(y)+4, trimFloat(y))
		}
		w(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", px(0), py(0), px(maxN), py(0))
		w(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", px(0), py(0), px(0), py(maxY))
		for _, s := range res.Sizes {
			n := float64(s.N)
			w(`<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", px(n), py(0)+14, num(s.N))
		}
		w(`<text x="%.1f" y="%.1f" text-anchor="middle">N</text>`+"\n", x0+left+(pw-left-right)/2, py(0)+28)
		w(`<text x="%.1f" y="%.1f" transform="rotate(-90 %.1f %.1f)" text-anchor="middle">seconds</text>`+"\n",
			x0+12, top+(ph-top-bottom)/2, x0+12, top+(ph-top-bottom)/2)
		for j, s := range p.series {
			var pts []string
			for _, pt := range s.pts {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(pt[0]), py(pt[1])))
			}
			dash := ""
			if s.dash {
				dash = ` stroke-dasharray="5,4"`
			}
			w(`<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", s.color, dash, strings.Join(pts, " "))
			for _, pt := range s.pts {
				w(`<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", px(pt[0]), py(pt[1]), s.color)
			}
			ly := top + 4 + float64(j)*14
			w(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`+"\n", px(0)+8, ly, px(0)+26, ly, s.color, dash)
			w(`<text x="%.1f" y="%.1f">%s</text>`+"\n", px(0)+30, ly+4, html.EscapeString(s.name))
		}
	}
	w("</svg>\n")
	return []byte(b.String())
}

// writeHeader writes a table header: the step and request columns are
// left-aligned, the numbers right-aligned.
func writeHeader(w func(string, ...any), head []string) {
	w("| %s |\n|", strings.Join(head, " | "))
	for _, h := range head {
		if h == "step" || strings.HasPrefix(h, "API") {
			w("---|")
		} else {
			w("--:|")
		}
	}
	w("\n")
}

// optional formats m with f, or "" when m is nil.
func optional(m *measurement, f func(*measurement) string) string {
	if m == nil {
		return ""
	}
	return f(m)
}

// niceCeil rounds v up to 1, 2, 2.5 or 5 times a power of ten, so that
// fifths of it are round numbers.
func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

func trimFloat(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
}

func hasFloor(res *results) bool {
	for _, s := range res.Sizes {
		for _, st := range s.Steps {
			if st.Floor != nil {
				return true
			}
		}
	}
	return false
}

func hasLatency(res *results) bool {
	for _, s := range res.Sizes {
		if s.Latency != nil {
			return true
		}
	}
	return false
}

// stepOf returns the step named name of s.
func stepOf(s sizeResult, name string) stepPair {
	for _, st := range s.Steps {
		if st.Name == name {
			return st
		}
	}
	return stepPair{}
}

// requestsText lists the requests by route, shortest routes first, without
// the workspace prefix.
func requestsText(routes map[string]int64) string {
	if len(routes) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(routes))
	for k := range routes {
		keys = append(keys, k)
	}
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

func secs(d time.Duration) string {
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}

func ratio(a, b time.Duration) float64 {
	return float64(a) / float64(b)
}
