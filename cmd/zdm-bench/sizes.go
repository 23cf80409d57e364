package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// stepPair is one step on each configuration.
type stepPair struct {
	Name     string       `json:"name"`
	Baseline measurement  `json:"terraform_data"`
	Floor    *measurement `json:"null_provider,omitempty"`
	ZDM      measurement  `json:"zdm"`
}

// floor is the null provider's measurement, zero without -floor.
func (s stepPair) floor() measurement {
	if s.Floor == nil {
		return measurement{}
	}
	return *s.Floor
}

// ratio is the provider's wall time over the baseline's.
func (s stepPair) ratio() float64 {
	return float64(s.ZDM.Wall) / float64(s.Baseline.Wall)
}

// latencyResult is the create and the no-op plan with latency added.
type latencyResult struct {
	Latency time.Duration `json:"latency_ns"`
	// Floor is N x latency / parallelism: the time the requests of a
	// create take when nothing else costs anything.
	Floor  time.Duration `json:"network_floor_ns"`
	Create measurement   `json:"create"`
	Plan   measurement   `json:"plan"`
}

// sizeResult is every step of one size.
type sizeResult struct {
	N       int            `json:"n"`
	Steps   []stepPair     `json:"steps"`
	Latency *latencyResult `json:"latency,omitempty"`
}

// Step names.
const (
	stepCreate = "apply: create N"
	stepPlan   = "plan: refresh N, no changes"
	stepUpdate = "apply: rename all N"
)

var (
	okCodes   = []int{0}
	planCodes = []int{0} // -detailed-exitcode: 0 means no changes
)

func (b *bench) runSize(ctx context.Context, n int) (sizeResult, error) {
	res := sizeResult{N: n}
	ws, err := b.workspace(strconv.Itoa(n))
	if err != nil {
		return res, err
	}
	zdm, err := b.newConfig(fmt.Sprintf("zdm-%d", n), ws, false)
	if err != nil {
		return res, err
	}
	base, err := b.newConfig(fmt.Sprintf("terraform-data-%d", n), ws, false)
	if err != nil {
		return res, err
	}
	base.provider = ""
	var null *config
	if b.o.floor {
		if null, err = b.newConfig(fmt.Sprintf("null-provider-%d", n), ws, true); err != nil {
			return res, err
		}
	}
	par := "-parallelism=" + strconv.Itoa(b.o.parallelism)
	apply := []string{"apply", "-no-color", "-input=false", "-auto-approve", par}
	plan := []string{"plan", "-no-color", "-input=false", "-detailed-exitcode", par}

	// Each step runs on terraform_data, then on the provider, so that both
	// see the same load of the machine.
	type variant struct {
		label   string
		cfg     *config
		content func(prefix string) string
		m       *measurement
	}
	step := func(name string, prefix string, repeat int, codes []int, args []string) error {
		pair := stepPair{Name: name}
		vs := []variant{{"terraform_data", base, func(p string) string { return baselineConfig(n, p) }, &pair.Baseline}}
		if null != nil {
			pair.Floor = &measurement{}
			vs = append(vs, variant{"null provider", null, func(p string) string { return devicesConfig(n, p) }, pair.Floor})
		}
		vs = append(vs, variant{"zdm", zdm, func(p string) string { return devicesConfig(n, p) }, &pair.ZDM})
		for i := range repeat {
			for _, v := range vs {
				if err := v.cfg.write("main.tf", v.content(prefix)); err != nil {
					return err
				}
				r, err := b.terraform(ctx, v.cfg, codes, args...)
				if err != nil {
					return err
				}
				v.m.add(r)
				logf("N=%d %s (%s, run %d): %s, CPU %s, %d requests", n, name, v.label, i+1,
					r.Wall.Round(time.Millisecond), r.CPU.Round(time.Millisecond), r.totalRequests())
			}
		}
		res.Steps = append(res.Steps, pair)
		return nil
	}
	if err := step(stepCreate, "device", 1, okCodes, apply); err != nil {
		return res, err
	}
	if err := step(stepPlan, "device", b.o.planRepeat, planCodes, plan); err != nil {
		return res, err
	}
	if err := step(stepUpdate, "renamed", 1, okCodes, apply); err != nil {
		return res, err
	}
	if got, err := countDevices(ctx, b.srv, ws, "renamed-"); err != nil || got != n {
		return res, fmt.Errorf("after the rename, %d devices of the workspace are renamed, want %d (%v)", got, n, err)
	}

	if b.o.latency > 0 {
		lat, err := b.runLatency(ctx, n, apply, plan)
		if err != nil {
			return res, err
		}
		res.Latency = lat
	}
	return res, nil
}

