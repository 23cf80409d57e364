package modelcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// Options configure a run.
type Options struct {
	// Terraform is the path of the Terraform (or OpenTofu) CLI.
	Terraform string
	// ProviderDir holds the provider binary terraform-provider-zdm
	// (BuildProvider), given to the CLI by dev_overrides.
	ProviderDir string
	// Host is the registry host the CLI resolves "zdm/zdm" under
	// (registry.terraform.io, or registry.opentofu.org for OpenTofu).
	Host string
	// Ops are the operations drawn from (ShortOps or LongOps).
	Ops []Op
	// WorkDir is a directory for the runs (one subdirectory each).
	WorkDir string
	// Log, when set, receives a line per step.
	Log func(format string, args ...any)
	// StopAtFirst ends a run at its first violation.
	StopAtFirst bool
}

// Violation is a broken invariant seen after a step.
type Violation struct {
	Step  int // index in the sequence, -1 for the initial apply
	What  string
	Check string // the invariant's name
}

func (v Violation) String() string {
	return fmt.Sprintf("after step %d: %s: %s", v.Step, v.Check, v.What)
}

// Result is the outcome of one sequence.
type Result struct {
	Steps      []Step
	Violations []Violation
	Applies    int // terraform apply commands run
	Failed     int // steps whose terraform commands failed (refusals, faults)
}

// BuildProvider builds the provider of the repository at root into dir,
// with the build tags given (such as "zdm_mutant_nogate").
func BuildProvider(ctx context.Context, root, dir string, tags ...string) error {
	args := []string{"build", "-o", filepath.Join(dir, "terraform-provider-zdm")}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.CommandContext(ctx, "go", append(args, ".")...) //nolint:gosec // G204: go build of this repository's provider.
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// runner is one sequence's server, working directory and model.
type runner struct {
	opts    Options
	dir     string
	srv     *localzdm.Server
	state   string // zdm-local's state file
	mgmt    string // host:port of each listener, kept across restarts
	storage string
	boot    localzdm.Bootstrap
	api     *client.Client
	m       *model
	sends   []localzdm.Send // of the servers before a restart
	res     *Result
	// reported are the violations seen so far (check and text), each
	// reported once.
	reported map[string]bool
}

// Run runs steps from a fresh server and configuration and checks the
// service after each.
func Run(ctx context.Context, opts Options, steps []Step) (*Result, error) {
	dir, err := os.MkdirTemp(opts.WorkDir, "run-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	r := &runner{opts: opts, dir: dir, state: filepath.Join(dir, "zdm-local.json"), m: newModel(), res: &Result{Steps: steps},
		reported: map[string]bool{}}
	if err := r.start(); err != nil {
		return nil, err
	}
	defer func() { _ = r.srv.Close() }()
	if r.boot, err = r.srv.Bootstrap("modelcheck"); err != nil {
		return nil, err
	}
	if r.api, err = client.New(client.Config{BaseURL: r.srv.BaseURL(), StorageURL: r.srv.StorageURL(), APIKey: r.boot.APIKey}); err != nil {
		return nil, err
	}
	if err := r.writeCLIConfig(); err != nil {
		return nil, err
	}
	// A maintenance window that opens 3 hours from now and closes an hour
	// later: closed for the whole sequence, and the same in every apply.
	now := time.Now().UTC()
	r.m.workspace = r.boot.WorkspaceID
	r.m.window = [2]string{now.Add(3 * time.Hour).Format("15:04"), now.Add(4 * time.Hour).Format("15:04")}
	out, code, err := r.apply(ctx)
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, fmt.Errorf("the initial apply failed:\n%s", out)
	}
	if err := r.check(ctx, -1, true); err != nil {
		return nil, err
	}
	for i, s := range steps {
		if err := ctx.Err(); err != nil {
			return r.res, err
		}
		converged, err := r.exec(ctx, s)
		if err != nil {
			return r.res, fmt.Errorf("step %d %s: %w", i, s, err)
		}
		if r.opts.Log != nil {
			r.opts.Log("step %d %s converged=%v", i, s, converged)
		}
		if err := r.check(ctx, i, converged); err != nil {
			return r.res, fmt.Errorf("step %d %s: check: %w", i, s, err)
		}
		if len(r.res.Violations) > 0 && r.opts.StopAtFirst {
			r.res.Steps = steps[:i+1] // the steps run
			break
		}
	}
	return r.res, nil
}

