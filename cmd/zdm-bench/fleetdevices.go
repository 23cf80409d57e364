package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// The devices of one fleet as one zdm_fleet_devices resource, against the
// same devices as N zdm_device resources: the time per device of a create,
// a no-op plan and a rename of all, every API request waiting -latency.

// fleetDevicesParallelism is the resource's default parallelism, which the
// network floor assumes.
const fleetDevicesParallelism = 16

// fleetDevicesBaseline is how many zdm_device resources the per-device
// baseline uses (fewer with -quick).
const fleetDevicesBaseline = 2000

// Targets of the scenario.
const (
	maxFleetDevicesRatio    = 1.3 // create and rename, over the network floor
	maxFleetDevicesPlanReqs = 2   // API requests of a no-op plan
	maxFleetDevicesPlanWall = 2 * time.Second
	maxFleetDevicesRSS      = 250 << 20
	minFleetDevicesSpeedup  = 10.0 // per device, against zdm_device
)

// fleetDevicesResult measures zdm_fleet_devices against zdm_device.
type fleetDevicesResult struct {
	Devices     int           `json:"devices"`
	Latency     time.Duration `json:"latency_ns"`
	Parallelism int           `json:"parallelism"`
	// Floor is Devices x Latency / Parallelism: the time of the writes alone.
	Floor time.Duration `json:"floor_ns"`
	// Create, Plan and Rename are the steps of zdm_fleet_devices.
	Create measurement `json:"create"`
	Plan   measurement `json:"plan"`
	Rename measurement `json:"rename"`
	// Baseline* are the same steps on BaselineDevices zdm_device resources
	// (terraform -parallelism of the run).
	BaselineDevices int         `json:"baseline_devices"`
	BaselineCreate  measurement `json:"baseline_create"`
	BaselinePlan    measurement `json:"baseline_plan"`
	BaselineRename  measurement `json:"baseline_rename"`
	// Floor* are the same steps of Devices devices on the null provider's
	// zdm_fleet_devices (the same schema, no work, no API): Terraform's own
	// cost of one resource of N devices. Empty without -floor.
	FloorCreate measurement `json:"floor_create"`
	FloorPlan   measurement `json:"floor_plan"`
	FloorRename measurement `json:"floor_rename"`
}

// perDevice is the time of m per device of n.
func perDevice(m measurement, n int) time.Duration { return m.Wall / time.Duration(max(n, 1)) }

// speedup is how many times less time per device zdm_fleet_devices takes
// than zdm_device for the step (fleet, baseline).
func (r *fleetDevicesResult) speedup(fleet, baseline measurement) float64 {
	return ratio(perDevice(baseline, r.BaselineDevices), perDevice(fleet, r.Devices))
}

// peakRSS is the provider's largest peak RSS over the steps.
func (r *fleetDevicesResult) peakRSS() int64 {
	return max(r.Create.RSS, r.Plan.RSS, r.Rename.RSS)
}

// writeFleetDevicesConfig writes n devices in one zdm_fleet_devices, named
// prefix-<index>, read from an inventory file, into cfg.
func writeFleetDevicesConfig(cfg *config, n int, prefix string) error {
	if err := cfg.writeInventory("inventory.csv", n, prefix+"-"); err != nil {
		return err
	}
	return cfg.write("main.tf", requiredProviders+fmt.Sprintf(`
provider "zdm" {}

resource "zdm_fleet_devices" "d" {
  parallelism = %d
  devices     = %s
}
`, fleetDevicesParallelism, inventoryDevices("inventory.csv")))
}

