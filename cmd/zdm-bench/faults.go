package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// The fault apply: N devices applied while the service answers 10% of the
// requests 503 and limits the key with 429 (both with Retry-After). It must
// end with exactly the declared devices (none missing, none twice) and an
// empty plan after. The acceptance test TestAccReliabilityFaultyApply runs
// the same apply with 300 devices in `make test`.

// faultApplyFaults are the faults of the fault apply.
var faultApplyFaults = localzdm.Faults{ErrorRate: 0.1, RateLimit: 20}

// faultResult is the outcome of the fault apply.
type faultResult struct {
	Devices    int              `json:"devices"`
	Missing    int              `json:"missing"`
	Duplicated int              `json:"duplicated"`
	Unexpected int              `json:"unexpected"`
	EmptyPlan  bool             `json:"empty_plan_after"`
	Apply      time.Duration    `json:"apply_ns"`
	Requests   map[string]int64 `json:"requests"`
	Statuses   map[int]int64    `json:"answers_by_status,omitempty"`
}

// runFaultApply applies n devices under faultApplyFaults, then counts the
// devices by name and plans again without faults.
func (b *bench) runFaultApply(ctx context.Context, n int) (*faultResult, error) {
	ws, err := b.workspace("faults")
	if err != nil {
		return nil, err
	}
	c, err := b.newConfig(fmt.Sprintf("faults-%d", n), ws, false)
	if err != nil {
		return nil, err
	}
	const prefix = "fault"
	cfg := strings.Replace(devicesConfig(n, prefix), `provider "zdm" {}`, `provider "zdm" {
  max_retries     = 20
  request_timeout = "30s"
}`, 1)
	if err := c.write("main.tf", cfg); err != nil {
		return nil, err
	}
	logf("fault apply: %d devices under 10%% 503 and a limit of %g requests per second (429)", n, faultApplyFaults.RateLimit)
	b.srv.SetFaults(faultApplyFaults)
	apply, err := b.terraform(ctx, c, []int{0}, "apply", "-auto-approve", "-input=false", "-no-color",
		fmt.Sprintf("-parallelism=%d", b.o.parallelism))
	b.srv.SetFaults(localzdm.Faults{})
	if err != nil {
		return nil, err
	}
	r := &faultResult{Devices: n, Apply: apply.Wall, Requests: apply.Requests}
	if err := b.countFaultDevices(ctx, ws, prefix, n, r); err != nil {
		return nil, err
	}
	plan, err := b.terraform(ctx, c, []int{0, 2}, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	if err != nil {
		return nil, err
	}
	r.EmptyPlan = plan.ExitCode == 0
	logf("fault apply: %s", r.summary())
	return r, nil
}

// countFaultDevices counts the devices named prefix-<i> for i < n: missing
// ones, ones present more than once, and others with the prefix.
func (b *bench) countFaultDevices(ctx context.Context, ws localzdm.Bootstrap, prefix string, n int, r *faultResult) error {
	c, err := client.New(client.Config{BaseURL: b.srv.BaseURL(), APIKey: ws.APIKey})
	if err != nil {
		return err
	}
	all, err := c.ListDevices(ctx, ws.WorkspaceID)
	if err != nil {
		return err
	}
	seen := map[string]int{}
	for _, d := range all {
		seen[d.Name]++
	}
	for i := range n {
		name := fmt.Sprintf("%s-%d", prefix, i)
		switch k := seen[name]; {
		case k == 0:
			r.Missing++
		case k > 1:
			r.Duplicated += k - 1
		}
		delete(seen, name)
	}
	for _, k := range seen {
		r.Unexpected += k
	}
	return nil
}

// summary is one line for the log and the report.
func (r *faultResult) summary() string {
	var total int64
	for _, v := range r.Requests {
		total += v
	}
	return fmt.Sprintf("%d devices in %s, %d API requests (%d device creates): %d missing, %d duplicated, %d unexpected; "+
		"plan after the apply empty: %t", r.Devices, r.Apply.Round(time.Second), total,
		r.Requests["POST /v3/workspaces/{workspace_id}/devices"], r.Missing, r.Duplicated, r.Unexpected, r.EmptyPlan)
}

var faultsScenario = scenario{
	name:    "faults",
	option:  "fault_size",
	enabled: func(o options) bool { return o.faultSize > 0 },
	run: func(ctx context.Context, b *bench, res *results) error {
		f, err := b.runFaultApply(ctx, b.o.faultSize)
		if err != nil {
			return fmt.Errorf("fault apply of %d devices: %w", b.o.faultSize, err)
		}
		res.Faults = f
		return nil
	},
	measured: func(res *results) bool { return res.Faults != nil },
	take:     func(dst, src *results) { dst.Faults = src.Faults },
	report: func(w printf, res *results) {
		w("## Fault apply\n\n")
		w("An apply of N devices while the local server answers %.0f%% of the requests `503` and rate-limits the key "+
			"to %g requests a second (`429`), then a plan without faults.\n\n%s.\n\n",
			faultApplyFaults.ErrorRate*100, faultApplyFaults.RateLimit, res.Faults.summary())
	},
	targets: func(res *results) []target {
		f := res.Faults
		return []target{{fmt.Sprintf("fault apply of %s devices: none missing, none duplicated, empty plan after", num(f.Devices)),
			fmt.Sprintf("%d missing, %d duplicated, empty plan: %t", f.Missing, f.Duplicated, f.EmptyPlan),
			f.Missing == 0 && f.Duplicated == 0 && f.Unexpected == 0 && f.EmptyPlan}}
	},
}