// runLatency creates N devices and plans them again with latency added to
// every API request.
func (b *bench) runLatency(ctx context.Context, n int, apply, plan []string) (*latencyResult, error) {
	ws, err := b.workspace(strconv.Itoa(n) + "-latency")
	if err != nil {
		return nil, err
	}
	cfg, err := b.newConfig(fmt.Sprintf("zdm-%d-latency", n), ws, false)
	if err != nil {
		return nil, err
	}
	if err := cfg.write("main.tf", devicesConfig(n, "device")); err != nil {
		return nil, err
	}
	lat := &latencyResult{
		Latency: b.o.latency,
		Floor:   time.Duration(n) * b.o.latency / time.Duration(b.o.parallelism),
	}
	b.srv.SetFaults(localzdm.Faults{Latency: b.o.latency})
	defer b.srv.SetFaults(localzdm.Faults{})
	r, err := b.terraform(ctx, cfg, okCodes, apply...)
	if err != nil {
		return nil, err
	}
	lat.Create.add(r)
	logf("N=%d create with %s latency: %s (floor %s), %d requests", n, b.o.latency,
		r.Wall.Round(time.Millisecond), lat.Floor, r.totalRequests())
	if r, err = b.terraform(ctx, cfg, planCodes, plan...); err != nil {
		return nil, err
	}
	lat.Plan.add(r)
	logf("N=%d no-op plan with %s latency: %s, %d requests", n, b.o.latency, r.Wall.Round(time.Millisecond), r.totalRequests())
	return lat, nil
}

var sizesScenario = scenario{
	name:    "sizes",
	option:  "sizes",
	enabled: func(o options) bool { return len(o.sizes) > 0 },
	run: func(ctx context.Context, b *bench, res *results) error {
		for _, n := range b.o.sizes {
			r, err := b.runSize(ctx, n)
			if err != nil {
				return fmt.Errorf("size %d: %w", n, err)
			}
			res.Sizes = append(res.Sizes, r)
		}
		return nil
	},
	measured: func(res *results) bool { return len(res.Sizes) > 0 },
	take:     func(dst, src *results) { dst.Sizes = src.Sizes },
	report:   sizesReport,
	targets:  sizesTargets,
	summary:  sizesSummary,
}

