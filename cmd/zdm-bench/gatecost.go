package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// The cost of the checks that read the service before an irreversible
// write (the list of a workspace's devices before zdm_fleet_devices creates
// them, the read of each wave's devices before a rollout sends to them):
// the same steps with the provider built at -gate-baseline-ref (before the
// checks) and with this one, in one run, against one local server, every
// API request waiting -latency, alternating the two (baseline, current,
// current, baseline, ...) so that both see the same load.

// Targets of the scenario: the checks cost at most this over the baseline.
const (
	maxGateRatio    = 1.1
	maxGatePlanReqs = 1 // API requests of the no-op plan of zdm_fleet_devices
)

// gateRolloutWaves are the waves of the measured rollout.
var gateRolloutWaves = []string{"10%", "50%", "100%"}

// gateRolloutPoll is the rollout's poll_interval.
const gateRolloutPoll = "1s"

// gateSide is one provider's steps.
type gateSide struct {
	// Create and Plan are the create of FleetDevices devices as one
	// zdm_fleet_devices and its no-op plan; Rollout the apply of a
	// zdm_job_rollout over RolloutDevices devices.
	Create  measurement `json:"create"`
	Plan    measurement `json:"plan"`
	Rollout measurement `json:"rollout"`
}

// gateCostResult compares the provider before the checks with this one.
type gateCostResult struct {
	BaselineRef    string        `json:"baseline_ref"`
	BaselineCommit string        `json:"baseline_commit"`
	CurrentCommit  string        `json:"current_commit"`
	FleetDevices   int           `json:"fleet_devices"`
	RolloutDevices int           `json:"rollout_devices"`
	Latency        time.Duration `json:"latency_ns"`
	Repeat         int           `json:"repeat"`
	Baseline       gateSide      `json:"baseline"`
	Current        gateSide      `json:"current"`
}

// buildAtRef builds the provider at git ref of the repository into out, in
// a temporary worktree removed after, and returns the commit it names.
func buildAtRef(ctx context.Context, root, ref, out string) (string, error) {
	rev, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--verify", ref+"^{commit}").Output() //nolint:gosec // G204: a ref named on the command line.
	if err != nil {
		return "", fmt.Errorf("-gate-baseline-ref %q: not a commit of the repository: %w", ref, err)
	}
	commit := strings.TrimSpace(string(rev))
	tmp, err := os.MkdirTemp("", "zdm-bench-ref-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	src := filepath.Join(tmp, "src")
	if o, err := exec.CommandContext(ctx, "git", "-C", root, "worktree", "add", "--detach", src, commit).CombinedOutput(); err != nil { //nolint:gosec // G204: a commit of the repository.
		return "", fmt.Errorf("git worktree add: %w: %s", err, o)
	}
	defer func() {
		if o, err := exec.Command("git", "-C", root, "worktree", "remove", "--force", src).CombinedOutput(); err != nil { //nolint:gosec // G204: the worktree made above.
			logf("git worktree remove %s: %v: %s", src, err, o)
		}
	}()
	build := exec.CommandContext(ctx, "go", "build", "-o", out, ".") //nolint:gosec // G204: builds the provider at a commit of this repository.
	build.Dir = src
	if o, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build at %s: %w: %s", commit, err, o)
	}
	return commit, nil
}

// headCommit is the commit of the working tree (with "+changes" when it
// differs from it).
func headCommit(ctx context.Context, root string) string {
	rev, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "HEAD").Output() //nolint:gosec // G204: git in the repository's root.
	if err != nil {
		return "unknown"
	}
	commit := strings.TrimSpace(string(rev))
	status := exec.CommandContext(ctx, "git", "-C", root, "status", "--porcelain", "--untracked-files=no") //nolint:gosec // G204: git in the repository's root.
	if st, err := status.Output(); err == nil && len(st) > 0 {
		commit += "+changes"
	}
	return commit
}