func (b *bench) runFleetDevices(ctx context.Context, n int) (*fleetDevicesResult, error) {
	latency := b.o.latency
	if latency <= 0 {
		latency = 20 * time.Millisecond
	}
	base := fleetDevicesBaseline
	if b.o.quick {
		base = 200
	}
	res := &fleetDevicesResult{Devices: n, Latency: latency, Parallelism: fleetDevicesParallelism,
		Floor: time.Duration(n) * latency / fleetDevicesParallelism, BaselineDevices: base}
	b.srv.SetFaults(localzdm.Faults{Latency: latency})
	defer b.srv.SetFaults(localzdm.Faults{})
	parallelism := "-parallelism=" + strconv.Itoa(b.o.parallelism)

	// zdm_fleet_devices.
	ws, err := b.workspace(strconv.Itoa(n) + "-fleet-devices")
	if err != nil {
		return nil, err
	}
	cfg, err := b.newConfig(fmt.Sprintf("fleet-devices-%d", n), ws, false)
	if err != nil {
		return nil, err
	}
	if err := b.fleetDevicesSteps(ctx, cfg, ws, n, "fd", writeFleetDevicesConfig, &res.Create, &res.Plan, &res.Rename, parallelism); err != nil {
		return nil, fmt.Errorf("zdm_fleet_devices: %w", err)
	}
	if b.nullProvider != "" {
		ncfg, err := b.newConfig(fmt.Sprintf("fleet-devices-null-%d", n), ws, true)
		if err != nil {
			return nil, err
		}
		if err := b.fleetDevicesSteps(ctx, ncfg, localzdm.Bootstrap{}, n, "fd", writeFleetDevicesConfig, &res.FloorCreate,
			&res.FloorPlan, &res.FloorRename, parallelism); err != nil {
			return nil, fmt.Errorf("zdm_fleet_devices on the null provider: %w", err)
		}
		logf("null provider's zdm_fleet_devices of %d devices (Terraform's floor): create %s, no-op plan %s, rename %s",
			n, secs(res.FloorCreate.Wall), secs(res.FloorPlan.Wall), secs(res.FloorRename.Wall))
	}
	logf("zdm_fleet_devices of %d devices at %s: create %s, no-op plan %s (%d requests), rename %s; floor %s; provider peak RSS %s",
		n, latency, secs(res.Create.Wall), secs(res.Plan.Wall), res.Plan.totalRequests(), secs(res.Rename.Wall),
		secs(res.Floor), mib(res.peakRSS()))

	// zdm_device, the per-device baseline.
	bws, err := b.workspace(strconv.Itoa(base) + "-fleet-devices-baseline")
	if err != nil {
		return nil, err
	}
	bcfg, err := b.newConfig(fmt.Sprintf("fleet-devices-baseline-%d", base), bws, false)
	if err != nil {
		return nil, err
	}
	if err := b.fleetDevicesSteps(ctx, bcfg, bws, base, "bd", mainOnly(devicesConfig), &res.BaselineCreate, &res.BaselinePlan,
		&res.BaselineRename, parallelism); err != nil {
		return nil, fmt.Errorf("zdm_device baseline: %w", err)
	}
	logf("zdm_device x %d at %s: create %s, no-op plan %s, rename %s; speed-up per device: create %.1fx, plan %.1fx, rename %.1fx",
		base, latency, secs(res.BaselineCreate.Wall), secs(res.BaselinePlan.Wall), secs(res.BaselineRename.Wall),
		res.speedup(res.Create, res.BaselineCreate), res.speedup(res.Plan, res.BaselinePlan), res.speedup(res.Rename, res.BaselineRename))
	return res, nil
}

// fleetDevicesSteps creates n devices named prefix-<index> with the
// configuration that write lays out, plans with no change, and renames
// them all (prefix "r"+prefix), checking the service after each apply (not
// on the null provider, whose ws is empty).
func (b *bench) fleetDevicesSteps(ctx context.Context, cfg *config, ws localzdm.Bootstrap, n int, prefix string,
	write layout, create, plan, rename *measurement, parallelism string) error {
	if err := write(cfg, n, prefix); err != nil {
		return err
	}
	if _, err := b.terraform(ctx, cfg, okCodes, "init", "-no-color", "-input=false"); err != nil {
		return err
	}
	r, err := b.terraform(ctx, cfg, okCodes, "apply", "-no-color", "-input=false", "-auto-approve", parallelism)
	if err != nil {
		return err
	}
	create.add(r)
	if err := checkFleetDevices(ctx, b, ws, prefix+"-", n, "create"); err != nil {
		return err
	}
	r, err = b.terraform(ctx, cfg, planCodes, "plan", "-no-color", "-input=false", "-detailed-exitcode", parallelism)
	if err != nil {
		return err
	}
	plan.add(r)
	if err := write(cfg, n, "r"+prefix); err != nil {
		return err
	}
	r, err = b.terraform(ctx, cfg, okCodes, "apply", "-no-color", "-input=false", "-auto-approve", parallelism)
	if err != nil {
		return err
	}
	rename.add(r)
	if err := checkFleetDevices(ctx, b, ws, "r"+prefix+"-", n, "rename"); err != nil {
		return err
	}
	if !strings.Contains(r.Output, "Apply complete!") {
		return fmt.Errorf("rename: no apply summary:\n%s", tail(r.Output, 20))
	}
	return nil
}