// sizesReport writes the wall time, CPU and memory tables of every size, and
// the latency table. The plugin floor's columns are empty without -floor.
func sizesReport(w printf, res *results) {
	o := res.Options
	w("## Provider against terraform_data\n\n")
	w("Wall time of each Terraform command with `-parallelism=%s`; a no-op plan is the median of %s runs. The ratios "+
		"are the provider's time over the same step on as many `terraform_data` resources, and over the *plugin floor*: "+
		"a provider with the same `zdm_device` schema and identity whose operations do nothing (what Terraform, the "+
		"plugin protocol and the framework cost any provider). API requests are those of the run that made the most.\n\n",
		o["parallelism"], o["plan_repeat"])
	writeHeader(w, []string{"N", "step", "terraform_data", "plugin floor", "zdm_device", "ratio to terraform_data",
		"ratio to the floor", "API requests (zdm_device)"})
	for _, s := range res.Sizes {
		for _, st := range s.Steps {
			f := st.floor()
			w("| %s | %s | %s | %s | %s | %s | %s | %s |\n", num(s.N), st.Name, secs(st.Baseline.Wall), secs(f.Wall),
				secs(st.ZDM.Wall), times(st.ratio()), times(ratio(st.ZDM.Wall, f.Wall)), requestsText(st.ZDM.Requests))
		}
	}
	w("\nCPU time of Terraform and the provider processes together (less sensitive than wall time to the other load of " +
		"the machine), and the provider's peak resident memory:\n\n")
	writeHeader(w, []string{"N", "step", "CPU terraform_data", "CPU plugin floor", "CPU zdm_device", "of which the provider",
		"CPU ratio to terraform_data", "CPU ratio to the floor", "peak RSS plugin floor", "peak RSS zdm_device"})
	for _, s := range res.Sizes {
		for _, st := range s.Steps {
			f := st.floor()
			w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", num(s.N), st.Name, secs(st.Baseline.TotalCPU),
				secs(f.TotalCPU), secs(st.ZDM.TotalCPU), secs(st.ZDM.CPU), times(ratio(st.ZDM.TotalCPU, st.Baseline.TotalCPU)),
				times(ratio(st.ZDM.TotalCPU, f.TotalCPU)), mib(f.RSS), mib(st.ZDM.RSS))
		}
	}
	w("\n")
	if !hasLatency(res) {
		return
	}
	w("## With %s of latency per request\n\n", o["latency"])
	w("Every API request waits %s in the local server. The network floor of a create is N x %s / %s (parallelism): "+
		"the time the N requests take when nothing else costs anything. These rows are a reference, not a target: "+
		"one resource per device is bound by Terraform's own cost per resource (see the terraform_data column above); "+
		"`zdm_fleet_devices` is the way to the network floor.\n\n", o["latency"], o["latency"], o["parallelism"])
	writeHeader(w, []string{"N", "apply: create N", "network floor", "ratio to floor", "create without latency",
		"ratio to it", "plan: refresh N", "API requests (plan)"})
	for _, s := range res.Sizes {
		if l := s.Latency; l != nil {
			plain := stepOf(s, stepCreate).ZDM.Wall
			w("| %s | %s | %s | %s | %s | %s | %s | %s |\n", num(s.N), secs(l.Create.Wall), secs(l.Floor),
				times(ratio(l.Create.Wall, l.Floor)), secs(plain), times(ratio(l.Create.Wall, plain)), secs(l.Plan.Wall),
				requestsText(l.Plan.Requests))
		}
	}
	w("\n")
}

// sizesTargets are the goals of the largest size (2,000 in a full run).
func sizesTargets(res *results) []target {
	s := largest(res)
	plan := stepOf(s, stepPlan)
	out := []target{
		{fmt.Sprintf("no-op plan of %s devices: at most 5 API requests", num(s.N)),
			strconv.FormatInt(plan.ZDM.totalRequests(), 10), plan.ZDM.totalRequests() <= 5},
		{fmt.Sprintf("no-op plan of %s devices: at most 1.3x terraform_data", num(s.N)), times(plan.ratio()), plan.ratio() <= 1.3},
	}
	// The create of N zdm_device against the network floor is a reference
	// row of the latency table, not a target: it is bound by Terraform's
	// own cost per resource (terraform_data alone takes most of it), which
	// zdm_fleet_devices avoids.
	return out
}

// sizesSummary is the performance guide's table: wall time against
// terraform_data, and the API requests, of each step.
func sizesSummary(res *results) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	writeHeader(w, []string{"N devices", "step", "zdm_device", "terraform_data", "API requests"})
	for _, s := range res.Sizes {
		for _, st := range s.Steps {
			w("| %s | %s | %s | %s | %s |\n", num(s.N), st.Name, secs(st.ZDM.Wall), secs(st.Baseline.Wall), num(int(st.ZDM.totalRequests())))
		}
	}
	w("\nMeasured with Terraform %s on %d shared CPUs, `-parallelism=%s`, against a\nlocal server without network latency.\n",
		res.Machine.Terraform, res.Machine.CPUs, res.Options["parallelism"])
	return b.String()
}

// largest is the result of the largest size.
func largest(res *results) sizeResult {
	return slices.MaxFunc(res.Sizes, func(a, b sizeResult) int { return a.N - b.N })
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
