package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// The service's scale: R zdm_fleet_devices of N devices each in one
// workspace (the default: one resource of 100,000 devices, and 1,000,000
// devices as 100 resources of 10,000), created without latency, then
// planned with no change; each step also on the null provider's
// zdm_fleet_devices (the same schema, no work: Terraform's floor). It
// reports the plan against the floor, the list requests of the plan, the
// provider's peak memory and the state's bytes per device.

// Targets of the scale scenario.
const (
	maxScalePlanRatio = 1.2     // no-op plan over Terraform's floor
	maxScaleRSS       = 1 << 30 // provider peak RSS, bytes
	// maxScaleCreateRatio bounds a create with -scale-latency over its
	// network floor.
	maxScaleCreateRatio = 1.3
)

// scaleSpec is R resources of N devices each.
type scaleSpec struct {
	Resources int `json:"resources"`
	Devices   int `json:"devices_per_resource"`
}

func (s scaleSpec) total() int { return s.Resources * s.Devices }

func (s scaleSpec) String() string { return fmt.Sprintf("%dx%d", s.Resources, s.Devices) }

// parseScale reads "RxN,RxN"; "" or "0" is none.
func parseScale(text string) ([]scaleSpec, error) {
	if text == "" || text == "0" {
		return nil, nil
	}
	var out []scaleSpec
	for _, part := range strings.Split(text, ",") {
		r, n, ok := strings.Cut(strings.TrimSpace(part), "x")
		ri, err1 := strconv.Atoi(r)
		ni, err2 := strconv.Atoi(n)
		if !ok || err1 != nil || err2 != nil || ri < 1 || ni < 1 {
			return nil, fmt.Errorf("-scale: %q is not RESOURCESxDEVICES with two positive numbers (e.g. 100x10000)", part)
		}
		out = append(out, scaleSpec{Resources: ri, Devices: ni})
	}
	return out, nil
}

// scaleText is specs as -scale takes them.
func scaleText(specs []scaleSpec) string {
	parts := make([]string, len(specs))
	for i, s := range specs {
		parts[i] = s.String()
	}
	return strings.Join(parts, ",")
}

// scaleRun is the measurement of one spec.
type scaleRun struct {
	Spec        scaleSpec   `json:"spec"`
	Create      measurement `json:"create"`
	Plan        measurement `json:"plan"`
	FloorCreate measurement `json:"floor_create"`
	FloorPlan   measurement `json:"floor_plan"`
	StateBytes  int64       `json:"state_bytes"`
	// Latency is added to every API request of the create (-scale-latency).
	Latency time.Duration `json:"latency_ns,omitempty"`
	// Parallelism is Terraform's -parallelism.
	Parallelism int `json:"terraform_parallelism,omitempty"`
	// BareRequest is the time of one bare request at Latency, as many at
	// once as the create sends, measured in the same run (0: not
	// measured): what the service and the loopback add to the latency.
	BareRequest time.Duration `json:"bare_request_ns,omitempty"`
	FloorState  int64         `json:"floor_state_bytes"`
	// Forms is Terraform's evaluation of the devices' map in two forms
	// (one resource only).
	Forms *formCost `json:"forms,omitempty"`
}

// atOnce is how many requests the create sends at once:
// fleetDevicesParallelism in each resource, and Terraform applies
// -parallelism resources at once.
func (r scaleRun) atOnce() int {
	return fleetDevicesParallelism * min(r.Spec.Resources, max(r.Parallelism, 1))
}

// lists is the number of device lists of the no-op plan.
func (r scaleRun) lists() int64 {
	return r.Plan.Requests["GET /v3/workspaces/{workspace_id}/devices"]
}

// networkFloor is the time of the create's requests alone: each one waits
// Latency, fleetDevicesParallelism at a time in each resource, and
// Terraform applies -parallelism resources at once.
func (r scaleRun) networkFloor() time.Duration {
	return time.Duration(int64(r.Spec.total()) * int64(r.Latency) / int64(r.atOnce()))
}

// requestFloor is the time the create's requests take as bare requests
// (BareRequest each, as many at once as the create sends); 0 when not
// measured.
func (r scaleRun) requestFloor() time.Duration {
	if r.BareRequest <= 0 {
		return 0
	}
	return time.Duration(int64(r.Spec.total()) * int64(r.BareRequest) / int64(r.atOnce()))
}