// planWallText is the no-op plan's wall time, with Terraform's floor when
// it was measured.
func planWallText(r *fleetDevicesResult) string {
	if r.FloorPlan.Wall <= 0 {
		return secs(r.Plan.Wall)
	}
	return fmt.Sprintf("%s (Terraform's floor %s: %.2fx)", secs(r.Plan.Wall), secs(r.FloorPlan.Wall), ratio(r.Plan.Wall, r.FloorPlan.Wall))
}

// checkFleetDevices checks that the service holds n devices named
// prefix*, after step; nothing for the null provider (ws empty).
func checkFleetDevices(ctx context.Context, b *bench, ws localzdm.Bootstrap, prefix string, n int, step string) error {
	if ws.WorkspaceID == "" {
		return nil
	}
	if got, err := countDevices(ctx, b.srv, ws, prefix); err != nil || got != n {
		return fmt.Errorf("after the %s the service holds %d devices named %s*, want %d (%v)", step, got, prefix, n, err)
	}
	return nil
}

// fleetDevicesSection renders the result for the report.
func fleetDevicesSection(w printf, res *results) {
	r := res.FleetDevices
	w("## Many devices as one resource\n\n")
	w("`zdm_fleet_devices` holds %s devices in one resource and writes them %d at a time; the same steps on %s "+
		"`zdm_device` resources give the per-device baseline. Every API request waits %s in the local server; the "+
		"network floor of the writes is N x %s / %d = %s.\n\n",
		num(r.Devices), r.Parallelism, num(r.BaselineDevices), r.Latency, r.Latency, r.Parallelism, secs(r.Floor))
	floor := r.FloorPlan.Wall > 0
	w("| step | zdm_fleet_devices (N = %s) | per device | zdm_device (N = %s) | per device | speed-up per device |",
		num(r.Devices), num(r.BaselineDevices))
	if floor {
		w(" Terraform's floor (N = %s) | over the floor |", num(r.Devices))
	}
	w(" API requests (fleet) |\n|------|---------:|-----------:|---------:|-----------:|------:|")
	if floor {
		w("------:|------:|")
	}
	w("---|\n")
	for _, s := range []struct {
		name         string
		fleet, b, fl measurement
	}{{stepCreate, r.Create, r.BaselineCreate, r.FloorCreate}, {stepPlan, r.Plan, r.BaselinePlan, r.FloorPlan},
		{stepUpdate, r.Rename, r.BaselineRename, r.FloorRename}} {
		w("| %s | %s | %.2f ms | %s | %.2f ms | %.1fx |", s.name, secs(s.fleet.Wall),
			float64(perDevice(s.fleet, r.Devices))/float64(time.Millisecond), secs(s.b.Wall),
			float64(perDevice(s.b, r.BaselineDevices))/float64(time.Millisecond), r.speedup(s.fleet, s.b))
		if floor {
			w(" %s | +%s |", secs(s.fl.Wall), secs(s.fleet.Wall-s.fl.Wall))
		}
		w(" %s |\n", requestsText(s.fleet.Requests))
	}
	if floor {
		w("\nTerraform's floor is the same step on the null provider's `zdm_fleet_devices`: the same schema, served at the " +
			"protocol level like the real one, doing no work and calling no API. What the real resource takes over it is " +
			"the network (for the writes: at least the network floor) and the provider's own work.\n")
	}
	w("\nProvider peak RSS of zdm_fleet_devices: %s.\n\n", mib(r.peakRSS()))
}

