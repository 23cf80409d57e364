package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// fleetStatusParallelism is the reads in flight of the measured fleet
// status: the data source's default.
const fleetStatusParallelism = fleetstatus.DefaultParallelism

// fleetStatusRepeat is the number of runs of the reader (the median is
// reported).
const fleetStatusRepeat = 5

// fleetStatusResult measures the fleet-status reader of zdm_fleet_status
// (one list of the devices, then one GET per device, 16 at a time) with
// latency added to every request, against the network floor.
type fleetStatusResult struct {
	Devices     int           `json:"devices"`
	Latency     time.Duration `json:"latency_ns"`
	Parallelism int           `json:"parallelism"`
	// Floor is Devices x Latency / Parallelism: the time the per-device
	// requests take when nothing else costs anything.
	Floor time.Duration `json:"floor_ns"`
	// Reader is the reader alone, in this process (median of the runs).
	Reader measurement `json:"reader"`
	// Plan is terraform plan reading the zdm_fleet_status data source:
	// the reader plus Terraform's and the provider's start-up.
	Plan *measurement `json:"plan,omitempty"`
}

// ratio is the reader's time over the floor.
func (r *fleetStatusResult) ratio() float64 { return ratio(r.Reader.Wall, r.Floor) }

func (b *bench) runFleetStatus(ctx context.Context, n int) (*fleetStatusResult, error) {
	ws, err := b.workspace(strconv.Itoa(n) + "-fleet-status")
	if err != nil {
		return nil, err
	}
	names := make([]string, n)
	for i := range names {
		names[i] = "status-" + strconv.Itoa(i)
	}
	ids, err := b.srv.CreateDevices(ws.WorkspaceID, "", names)
	if err != nil {
		return nil, err
	}
	c, err := client.New(client.Config{BaseURL: b.srv.BaseURL(), APIKey: ws.APIKey})
	if err != nil {
		return nil, err
	}
	// Half the devices have a firmware update, so the reads are a mix of
	// answers and 404s.
	for _, id := range ids[:n/2] {
		if _, err := c.ScheduleFOTA(ctx, id, "fw-bench", "1.0"); err != nil {
			return nil, err
		}
	}
	latency := b.o.latency
	if latency <= 0 {
		latency = 20 * time.Millisecond
	}
	res := &fleetStatusResult{
		Devices: n, Latency: latency, Parallelism: fleetStatusParallelism,
		Floor: time.Duration(n) * latency / fleetStatusParallelism,
	}
	b.srv.SetFaults(localzdm.Faults{Latency: latency})
	defer b.srv.SetFaults(localzdm.Faults{})
	for range fleetStatusRepeat {
		b.srv.ResetCounters()
		start := time.Now()
		got, err := fleetstatus.Read(ctx, c, fleetstatus.Scope{WorkspaceID: ws.WorkspaceID}, fleetstatus.FOTA, fleetStatusParallelism)
		wall := time.Since(start)
		if err != nil {
			return nil, err
		}
		if len(got.Devices) != n || len(got.Missing(nil)) != n-n/2 {
			return nil, fmt.Errorf("fleet status read %d devices, %d without update; want %d, %d", len(got.Devices),
				len(got.Missing(nil)), n, n-n/2)
		}
		res.Reader.add(cmdResult{Wall: wall, Requests: b.srv.Counters()})
	}
	logf("fleet status of %d devices with %s latency: %s (floor %s, %.2fx)", n, latency,
		res.Reader.Wall.Round(time.Millisecond), res.Floor, res.ratio())

	cfg, err := b.newConfig(fmt.Sprintf("fleet-status-%d", n), ws, false)
	if err != nil {
		return nil, err
	}
	if err := cfg.write("main.tf", requiredProviders+`
provider "zdm" {}

data "zdm_fleet_status" "all" {
  fota = true
}

output "devices" {
  value = data.zdm_fleet_status.all.device_count
}
`); err != nil {
		return nil, err
	}
	r, err := b.terraform(ctx, cfg, okCodes, "plan", "-no-color", "-input=false")
	if err != nil {
		return nil, err
	}
	if !strings.Contains(r.Output, "devices = "+strconv.Itoa(n)) {
		return nil, fmt.Errorf("terraform plan did not read %d devices:\n%s", n, tail(r.Output, 20))
	}
	res.Plan = &measurement{}
	res.Plan.add(r)
	logf("terraform plan of zdm_fleet_status over %d devices: %s, %d requests", n, r.Wall.Round(time.Millisecond),
		r.totalRequests())
	return res, nil
}

// fleetStatusSection renders the fleet-status result for the report.
func fleetStatusSection(w printf, res *results) {
	r := res.FleetStatus
	w("## Fleet status\n\n")
	w("`zdm_fleet_status` lists the devices once, then reads each device's firmware update, %d at a time. Every API "+
		"request waits %s in the local server; the network floor is N x %s / %d. The reader is timed alone (median of "+
		"%d runs) and inside `terraform plan` (which adds Terraform's and the provider's start-up).\n\n",
		r.Parallelism, r.Latency, r.Latency, r.Parallelism, len(r.Reader.Runs))
	w("| N | network floor | reader | ratio to floor | terraform plan | ratio to floor | API requests (reader) |\n")
	w("|--:|--------------:|-------:|---------------:|---------------:|---------------:|-----------------------|\n")
	plan, planRatio := "-", "-"
	if r.Plan != nil {
		plan, planRatio = secs(r.Plan.Wall), fmt.Sprintf("%.2fx", ratio(r.Plan.Wall, r.Floor))
	}
	w("| %s | %s | %s | %.2fx | %s | %s | %s |\n\n", num(r.Devices), secs(r.Floor), secs(r.Reader.Wall), r.ratio(),
		plan, planRatio, requestsText(r.Reader.Requests))
}

// maxFleetStatusRatio bounds the reader's time over the network floor.
const maxFleetStatusRatio = 1.3

// fleetStatusTargets is the target of the fleet-status step.
func fleetStatusTargets(res *results) []target {
	r := res.FleetStatus
	return []target{{
		fmt.Sprintf("fleet status of %s devices at %s latency: at most %.1fx the network floor", num(r.Devices), r.Latency,
			maxFleetStatusRatio),
		fmt.Sprintf("%.2fx (%s for a floor of %s)", r.ratio(), secs(r.Reader.Wall), secs(r.Floor)),
		r.ratio() <= maxFleetStatusRatio,
	}}
}

var fleetStatusScenario = scenario{
	name:    "fleetstatus",
	option:  "fleet_status",
	enabled: func(o options) bool { return o.fleetStatus > 0 },
	run: func(ctx context.Context, b *bench, res *results) error {
		fs, err := b.runFleetStatus(ctx, b.o.fleetStatus)
		if err != nil {
			return fmt.Errorf("fleet status of %d devices: %w", b.o.fleetStatus, err)
		}
		res.FleetStatus = fs
		return nil
	},
	measured: func(res *results) bool { return res.FleetStatus != nil },
	take:     func(dst, src *results) { dst.FleetStatus = src.FleetStatus },
	report:   fleetStatusSection,
	targets:  fleetStatusTargets,
}