// leastCreate is the least time any provider can take for the create of
// one resource with latency: Terraform's own create (the null provider's,
// measured without latency) and the requests (as bare requests when
// measured, else the network floor), one after the other, since Terraform
// plans before the requests and saves the state after them. With several
// resources, Terraform's work on some overlaps the requests of others: 0,
// not known.
func (r scaleRun) leastCreate() time.Duration {
	if r.Spec.Resources != 1 || r.FloorCreate.Wall <= 0 {
		return 0
	}
	return max(r.requestFloor(), r.networkFloor()) + r.FloorCreate.Wall
}

func (r scaleRun) planRatio() float64 {
	if r.FloorPlan.Wall <= 0 {
		return 0
	}
	return ratio(r.Plan.Wall, r.FloorPlan.Wall)
}

type scaleResult struct {
	Runs []scaleRun `json:"runs"`
}

// scaleConfig is r zdm_fleet_devices of n devices each in the default
// fleet, named s<resource>-<index>, each read from an inventory file of
// its own (inventory-<resource>.csv, written by writeScaleConfig).
func scaleConfig(s scaleSpec) string {
	return requiredProviders + fmt.Sprintf(`
provider "zdm" {}

resource "zdm_fleet_devices" "d" {
  count       = %d
  parallelism = %d
  devices     = %s
}
`, s.Resources, fleetDevicesParallelism, inventoryDevices("inventory-${count.index}.csv"))
}

// writeScaleConfig writes the configuration of s and its inventories into
// cfg.
func writeScaleConfig(cfg *config, s scaleSpec) error {
	for r := range s.Resources {
		if err := cfg.writeInventory(fmt.Sprintf("inventory-%d.csv", r), s.Devices, fmt.Sprintf("s%d-", r)); err != nil {
			return err
		}
	}
	return cfg.write("main.tf", scaleConfig(s))
}

func (b *bench) runScale(ctx context.Context, s scaleSpec) (scaleRun, error) {
	r := scaleRun{Spec: s, Latency: b.o.scaleLatency, Parallelism: b.o.parallelism}
	ws, err := b.workspace("scale-" + s.String())
	if err != nil {
		return r, err
	}
	create := func(cfg *config, create *measurement, state *int64) error {
		if err := writeScaleConfig(cfg, s); err != nil {
			return err
		}
		if _, err := b.terraform(ctx, cfg, okCodes, "init", "-no-color", "-input=false"); err != nil {
			return err
		}
		b.srv.SetFaults(localzdm.Faults{Latency: r.Latency})
		if r.Latency > 0 && r.BareRequest == 0 {
			if r.BareRequest, err = bareRequest(ctx, b.srv.BaseURL(), ws, r.atOnce()); err != nil {
				return err
			}
		}
		res, err := b.terraform(ctx, cfg, okCodes, "apply", "-no-color", "-input=false", "-auto-approve",
			"-parallelism="+strconv.Itoa(b.o.parallelism))
		b.srv.SetFaults(localzdm.Faults{})
		if err != nil {
			return err
		}
		create.add(res)
		fi, err := os.Stat(filepath.Join(cfg.dir, "terraform.tfstate")) //nolint:gosec // G703: the state in a directory of the benchmark's own.
		if err != nil {
			return err
		}
		*state = fi.Size()
		return nil
	}
	plan := func(cfg *config, plan *measurement) error {
		res, err := b.terraform(ctx, cfg, planCodes, "plan", "-no-color", "-input=false", "-detailed-exitcode",
			"-parallelism="+strconv.Itoa(b.o.parallelism))
		if err != nil {
			return err
		}
		plan.add(res)
		return nil
	}
	if s.Resources == 1 {
		if r.Forms, err = b.measureForms(ctx, s.Devices); err != nil {
			return r, err
		}
		logf("Terraform's evaluation of a map of %s devices: %s with keys formatted from numbers, %s from an inventory file",
			num(s.Devices), secs(r.Forms.Formatted.Wall), secs(r.Forms.Inventory.Wall))
	}
	cfg, err := b.newConfig("scale-"+s.String(), ws, false)
	if err != nil {
		return r, err
	}
	if err := create(cfg, &r.Create, &r.StateBytes); err != nil {
		return r, fmt.Errorf("zdm_fleet_devices: %w", err)
	}
	if got, err := countDevices(ctx, b.srv, ws, "s"); err != nil || got != s.total() {
		return r, fmt.Errorf("after the create the service holds %d devices, want %d (%v)", got, s.total(), err)
	}
	var ncfg *config
	if b.nullProvider != "" {
		if ncfg, err = b.newConfig("scale-null-"+s.String(), ws, true); err != nil {
			return r, err
		}
		if err := create(ncfg, &r.FloorCreate, &r.FloorState); err != nil {
			return r, fmt.Errorf("zdm_fleet_devices on the null provider: %w", err)
		}
	}
	// The plans of the provider and of the floor alternate, the first of
	// each pair changing from one pair to the next, so that both see the
	// same drift of the machine's other load; each reports its median.
	for i := range max(b.o.planRepeat, 1) {
		for _, null := range [][]bool{{false, true}, {true, false}}[i%2] {
			switch {
			case !null:
				if err := plan(cfg, &r.Plan); err != nil {
					return r, fmt.Errorf("zdm_fleet_devices: %w", err)
				}
			case ncfg != nil:
				if err := plan(ncfg, &r.FloorPlan); err != nil {
					return r, fmt.Errorf("zdm_fleet_devices on the null provider: %w", err)
				}
			}
		}
	}
	logf("scale %s (%s devices): create %s (floor %s), no-op plan %s (floor %s, %.2fx), %d lists, provider peak RSS %s in the plan, %s in the create, state %.0f bytes per device",
		s, num(s.total()), secs(r.Create.Wall), secs(r.FloorCreate.Wall), secs(r.Plan.Wall), secs(r.FloorPlan.Wall),
		r.planRatio(), r.lists(), mib(r.Plan.RSS), mib(r.Create.RSS), float64(r.StateBytes)/float64(s.total()))
	return r, nil
}