// fleetDevicesTargets are the goals of the scenario.
func fleetDevicesTargets(res *results) []target {
	r := res.FleetDevices
	create, rename := ratio(r.Create.Wall, r.Floor), ratio(r.Rename.Wall, r.Floor)
	speed := r.speedup(r.Create, r.BaselineCreate)
	return []target{
		{fmt.Sprintf("zdm_fleet_devices: create %s devices at %s latency in at most %.1fx the network floor", num(r.Devices),
			r.Latency, maxFleetDevicesRatio), fmt.Sprintf("%.2fx (%s, floor %s)", create, secs(r.Create.Wall), secs(r.Floor)),
			create <= maxFleetDevicesRatio},
		{fmt.Sprintf("zdm_fleet_devices: no-op plan of %s devices in at most %d API requests", num(r.Devices), maxFleetDevicesPlanReqs),
			fmt.Sprintf("%d requests", r.Plan.totalRequests()), r.Plan.totalRequests() <= maxFleetDevicesPlanReqs},
		{fmt.Sprintf("zdm_fleet_devices: no-op plan of %s devices in at most %s wall", num(r.Devices), secs(maxFleetDevicesPlanWall)),
			planWallText(r), r.Plan.Wall <= maxFleetDevicesPlanWall},
		{fmt.Sprintf("zdm_fleet_devices: rename %s devices in at most %.1fx the network floor", num(r.Devices), maxFleetDevicesRatio),
			fmt.Sprintf("%.2fx (%s)", rename, secs(r.Rename.Wall)), rename <= maxFleetDevicesRatio},
		{fmt.Sprintf("zdm_fleet_devices: provider peak RSS at %s devices at most %s", num(r.Devices), mib(int64(maxFleetDevicesRSS))),
			mib(r.peakRSS()), r.peakRSS() <= maxFleetDevicesRSS},
		{fmt.Sprintf("zdm_fleet_devices: create at least %.0fx faster per device than zdm_device", minFleetDevicesSpeedup),
			fmt.Sprintf("%.1fx", speed), speed >= minFleetDevicesSpeedup},
	}
}

var fleetDevicesScenario = scenario{
	name:    "fleetdevices",
	option:  "fleet_devices",
	enabled: func(o options) bool { return o.fleetDevices > 0 },
	run: func(ctx context.Context, b *bench, res *results) error {
		fd, err := b.runFleetDevices(ctx, b.o.fleetDevices)
		if err != nil {
			return fmt.Errorf("fleet devices of %d devices: %w", b.o.fleetDevices, err)
		}
		res.FleetDevices = fd
		return nil
	},
	measured: func(res *results) bool { return res.FleetDevices != nil },
	take:     func(dst, src *results) { dst.FleetDevices = src.FleetDevices },
	report:   fleetDevicesSection,
	targets:  fleetDevicesTargets,
	summary:  fleetDevicesSummary,
}

// fleetDevicesSummary is the performance guide's table: the three steps of
// N devices as one resource, against Terraform's floor and per device
// against zdm_device.
func fleetDevicesSummary(res *results) string {
	r := res.FleetDevices
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	head := []string{"step", "zdm_fleet_devices", "Terraform's floor", "per device", "zdm_device per device", "speed-up"}
	writeHeader(w, head)
	for _, s := range []struct {
		name         string
		fleet, b, fl measurement
	}{{stepCreate, r.Create, r.BaselineCreate, r.FloorCreate}, {stepPlan, r.Plan, r.BaselinePlan, r.FloorPlan},
		{stepUpdate, r.Rename, r.BaselineRename, r.FloorRename}} {
		floor := "-"
		if s.fl.Wall > 0 {
			floor = secs(s.fl.Wall)
		}
		w("| %s | %s | %s | %.2f ms | %.2f ms | %.1fx |\n", s.name, secs(s.fleet.Wall), floor,
			float64(perDevice(s.fleet, r.Devices))/float64(time.Millisecond),
			float64(perDevice(s.b, r.BaselineDevices))/float64(time.Millisecond), r.speedup(s.fleet, s.b))
	}
	w("\nN = %s devices in one resource, every API request waiting %s (network floor of the writes: %s at "+
		"`parallelism = %d`), against %s `zdm_device` resources; Terraform's floor is the same step on a provider "+
		"that does no work. Terraform %s on %d shared CPUs.\n", num(r.Devices), r.Latency, secs(r.Floor), r.Parallelism,
		num(r.BaselineDevices), res.Machine.Terraform, res.Machine.CPUs)
	return b.String()
}
