package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// A state's own devices: a state that manages one fleet of F devices
// (-own-fleet) in a workspace of W devices (-own, the other fleets of F
// devices each made outside Terraform), planned with no change. The
// device list keeps the devices of the fleets the configuration reads, so
// the provider's peak memory follows F, not W: each workspace is reported
// against the first (W = F, a workspace of the fleet alone).

// maxOwnRSSRatio bounds the plan's provider peak RSS in a large workspace
// over that in a workspace of the fleet alone.
const maxOwnRSSRatio = 1.5

type ownRun struct {
	Workspace int         `json:"workspace_devices"`
	Fleet     int         `json:"fleet_devices"`
	Plan      measurement `json:"plan"`
}

func (r ownRun) lists() int64 { return r.Plan.Requests["GET /v3/workspaces/{workspace_id}/devices"] }

type ownResult struct {
	Runs []ownRun `json:"runs"`
}

// rssRatio is the plan's peak RSS of run i over that of the first run.
func (res *ownResult) rssRatio(i int) float64 {
	if base := res.Runs[0].Plan.RSS; base > 0 {
		return float64(res.Runs[i].Plan.RSS) / float64(base)
	}
	return 0
}

// parseOwn reads "W,W" (workspace sizes, each at least fleet); "" or "0"
// is none.
func parseOwn(text string, fleet int) ([]int, error) {
	if text == "" || text == "0" {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(text, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < fleet || fleet < 1 {
			return nil, fmt.Errorf("-own: %q is not a number of devices of at least -own-fleet (%d)", part, fleet)
		}
		out = append(out, n)
	}
	return out, nil
}

// ownText is sizes as -own takes them, with the fleet.
func ownText(sizes []int, fleet int) string {
	parts := make([]string, len(sizes))
	for i, n := range sizes {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",") + " (fleet " + strconv.Itoa(fleet) + ")"
}

func (b *bench) runOwn(ctx context.Context, w, f int) (ownRun, error) {
	r := ownRun{Workspace: w, Fleet: f}
	ws, err := b.workspace("own-" + strconv.Itoa(w))
	if err != nil {
		return r, err
	}
	api, err := client.New(client.Config{BaseURL: b.srv.BaseURL(), APIKey: ws.APIKey})
	if err != nil {
		return r, err
	}
	mine, err := api.CreateFleet(ctx, ws.WorkspaceID, "mine", "")
	if err != nil {
		return r, err
	}
	cfg, err := b.newConfig("own-"+strconv.Itoa(w), ws, false)
	if err != nil {
		return r, err
	}
	if err := cfg.writeInventory("inventory.csv", f, "own-"); err != nil {
		return r, err
	}
	if err := cfg.write("main.tf", requiredProviders+fmt.Sprintf(`
provider "zdm" {}

resource "zdm_fleet_devices" "d" {
  fleet_id    = %q
  parallelism = %d
  devices     = %s
}
`, mine.ID, fleetDevicesParallelism, inventoryDevices("inventory.csv"))); err != nil {
		return r, err
	}
	if _, err := b.terraform(ctx, cfg, okCodes, "init", "-no-color", "-input=false"); err != nil {
		return r, err
	}
	if _, err := b.terraform(ctx, cfg, okCodes, "apply", "-no-color", "-input=false", "-auto-approve",
		"-parallelism="+strconv.Itoa(b.o.parallelism)); err != nil {
		return r, err
	}
	// The rest of the workspace: fleets of f devices (the last smaller),
	// made outside Terraform.
	for made, k := f, 0; made < w; k++ {
		other, err := api.CreateFleet(ctx, ws.WorkspaceID, fmt.Sprintf("other-%d", k), "")
		if err != nil {
			return r, err
		}
		names := make([]string, min(f, w-made))
		for i := range names {
			names[i] = fmt.Sprintf("other-%d-%d", k, i)
		}
		if _, err := b.srv.CreateDevices(ws.WorkspaceID, other.ID, names); err != nil {
			return r, err
		}
		made += len(names)
	}
	for range max(b.o.planRepeat, 1) {
		res, err := b.terraform(ctx, cfg, planCodes, "plan", "-no-color", "-input=false", "-detailed-exitcode",
			"-parallelism="+strconv.Itoa(b.o.parallelism))
		if err != nil {
			return r, err
		}
		r.Plan.add(res)
	}
	logf("own devices: a state of %s devices in a workspace of %s: no-op plan %s, %d lists, provider peak RSS %s",
		num(f), num(w), secs(r.Plan.Wall), r.lists(), mib(r.Plan.RSS))
	return r, nil
}

var ownScenario = scenario{
	name:    "own",
	option:  "own",
	enabled: func(o options) bool { return len(o.own) > 0 },
	run: func(ctx context.Context, b *bench, res *results) error {
		s := &ownResult{}
		for _, w := range b.o.own {
			r, err := b.runOwn(ctx, w, b.o.ownFleet)
			if err != nil {
				return fmt.Errorf("own %d: %w", w, err)
			}
			s.Runs = append(s.Runs, r)
		}
		if len(s.Runs) == 0 {
			return errors.New("own: nothing measured")
		}
		res.Own = s
		return nil
	},
	measured: func(res *results) bool { return res.Own != nil },
	take:     func(dst, src *results) { dst.Own = src.Own },
	report: func(w printf, res *results) {
		w("## A state's own devices in a large workspace\n\n")
		w("One `zdm_fleet_devices` of F devices, its fleet one of a workspace of W devices (the other fleets, of F " +
			"devices each, made outside Terraform), planned with no change. The API lists the devices of the whole " +
			"workspace; the provider keeps those of the fleets the configuration reads and drops the others as it " +
			"decodes the answer. The first row is the workspace of the fleet alone, the base of the ratio.\n\n")
		w("| W | F (state) | no-op plan | lists (plan) | provider peak RSS (plan) | over the first row |\n|--:|--:|--:|--:|--:|--:|\n")
		for i, r := range res.Own.Runs {
			w("| %s | %s | %s | %d | %s | %s |\n", num(r.Workspace), num(r.Fleet), secs(r.Plan.Wall), r.lists(), mib(r.Plan.RSS),
				times(res.Own.rssRatio(i)))
		}
		w("\n")
	},
	targets: func(res *results) []target {
		var out []target
		for i, r := range res.Own.Runs {
			out = append(out, target{fmt.Sprintf("own %s in %s: one list of the workspace per plan", num(r.Fleet), num(r.Workspace)),
				strconv.FormatInt(r.lists(), 10), r.lists() == 1})
			if i > 0 {
				out = append(out, target{fmt.Sprintf("own %s in %s: provider peak RSS at most %.1fx the fleet alone's",
					num(r.Fleet), num(r.Workspace), maxOwnRSSRatio),
					fmt.Sprintf("%s (%s, alone %s)", times(res.Own.rssRatio(i)), mib(r.Plan.RSS), mib(res.Own.Runs[0].Plan.RSS)),
					r.Plan.RSS > 0 && res.Own.rssRatio(i) <= maxOwnRSSRatio})
			}
		}
		return out
	},
}