func (r *runner) start() error {
	srv, err := localzdm.New(localzdm.Options{StateFile: r.state})
	if err != nil {
		return err
	}
	mgmt, storage := r.mgmt, r.storage
	if mgmt == "" {
		mgmt, storage = "127.0.0.1:0", "127.0.0.1:0"
	}
	if err := srv.Start(mgmt, storage); err != nil {
		_ = srv.Close()
		return err
	}
	r.srv = srv
	r.mgmt, r.storage = hostPort(srv.BaseURL()), hostPort(srv.StorageURL())
	return nil
}

func hostPort(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Host
}

// restart closes zdm-local and starts it again on its state file and
// addresses, keeping what it sent.
func (r *runner) restart() error {
	r.sends = append(r.sends, r.srv.Sends()...)
	if err := r.srv.Close(); err != nil {
		return err
	}
	return r.start()
}

func (r *runner) writeCLIConfig() error {
	cfg := fmt.Sprintf(`provider_installation {
  dev_overrides {
    %q = %q
  }
  direct {}
}
`, r.opts.Host+"/zdm/zdm", r.opts.ProviderDir)
	return os.WriteFile(filepath.Join(r.dir, "cli.tfrc"), []byte(cfg), 0o600)
}

func (r *runner) writeConfig() error {
	cfg := fmt.Sprintf(`terraform {
  required_providers {
    zdm = { source = "zdm/zdm" }
  }
}

provider "zdm" {
  base_url     = %q
  storage_url  = %q
  api_key      = %q
  workspace_id = %q
}

`, r.srv.BaseURL(), r.srv.StorageURL(), r.boot.APIKey, r.boot.WorkspaceID) + r.m.hcl()
	return os.WriteFile(filepath.Join(r.dir, "main.tf"), []byte(cfg), 0o600)
}

// tf runs the CLI; interruptAfter > 0 sends SIGINT after that long.
func (r *runner) tf(ctx context.Context, interruptAfter time.Duration, args ...string) (string, int, error) {
	cmd := exec.CommandContext(ctx, r.opts.Terraform, args...) //nolint:gosec // G204: the CLI named on the command line, with the checker's own arguments.
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+filepath.Join(r.dir, "cli.tfrc"),
		"TF_IN_AUTOMATION=1", "TF_INPUT=0", "CHECKPOINT_DISABLE=1", "TF_LOG=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", 0, err
	}
	if interruptAfter > 0 {
		t := time.AfterFunc(interruptAfter, func() { _ = cmd.Process.Signal(syscall.SIGINT) })
		defer t.Stop()
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), exit.ExitCode(), nil
	}
	if err != nil {
		return out.String(), 0, err
	}
	return out.String(), 0, nil
}

func (r *runner) apply(ctx context.Context, extra ...string) (string, int, error) {
	if err := r.writeConfig(); err != nil {
		return "", 0, err
	}
	r.res.Applies++
	out, code, err := r.tf(ctx, 0, append([]string{"apply", "-auto-approve", "-no-color"}, extra...)...)
	if err == nil && code == 0 {
		r.m.moved = nil // applied: the moved blocks are done with
	}
	return out, code, err
}

// refused tells whether out is the duplicate gate's refusal.
func refused(out string) bool {
	return strings.Contains(out, "with these names already exist")
}

// conflicting tells whether out is the plan's refusal of two values of
// one command for one fleet.
func conflicting(out string) bool {
	return strings.Contains(out, "Two values of job")
}