var scaleScenario = scenario{
	name:    "scale",
	option:  "scale",
	enabled: func(o options) bool { return len(o.scale) > 0 },
	run: func(ctx context.Context, b *bench, res *results) error {
		s := &scaleResult{}
		for _, spec := range b.o.scale {
			r, err := b.runScale(ctx, spec)
			if err != nil {
				return fmt.Errorf("scale %s: %w", spec, err)
			}
			s.Runs = append(s.Runs, r)
		}
		if len(s.Runs) == 0 {
			return errors.New("scale: nothing measured")
		}
		res.Scale = s
		return nil
	},
	measured: func(res *results) bool { return res.Scale != nil },
	take:     func(dst, src *results) { dst.Scale = src.Scale },
	report: func(w printf, res *results) {
		w("## At the service's scale\n\n")
		w("R `zdm_fleet_devices` of N devices each in one workspace, created against the local server without latency, " +
			"then planned with no change; *floor* is the same step on the null provider's `zdm_fleet_devices` (the same " +
			"schema, no work). The no-op plan is the median of its runs (-plan-repeat), which alternate with the floor's, " +
			"the first of each pair changing, so that both see the same drift of the machine's other load. The API lists " +
			"devices per workspace, so every resource of a workspace reads the same list. Provider peak RSS is given for " +
			"the plan and for the create.\n\n")
		w("| R x N | devices | create | floor | no-op plan | floor | over the floor | lists (plan) | provider peak RSS (plan) | provider peak RSS (create) | state bytes per device |\n" +
			"|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, r := range res.Scale.Runs {
			w("| %s | %s | %s | %s | %s | %s | %s | %d | %s | %s | %.0f |\n", r.Spec, num(r.Spec.total()), secs(r.Create.Wall),
				secs(r.FloorCreate.Wall), secs(r.Plan.Wall), secs(r.FloorPlan.Wall), times(r.planRatio()), r.lists(),
				mib(r.Plan.RSS), mib(r.Create.RSS), float64(r.StateBytes)/float64(r.Spec.total()))
		}
		w("\n")
		for _, r := range res.Scale.Runs {
			if f := r.Forms; f != nil {
				w("Each resource reads its devices from an inventory file (`csvdecode`), as a fleet's devices come from a list "+
					"kept elsewhere. Terraform evaluates the map in every walk of every plan and apply, and the form matters: "+
					"a plan of a configuration holding only a map of %s devices took %s with keys formatted from numbers "+
					"(`range()` and `format()`) and %s from the inventory (%s).\n\n", num(f.Devices), secs(f.Formatted.Wall),
					secs(f.Inventory.Wall), times(ratio(f.Formatted.Wall, f.Inventory.Wall)))
			}
		}
		for _, r := range res.Scale.Runs {
			if r.Latency <= 0 {
				continue
			}
			floor := r.networkFloor()
			w("%s with %s of latency per request in the create: %s against a network floor of %s (%s: N x latency / "+
				"(%d requests at once per resource x %d resources at once)), and Terraform's floor without latency %s.\n\n",
				r.Spec, r.Latency, secs(r.Create.Wall), secs(floor), times(ratio(r.Create.Wall, floor)),
				fleetDevicesParallelism, min(r.Spec.Resources, max(r.Parallelism, 1)), secs(r.FloorCreate.Wall))
			if rf := r.requestFloor(); rf > 0 {
				w("Bare requests at this latency, %d at once, took %.2f ms each here (what the local server and the loopback add "+
					"to the latency): the create's requests alone take %s, %s the network floor.\n\n",
					r.atOnce(), float64(r.BareRequest)/float64(time.Millisecond), secs(rf), times(ratio(rf, floor)))
			}
			if least := r.leastCreate(); least > 0 {
				w("Terraform plans before the requests and saves the state after them, so no provider creates one resource "+
					"in less than Terraform's own create plus the requests: %s, %s the network floor. The create took "+
					"%s that least time.\n\n", secs(least), times(ratio(least, floor)), times(ratio(r.Create.Wall, least)))
			}
		}
	},
	targets: func(res *results) []target {
		var out []target
		for _, r := range res.Scale.Runs {
			if r.Latency > 0 {
				floor := r.networkFloor()
				measured := fmt.Sprintf("%s (%s, floor %s)", times(ratio(r.Create.Wall, floor)), secs(r.Create.Wall), secs(floor))
				if least := r.leastCreate(); least > 0 {
					measured += fmt.Sprintf("; Terraform's own create plus the requests is already %s", times(ratio(least, floor)))
				}
				out = append(out, target{fmt.Sprintf("%s: create at %s of latency at most %.1fx the network floor", r.Spec, r.Latency, maxScaleCreateRatio),
					measured, floor > 0 && ratio(r.Create.Wall, floor) <= maxScaleCreateRatio})
			}
			out = append(out,
				target{fmt.Sprintf("%s: no-op plan at most %.1fx Terraform's floor", r.Spec, maxScalePlanRatio),
					fmt.Sprintf("%s (%s, floor %s)", times(r.planRatio()), secs(r.Plan.Wall), secs(r.FloorPlan.Wall)),
					r.FloorPlan.Wall > 0 && r.planRatio() <= maxScalePlanRatio},
				target{fmt.Sprintf("%s: one list of the workspace per plan", r.Spec), strconv.FormatInt(r.lists(), 10), r.lists() == 1},
				target{fmt.Sprintf("%s: provider peak RSS at most 1 GiB in the no-op plan", r.Spec), mib(r.Plan.RSS),
					r.Plan.RSS > 0 && r.Plan.RSS <= maxScaleRSS},
				target{fmt.Sprintf("%s: provider peak RSS at most 1 GiB in the create", r.Spec), mib(r.Create.RSS),
					r.Create.RSS > 0 && r.Create.RSS <= maxScaleRSS},
			)
		}
		return out
	},
}