func (b *bench) runGateCost(ctx context.Context) (*gateCostResult, error) {
	latency := b.o.latencyOrDefault()
	res := &gateCostResult{BaselineRef: b.o.gateBaselineRef, CurrentCommit: headCommit(ctx, b.root),
		FleetDevices: b.o.gateDevices, RolloutDevices: b.o.gateRollout, Latency: latency, Repeat: b.o.gateRepeat}
	baseDir := filepath.Join(b.work, "baseline-plugins")
	logf("building the provider at %s", b.o.gateBaselineRef)
	var err error
	if res.BaselineCommit, err = buildAtRef(ctx, b.root, b.o.gateBaselineRef, filepath.Join(baseDir, providerBinary)); err != nil {
		return nil, err
	}
	baseConfig := filepath.Join(b.work, "cli-baseline.tfrc")
	if err := writeCLIConfig(baseConfig, baseDir); err != nil {
		return nil, err
	}
	sides := []struct {
		name      string
		cliConfig string
		provider  string
		into      *gateSide
	}{
		{"baseline", baseConfig, filepath.Join(baseDir, providerBinary), &res.Baseline},
		{"current", b.cliConfig, b.provider, &res.Current},
	}
	behavior := b.srv.CurrentDeviceBehavior()
	defer func() { _ = b.srv.SetDeviceBehavior(behavior) }()
	// The devices run each job 50 to 250 ms after it is scheduled.
	if err := b.srv.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, Delay: 50 * time.Millisecond,
		Jitter: 200 * time.Millisecond, Seed: 7}); err != nil {
		return nil, err
	}
	b.srv.SetFaults(localzdm.Faults{Latency: latency})
	defer b.srv.SetFaults(localzdm.Faults{})
	for i := range b.o.gateRepeat {
		order := []int{0, 1}
		if i%2 == 1 {
			order = []int{1, 0}
		}
		for _, k := range order {
			s := sides[k]
			label := fmt.Sprintf("%s-%d", s.name, i)
			if b.o.gateDevices > 0 {
				if err := b.gateFleetDevices(ctx, label, s.cliConfig, s.provider, s.into); err != nil {
					return nil, fmt.Errorf("%s provider, zdm_fleet_devices: %w", s.name, err)
				}
			}
			if b.o.gateRollout > 0 {
				if err := b.gateRolloutApply(ctx, label, s.cliConfig, s.provider, s.into); err != nil {
					return nil, fmt.Errorf("%s provider, zdm_job_rollout: %w", s.name, err)
				}
			}
			if b.o.gateDevices > 0 {
				logf("%s: create %s (%d requests), no-op plan %s (%d requests)", label, secs(last(s.into.Create)),
					s.into.Create.totalRequests(), secs(last(s.into.Plan)), s.into.Plan.totalRequests())
			}
			if b.o.gateRollout > 0 {
				logf("%s: rollout %s (%d requests)", label, secs(last(s.into.Rollout)), s.into.Rollout.totalRequests())
			}
		}
	}
	return res, nil
}

// last is the wall time of the last run of m.
func last(m measurement) time.Duration {
	if len(m.Runs) == 0 {
		return 0
	}
	return m.Runs[len(m.Runs)-1]
}

// gateConfig prepares the directory name in a new workspace for the
// provider that cliConfig serves.
func (b *bench) gateConfig(name, cliConfig, provider string) (*config, localzdm.Bootstrap, error) {
	ws, err := b.workspace(name)
	if err != nil {
		return nil, ws, err
	}
	dir := filepath.Join(b.work, name)
	if err := os.MkdirAll(dir, 0o750); err != nil { //nolint:gosec // G703: a directory of the benchmark's own.
		return nil, ws, err
	}
	return &config{dir: dir, env: b.env(ws, cliConfig), provider: provider}, ws, nil
}