// exec runs one step and reports whether it ended in an apply that
// succeeded without faults or interrupts (the state must then agree with
// the service).
func (r *runner) exec(ctx context.Context, s Step) (bool, error) {
	addr := fmt.Sprintf("zdm_device.d[%q]", s.A)
	rollouts := maps.Clone(r.m.ro)
	r.m.edit(s)
	var out string
	var code int
	var err error
	clean := true
	switch s.Op {
	case OpDevTaint, OpJobTaint, OpFleetTaint, OpFOTATaint:
		a := addr
		switch s.Op {
		case OpJobTaint:
			a = fmt.Sprintf("zdm_device_job.j[%q]", s.A)
		case OpFOTATaint:
			a = fmt.Sprintf("zdm_fota.u[%q]", s.A)
		case OpFleetTaint:
			a = fmt.Sprintf("zdm_fleet.f[%q]", s.A)
		}
		if _, c, err := r.tf(ctx, 0, "taint", "-no-color", a); err != nil || c != 0 {
			return false, err // nothing there to taint
		}
		if out, code, err = r.apply(ctx); err == nil && code != 0 {
			_, _, err = r.tf(ctx, 0, "untaint", "-no-color", a) // as the refusal says
		}
	case OpRolloutTaint:
		a := "zdm_job_rollout." + s.A
		if _, c, err := r.tf(ctx, 0, "taint", "-no-color", a); err != nil || c != 0 {
			return false, err // nothing there to taint
		}
		if out, code, err = r.apply(ctx); err == nil && code != 0 {
			_, _, err = r.tf(ctx, 0, "untaint", "-no-color", a)
		}
	case OpDevReplace, OpJobReplace, OpFleetJobReplace, OpRolloutReplace, OpFOTAReplace:
		a := addr
		switch s.Op {
		case OpJobReplace:
			a = fmt.Sprintf("zdm_device_job.j[%q]", s.A)
		case OpFOTAReplace:
			a = fmt.Sprintf("zdm_fota.u[%q]", s.A)
		case OpFleetJobReplace:
			a = "zdm_fleet_job.fj"
		case OpRolloutReplace:
			a = "zdm_job_rollout." + s.A
		}
		out, code, err = r.apply(ctx, "-replace="+a)
	case OpMoveOutside:
		if err = r.moveOutside(ctx, s.N); err == nil {
			out, code, err = r.apply(ctx)
		}
	case OpDevStateRm:
		id, ok, e := r.stateID(ctx, addr)
		if e != nil || !ok {
			return false, e
		}
		if _, c, e := r.tf(ctx, 0, "state", "rm", "-no-color", addr); e != nil || c != 0 {
			return false, e
		}
		if o, c, e := r.tf(ctx, 0, "import", "-no-color", addr, r.boot.WorkspaceID+"/"+id); e != nil || c != 0 {
			return false, errors.Join(e, fmt.Errorf("import %s: exit %d: %s", addr, c, o))
		}
		out, code, err = r.apply(ctx)
	case OpAdopt:
		if err = r.adopt(ctx); err == nil {
			out, code, err = r.apply(ctx)
		}
	case OpFaultsCreate:
		clean = false
		switch s.C {
		case "error_rate":
			r.srv.SetFaults(localzdm.Faults{ErrorRate: 0.3})
		default:
			_, err = r.srv.AddRequestFault(localzdm.RequestFault{Method: "POST", Path: "/v3/workspaces/{workspace_id}/devices",
				Action: s.C, Count: 1})
		}
		if err == nil {
			out, code, err = r.apply(ctx)
		}
		r.srv.SetFaults(localzdm.Faults{})
		r.srv.ClearRequestFaults()
	case OpInterrupt:
		clean = false
		r.srv.SetFaults(localzdm.Faults{Latency: 100 * time.Millisecond})
		if err = r.writeConfig(); err == nil {
			r.res.Applies++
			out, code, err = r.tf(ctx, time.Duration(s.N)*time.Millisecond, "apply", "-auto-approve", "-no-color")
		}
		r.srv.SetFaults(localzdm.Faults{})
	case OpRestart:
		if err = r.restart(); err == nil {
			out, code, err = r.apply(ctx)
		}
	default:
		out, code, err = r.apply(ctx)
	}
	if err != nil {
		return false, err
	}
	if code != 0 {
		r.res.Failed++
		if r.opts.Log != nil {
			r.opts.Log("  %s: exit %d: %s", s, code, lastLines(out, 6))
		}
		if refused(out) {
			// As the refusal says: import what the service holds, or
			// take the name back out of zdm_fleet_devices.
			if s.Op == OpFDAdd || s.Op == OpFDKey {
				delete(r.m.fd, s.A)
				delete(r.m.fd, s.B)
			}
			if err := r.adopt(ctx); err != nil {
				return false, err
			}
		}
		if conflicting(out) {
			// As the refusal says: one value of the job per fleet; the
			// edit that added the other value is taken back.
			r.m.ro = rollouts
		}
		return false, nil
	}
	return clean, nil
}