// bareRequest returns the mean time of one request that does nothing but
// wait the server's latency (GET of the workspace), with at requests at
// once: each caller sends one request to open its connection, then 20
// that are timed.
func bareRequest(ctx context.Context, baseURL string, ws localzdm.Bootstrap, at int) (time.Duration, error) {
	const timed = 20
	url := strings.TrimSuffix(baseURL, "/") + "/v3/workspaces/" + ws.WorkspaceID
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: at}}
	defer hc.CloseIdleConnections()
	get := func() error {
		rq, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil) //nolint:gosec // G704: the local server the benchmark started.
		if err != nil {
			return err
		}
		rq.Header.Set("X-API-KEY", ws.APIKey)
		res, err := hc.Do(rq) //nolint:gosec // G704: the local server the benchmark started.
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("bare request: %s", res.Status)
		}
		return nil
	}
	var (
		mu    sync.Mutex
		total time.Duration
		first error
		ready sync.WaitGroup
		done  sync.WaitGroup
	)
	start := make(chan struct{})
	for range at {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			err := get()
			ready.Done()
			<-start
			t0 := time.Now()
			for i := 0; i < timed && err == nil; i++ {
				err = get()
			}
			mu.Lock()
			defer mu.Unlock()
			total += time.Since(t0)
			if first == nil {
				first = err
			}
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
	if first != nil {
		return 0, first
	}
	return total / time.Duration(at*timed), nil
}