// gateFleetDevices creates the devices as one zdm_fleet_devices and plans
// with no change.
func (b *bench) gateFleetDevices(ctx context.Context, label, cliConfig, provider string, into *gateSide) error {
	n := b.o.gateDevices
	cfg, ws, err := b.gateConfig("gate-fleet-devices-"+label, cliConfig, provider)
	if err != nil {
		return err
	}
	if err := writeFleetDevicesConfig(cfg, n, "gd"); err != nil {
		return err
	}
	if _, err := b.terraform(ctx, cfg, okCodes, "init", "-no-color", "-input=false"); err != nil {
		return err
	}
	parallelism := "-parallelism=" + strconv.Itoa(b.o.parallelism)
	r, err := b.terraform(ctx, cfg, okCodes, "apply", "-no-color", "-input=false", "-auto-approve", parallelism)
	if err != nil {
		return err
	}
	into.Create.add(r)
	if err := checkFleetDevices(ctx, b, ws, "gd-", n, "create"); err != nil {
		return err
	}
	r, err = b.terraform(ctx, cfg, []int{0}, "plan", "-no-color", "-input=false", "-detailed-exitcode", parallelism)
	if err != nil {
		return err
	}
	into.Plan.add(r)
	return nil
}

// gateRolloutApply applies a zdm_job_rollout over the devices of a fleet,
// created beforehand, and checks that each device got the job once.
func (b *bench) gateRolloutApply(ctx context.Context, label, cliConfig, provider string, into *gateSide) error {
	n := b.o.gateRollout
	cfg, ws, err := b.gateConfig("gate-rollout-"+label, cliConfig, provider)
	if err != nil {
		return err
	}
	c, err := client.New(client.Config{BaseURL: b.srv.BaseURL(), APIKey: ws.APIKey})
	if err != nil {
		return err
	}
	fleet, err := c.CreateFleet(ctx, ws.WorkspaceID, "rollout", "")
	if err != nil {
		return err
	}
	names := make([]string, n)
	for i := range names {
		names[i] = "rd-" + strconv.Itoa(i)
	}
	ids, err := b.srv.CreateDevices(ws.WorkspaceID, fleet.ID, names)
	if err != nil {
		return err
	}
	waves := make([]string, len(gateRolloutWaves))
	for i, w := range gateRolloutWaves {
		waves[i] = strconv.Quote(w)
	}
	if err := cfg.write("main.tf", requiredProviders+fmt.Sprintf(`
provider "zdm" {}

resource "zdm_job_rollout" "r" {
  workspace_id  = %q
  fleet_ids     = [%q]
  name          = "set_config"
  value         = { sample_period_s = 30 }
  waves         = [%s]
  wave_timeout  = "5m"
  poll_interval = %q
}
`, ws.WorkspaceID, fleet.ID, strings.Join(waves, ", "), gateRolloutPoll)); err != nil {
		return err
	}
	if _, err := b.terraform(ctx, cfg, okCodes, "init", "-no-color", "-input=false"); err != nil {
		return err
	}
	r, err := b.terraform(ctx, cfg, okCodes, "apply", "-no-color", "-input=false", "-auto-approve")
	if err != nil {
		return err
	}
	into.Rollout.add(r)
	if sent := r.Requests["POST /v3/devices/{device_id}/jobs/{job_name}"]; sent != int64(len(ids)) {
		return fmt.Errorf("the rollout sent the job %d times to %d devices", sent, len(ids))
	}
	return nil
}

func (o options) latencyOrDefault() time.Duration {
	if o.latency <= 0 {
		return 20 * time.Millisecond
	}
	return o.latency
}