// moveOutside moves the device pick (modulo the devices of the model's
// fleets, by ID) to the next fleet of the model, through the service as
// another tool would, outside Terraform.
func (r *runner) moveOutside(ctx context.Context, pick int) error {
	fleets, devices, err := r.service(ctx)
	if err != nil {
		return err
	}
	byName := map[string]string{}
	for _, f := range fleets {
		byName[f.Name] = f.ID
	}
	var ids []string // the model's fleets, by key
	for _, k := range slices.Sorted(maps.Keys(r.m.fleets)) {
		if id := byName[r.m.fleets[k]]; id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) < 2 {
		return nil
	}
	var in []client.Device
	for _, d := range devices {
		if slices.Contains(ids, d.FleetID()) {
			in = append(in, d)
		}
	}
	if len(in) == 0 {
		return nil
	}
	sort.Slice(in, func(i, j int) bool { return in[i].ID < in[j].ID })
	d := in[pick%len(in)]
	to := ids[(slices.Index(ids, d.FleetID())+1)%len(ids)]
	if r.opts.Log != nil {
		r.opts.Log("  move %s (%s) from %s to %s", d.ID, d.Name, d.FleetID(), to)
	}
	return r.srv.MoveDevice(d.ID, to)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// tfState is the part of terraform show -json the checks read.
type tfState struct {
	Values struct {
		RootModule struct {
			Resources []struct {
				Address string         `json:"address"`
				Type    string         `json:"type"`
				Values  map[string]any `json:"values"`
			} `json:"resources"`
		} `json:"root_module"`
	} `json:"values"`
}

func (r *runner) show(ctx context.Context) (*tfState, error) {
	out, code, err := r.tf(ctx, 0, "show", "-json", "-no-color")
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, fmt.Errorf("terraform show: exit %d: %s", code, out)
	}
	var st tfState
	if strings.TrimSpace(out) == "" {
		return &st, nil
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		return nil, fmt.Errorf("terraform show -json: %w", err)
	}
	return &st, nil
}

func (r *runner) stateID(ctx context.Context, addr string) (string, bool, error) {
	st, err := r.show(ctx)
	if err != nil {
		return "", false, err
	}
	for _, res := range st.Values.RootModule.Resources {
		if res.Address == addr {
			id, _ := res.Values["id"].(string)
			return id, id != "", nil
		}
	}
	return "", false, nil
}

// adopt brings under each configured zdm_device the state lacks the device
// of its name and fleet in the service, as the gate's refusal says: by
// terraform state mv from an address no longer configured (what a moved
// block does), or by import when no resource holds it.
func (r *runner) adopt(ctx context.Context) error {
	st, err := r.show(ctx)
	if err != nil {
		return err
	}
	inState := map[string]bool{}
	held := map[string]bool{}
	at := map[string]string{} // device ID -> its zdm_device address
	for _, res := range st.Values.RootModule.Resources {
		inState[res.Address] = true
		if id, ok := res.Values["id"].(string); ok && res.Type == "zdm_device" {
			held[id] = true
			at[id] = res.Address
		}
		if ids, ok := res.Values["device_ids"].(map[string]any); ok {
			for _, id := range ids {
				held[fmt.Sprint(id)] = true
			}
		}
	}
	fleets, devices, err := r.service(ctx)
	if err != nil {
		return err
	}
	fleetID := map[string]string{}
	for _, f := range fleets {
		fleetID[f.Name] = f.ID
	}
	configured := map[string]bool{}
	for k := range r.m.devices {
		configured[fmt.Sprintf("zdm_device.d[%q]", k)] = true
	}
	for _, k := range slices.Sorted(maps.Keys(r.m.devices)) {
		d := r.m.devices[k]
		addr := fmt.Sprintf("zdm_device.d[%q]", k)
		if inState[addr] {
			continue
		}
		want := fleetID["default"]
		if d.fleet != "" {
			want = fleetID[r.m.fleets[d.fleet]]
		}
		for _, dev := range devices {
			if dev.Name != d.name || dev.FleetID() != want {
				continue
			}
			args := []string{"import", "-no-color", addr, r.boot.WorkspaceID + "/" + dev.ID}
			if old := at[dev.ID]; old != "" {
				if configured[old] {
					continue // another configured device's
				}
				args = []string{"state", "mv", "-no-color", old, addr} // as a moved block would
			} else if held[dev.ID] {
				continue // a zdm_fleet_devices device
			}
			if out, code, err := r.tf(ctx, 0, args...); err != nil || code != 0 {
				return errors.Join(err, fmt.Errorf("%s: exit %d: %s", strings.Join(args, " "), code, out))
			}
			held[dev.ID], at[dev.ID] = true, addr
			break
		}
	}
	return nil
}

func (r *runner) service(ctx context.Context) ([]client.Fleet, []client.Device, error) {
	fleets, err := r.api.ListFleets(ctx, r.boot.WorkspaceID)
	if err != nil {
		return nil, nil, err
	}
	devices, err := r.api.ListDevices(ctx, r.boot.WorkspaceID)
	return fleets, devices, err
}

// onlyWaiting tells whether every change of the plan out is to a rollout
// with a closed maintenance window: it stopped, waiting for the window, and
// each apply resumes it (and sends nothing while the window is closed).
func (r *runner) onlyWaiting(out string) bool {
	changes := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "#" || (f[2] != "will" && f[2] != "must") {
			continue
		}
		changes++
		k, ok := strings.CutPrefix(f[1], "zdm_job_rollout.")
		if !ok || !r.m.ro[k].window {
			return false
		}
	}
	return changes > 0
}

// rolloutValue is the v of a send of the rollouts' job, "" for any other.
func rolloutValue(s localzdm.Send) string {
	if s.Kind != "job" || s.Name != "rollout" {
		return ""
	}
	var v struct {
		V string `json:"v"`
	}
	if json.Unmarshal([]byte(s.Value), &v) != nil {
		return ""
	}
	return v.V
}

// Resends describes each send of sends (in order) that repeats an earlier
// one: the same kind, device, and job (name, value) or firmware (ID,
// version). Any repeat counts, even of a value that returns after another
// value: the generator's values and versions are fresh, and only an add-back
// step gives one back (a job, or an update the device still holds, removed
// and added back), which must send nothing.
func Resends(sends []localzdm.Send) []string {
	var out []string
	seen := map[string]string{}
	for _, s := range sends {
		k := strings.Join([]string{s.Kind, s.DeviceID, s.Name, s.Value}, "\x00")
		if at, ok := seen[k]; ok {
			out = append(out, fmt.Sprintf("%s %q = %s sent twice to device %s (at %s and %s)", s.Kind, s.Name, s.Value, s.DeviceID, at, s.At))
			continue
		}
		seen[k] = s.At
	}
	return out
}

// check records the violations of the invariants after step i.
func (r *runner) check(ctx context.Context, i int, converged bool) error {
	add := func(check, format string, args ...any) {
		what := fmt.Sprintf(format, args...)
		if !r.reported[check+what] { // each once, at the step that made it
			r.reported[check+what] = true
			r.res.Violations = append(r.res.Violations, Violation{Step: i, Check: check, What: what})
		}
	}
	fleets, devices, err := r.service(ctx)
	if err != nil {
		return err
	}
	fleetNames := map[string][]string{}
	for _, f := range fleets {
		fleetNames[f.Name] = append(fleetNames[f.Name], f.ID)
	}
	for _, n := range slices.Sorted(maps.Keys(fleetNames)) {
		if ids := fleetNames[n]; len(ids) > 1 {
			add("fleet-name-unique", "fleet name %q is held by %d fleets %v", n, len(ids), ids)
		}
	}
	byName := map[string][]string{}
	for _, d := range devices {
		k := d.FleetID() + "\x00" + d.Name
		byName[k] = append(byName[k], d.ID)
	}
	for _, k := range slices.Sorted(maps.Keys(byName)) {
		if ids := byName[k]; len(ids) > 1 {
			fleet, name, _ := strings.Cut(k, "\x00")
			add("device-name-unique", "device name %q is held by %d devices of fleet %s: %v", name, len(ids), fleet, ids)
		}
	}
	sends := append(append([]localzdm.Send(nil), r.sends...), r.srv.Sends()...)
	for _, what := range Resends(sends) {
		add("no-resend", "%s", what)
	}
	for _, s := range sends {
		if v := rolloutValue(s); v != "" && r.m.closed[v] {
			add("window", "job %q = %s sent to device %s at %s by a rollout whose only maintenance window is closed", s.Name, s.Value, s.DeviceID, s.At)
		}
	}
	if !converged {
		return nil
	}
	out, code, err := r.tf(ctx, 0, "plan", "-detailed-exitcode", "-no-color")
	if err != nil {
		return err
	}
	if code != 0 && (code != 2 || !r.onlyWaiting(out)) {
		add("converged", "the plan after a successful apply is not empty (exit %d): %s", code, lastLines(out, 8))
	}
	st, err := r.show(ctx)
	if err != nil {
		return err
	}
	inService := map[string]bool{}
	for _, d := range devices {
		inService[d.ID] = true
	}
	var missing []string
	for _, res := range st.Values.RootModule.Resources {
		ids := map[string]any{}
		if res.Type == "zdm_device" {
			ids[res.Address] = res.Values["id"]
		}
		if m, ok := res.Values["device_ids"].(map[string]any); ok {
			for k, id := range m {
				ids[res.Address+"["+k+"]"] = id
			}
		}
		for a, id := range ids {
			if !inService[fmt.Sprint(id)] {
				missing = append(missing, fmt.Sprintf("%s (%v)", a, id))
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		add("state-in-service", "devices of the state the service does not have: %s", strings.Join(missing, ", "))
	}
	return nil
}