// gateCostSection renders the comparison for the report.
func gateCostSection(w printf, res *results) {
	r := res.GateCost
	w("## Cost of reading the service before writing\n\n")
	w("The same steps with the provider built at `%s` (%s, before the checks) and with this one (%s), in one run "+
		"against one local server, every API request waiting %s; the two alternate, %d runs each (the median is "+
		"shown). The create of `zdm_fleet_devices` lists the workspace's devices first; the rollout (`zdm_job_rollout` "+
		"over %s devices of one fleet, waves %s, `poll_interval = %q`, each device running the job 50 to 250 ms after "+
		"it is sent) reads each wave's devices again before sending to them.\n\n",
		r.BaselineRef, shortCommit(r.BaselineCommit), shortCommit(r.CurrentCommit), r.Latency, r.Repeat,
		num(r.RolloutDevices), strings.Join(gateRolloutWaves, ", "), gateRolloutPoll)
	writeHeader(w, []string{"step", "before the checks", "runs", "with the checks", "runs", "ratio",
		"API requests before", "API requests with"})
	for _, s := range []struct {
		name      string
		base, cur measurement
	}{
		{fmt.Sprintf("zdm_fleet_devices: create %s", num(r.FleetDevices)), r.Baseline.Create, r.Current.Create},
		{fmt.Sprintf("zdm_fleet_devices: no-op plan of %s", num(r.FleetDevices)), r.Baseline.Plan, r.Current.Plan},
		{fmt.Sprintf("zdm_job_rollout: apply over %s", num(r.RolloutDevices)), r.Baseline.Rollout, r.Current.Rollout},
	} {
		if len(s.base.Runs) == 0 {
			continue
		}
		w("| %s | %s | %s | %s | %s | %.2fx | %s | %s |\n", s.name, secs(s.base.Wall), runsText(s.base.Runs),
			secs(s.cur.Wall), runsText(s.cur.Runs), ratio(s.cur.Wall, s.base.Wall), requestsText(s.base.Requests),
			requestsText(s.cur.Requests))
	}
	w("\n")
}

// runsText lists the wall times of runs.
func runsText(runs []time.Duration) string {
	parts := make([]string, len(runs))
	for i, d := range runs {
		parts[i] = fmt.Sprintf("%.2f", d.Seconds())
	}
	return strings.Join(parts, ", ")
}

func shortCommit(c string) string {
	if len(c) > 7 && !strings.HasPrefix(c, "unknown") {
		return c[:7] + strings.TrimLeft(c[7:], "0123456789abcdef")
	}
	return c
}

// gateCostTargets are the goals of the scenario.
func gateCostTargets(res *results) []target {
	r := res.GateCost
	var ts []target
	if len(r.Current.Create.Runs) > 0 {
		create := ratio(r.Current.Create.Wall, r.Baseline.Create.Wall)
		ts = append(ts,
			target{fmt.Sprintf("zdm_fleet_devices: create of %s devices with the checks at most %.1fx before them",
				num(r.FleetDevices), maxGateRatio), fmt.Sprintf("%.2fx (%s, before %s)", create, secs(r.Current.Create.Wall),
				secs(r.Baseline.Create.Wall)), create <= maxGateRatio},
			target{fmt.Sprintf("zdm_fleet_devices: no-op plan of %s devices with the checks in %d API request",
				num(r.FleetDevices), maxGatePlanReqs), fmt.Sprintf("%d", r.Current.Plan.totalRequests()),
				r.Current.Plan.totalRequests() <= maxGatePlanReqs})
	}
	if len(r.Current.Rollout.Runs) > 0 {
		roll := ratio(r.Current.Rollout.Wall, r.Baseline.Rollout.Wall)
		ts = append(ts, target{fmt.Sprintf("zdm_job_rollout over %s devices with the checks at most %.1fx before them",
			num(r.RolloutDevices), maxGateRatio), fmt.Sprintf("%.2fx (%s, before %s)", roll, secs(r.Current.Rollout.Wall),
			secs(r.Baseline.Rollout.Wall)), roll <= maxGateRatio})
	}
	return ts
}

var gateCostScenario = scenario{
	name:    "gatecost",
	option:  "gate_baseline_ref",
	enabled: func(o options) bool { return o.gateBaselineRef != "" && (o.gateDevices > 0 || o.gateRollout > 0) },
	run: func(ctx context.Context, b *bench, res *results) error {
		r, err := b.runGateCost(ctx)
		if err != nil {
			return fmt.Errorf("cost of the checks: %w", err)
		}
		res.GateCost = r
		return nil
	},
	measured: func(res *results) bool { return res.GateCost != nil },
	take:     func(dst, src *results) { dst.GateCost = src.GateCost },
	report:   gateCostSection,
	targets:  gateCostTargets,
}
