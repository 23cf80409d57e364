package scheduling

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// A sender's own record is its ledger: on the real CLI, a resource never
// sends its command again to a device it recorded as reached, whatever
// another provider configuration (alias), a -target apply, another state,
// or the service's purge did in between; removing a fleet keeps the
// record, and a replacement takes it over. A change of the command sends
// again (the positive control of each test). See DESIGN.md, "Device
// commands are sent exactly as often as the configuration asks".

// ledgerFleets makes fleet F of two devices and fleet G of one (the fleet
// that keeps fleet_ids non-empty while F is removed).
func ledgerFleets(t *testing.T, s *schedEnv, prefix string) (f, g string, devsF, devsG []string) {
	t.Helper()
	f, devsF = acctest.NewFleetWithDevices(t, s.Env, prefix+"-f", prefix+"-f-0", prefix+"-f-1")
	g, devsG = acctest.NewFleetWithDevices(t, s.Env, prefix+"-g", prefix+"-g-0")
	return f, g, devsF, devsG
}

// sentValues is what the server sent to dev of kind ("job": the values of
// job name; "fota": the versions of firmware name), in order.
func (s *schedEnv) sentValues(kind, dev, name string) []string {
	var out []string
	for _, x := range s.Server.Sends() {
		if x.Kind == kind && x.DeviceID == dev && x.Name == name {
			out = append(out, x.Value)
		}
	}
	return out
}

// expectSent fails unless each of devs was sent exactly want (values or
// versions, in order) of kind and name.
func (s *schedEnv) expectSent(t *testing.T, what, kind, name string, want []string, devs ...string) {
	t.Helper()
	for _, dev := range devs {
		if got := s.sentValues(kind, dev, name); strings.Join(got, " | ") != strings.Join(want, " | ") {
			t.Errorf("%s: device %s was sent %s %q %d times: %v; want %v", what, dev, kind, name, len(got), got, want)
		}
	}
}

// runner runs the CLI: acctest.Cli (the provider served in the test's
// process) or pluginCLI (the built provider).
type runner interface {
	MustRun(args ...string) string
}

// pluginCLI runs the CLI with the provider binary built from this
// repository (dev_overrides), as users run it: Terraform starts one provider
// process per provider configuration, so aliases never share one. (With
// acctest.NewCLI, one process in the test serves every configuration, and
// the last configured is the one every resource sees.)
type pluginCLI struct {
	t       *testing.T
	dir, rc string
}

func newPluginCLI(t *testing.T) *pluginCLI {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	plugins := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(plugins, "terraform-provider-zdm"), ".") //nolint:gosec // G204: builds this repository's provider.
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	c := &pluginCLI{t: t, dir: t.TempDir()}
	c.rc = filepath.Join(c.dir, "cli.tfrc")
	if err := os.WriteFile(c.rc, fmt.Appendf(nil, "provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n",
		acctest.ProviderHost()+"/zdm/zdm", plugins), 0o600); err != nil {
		t.Fatal(err)
	}
	return c
}

// Write writes main.tf.
func (c *pluginCLI) Write(content string) {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(content), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

// Run runs the CLI with args and returns its output and exit code.
func (c *pluginCLI) Run(args ...string) (string, int) {
	c.t.Helper()
	cmd := exec.CommandContext(c.t.Context(), os.Getenv("TF_ACC_TERRAFORM_PATH"), args...) //nolint:gosec // G204: the CLI under test.
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+c.rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "TF_REATTACH_PROVIDERS=")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		c.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), 0
}

// MustRun runs the CLI with args and fails unless it exits with 0.
func (c *pluginCLI) MustRun(args ...string) string {
	c.t.Helper()
	out, code := c.Run(args...)
	if code != 0 {
		c.t.Fatalf("terraform %s: exit code %d:\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// apply runs apply -auto-approve with extra arguments on cli.
func apply(cli runner, extra ...string) string {
	return cli.MustRun(append([]string{"apply", "-auto-approve", "-input=false", "-no-color"}, extra...)...)
}

// ledgerJob is a zdm_fleet_job "name" of the value v on fleets, with extra
// lines.
func ledgerJob(name, ws, fleets string, v int, extra string) string {
	return fmt.Sprintf(`
resource "zdm_fleet_job" %q {
  workspace_id = %q
  fleet_ids    = [%s]
  name         = "sync"
  value        = jsonencode({ v = %d })
%s
}
`, name, ws, fleets, v, extra)
}

// ledgerFOTA is a fleet-wide zdm_fota "name" of firmware fw version ver on
// fleets, with extra lines.
func ledgerFOTA(name, ws, fleets, ver, extra string) string {
	return fmt.Sprintf(`
resource "zdm_fota" %q {
  workspace_id     = %q
  fleet_ids        = [%s]
  firmware_id      = "fw"
  firmware_version = %q
%s
}
`, name, ws, fleets, ver, extra)
}

// TestAccLedgerAliases: two values of one job and two firmware versions on
// one fleet, one of each under another provider configuration (alias) of
// the same workspace, are not compared at plan (claims are per provider
// configuration). The first resource of each then removes the fleet and
// adds it back: its devices are in its record, so they do not get the
// first value (version) a second time, though the service shows the
// second. A change of triggers sends it again (the positive control).
func TestAccLedgerAliases(t *testing.T) {
	s := newSchedEnv(t)
	f, g, devsF, devsG := ledgerFleets(t, s, "alias")
	ws := s.Bootstrap.WorkspaceID
	alias := strings.Replace(s.ProviderConfig(), `provider "zdm" {`, "provider \"zdm\" {\n  alias = \"b\"", 1)
	cli := newPluginCLI(t)
	fg, onlyG, onlyF := strconv.Quote(f)+", "+strconv.Quote(g), strconv.Quote(g), strconv.Quote(f)
	body := func(fleetsA, triggers string) string {
		return alias + ledgerJob("a", ws, fleetsA, 1, triggers) + ledgerFOTA("a", ws, fleetsA, "1.0", triggers) +
			ledgerJob("b", ws, onlyF, 2, "  provider = zdm.b\n  depends_on = [zdm_fleet_job.a]") +
			ledgerFOTA("b", ws, onlyF, "2.0", "  provider = zdm.b\n  depends_on = [zdm_fota.a]")
	}
	write := func(fleetsA, triggers string) {
		cli.Write(acctest.RequiredProviders + s.ProviderConfig() + body(fleetsA, triggers))
	}
	write(fg, "")
	apply(cli)
	s.expectSent(t, "first apply", "job", "sync", []string{`{"v":1}`, `{"v":2}`}, devsF...)
	s.expectSent(t, "first apply", "fota", "fw", []string{"1.0", "2.0"}, devsF...)

	write(onlyG, "")
	apply(cli)
	write(fg, "")
	apply(cli)
	s.expectSent(t, "fleet F removed and added back", "job", "sync", []string{`{"v":1}`, `{"v":2}`}, devsF...)
	s.expectSent(t, "fleet F removed and added back", "fota", "fw", []string{"1.0", "2.0"}, devsF...)
	s.expectSent(t, "fleet F removed and added back", "job", "sync", []string{`{"v":1}`}, devsG...)
	if out, code := cli.Run("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Errorf("plan after adding F back: exit code %d, want 0:\n%s", code, out)
	}

	// Positive control: a change of triggers is a new command.
	write(fg, `  triggers = { run = "2" }`)
	apply(cli)
	s.expectSent(t, "triggers changed", "job", "sync", []string{`{"v":1}`, `{"v":2}`, `{"v":1}`}, devsF...)
	s.expectSent(t, "triggers changed", "fota", "fw", []string{"1.0", "2.0", "1.0"}, devsF...)
}

// TestAccLedgerTarget: the same pair in one provider configuration is
// refused by a full plan; applied one at a time with -target, the first
// then removes the fleet and adds it back (-target again): its devices do
// not get the first value a second time.
func TestAccLedgerTarget(t *testing.T) {
	s := newSchedEnv(t)
	f, g, devsF, _ := ledgerFleets(t, s, "target")
	ws := s.Bootstrap.WorkspaceID
	fg, onlyG, onlyF := strconv.Quote(f)+", "+strconv.Quote(g), strconv.Quote(g), strconv.Quote(f)
	body := func(fleetsA string) string {
		return ledgerJob("a", ws, fleetsA, 1, "") + ledgerFOTA("a", ws, fleetsA, "1.0", "") +
			ledgerJob("b", ws, onlyF, 2, "") + ledgerFOTA("b", ws, onlyF, "2.0", "")
	}
	s.write(t, body(fg))
	s.init()
	out, code := s.plan()
	if code != 1 {
		t.Fatalf("full plan of two values for one fleet: exit code %d, want 1 (refused):\n%s", code, out)
	}
	expectOutput(t, "full plan", out, `Two values of job "sync" for one fleet`, `Two values of firmware for one fleet`)
	if n := s.schedules(); n != 0 {
		t.Fatalf("the refused plan sent %d scheduling requests", n)
	}
	a := []string{"-target=zdm_fleet_job.a", "-target=zdm_fota.a"}
	apply(s.cli, a...)
	apply(s.cli, "-target=zdm_fleet_job.b", "-target=zdm_fota.b")
	s.expectSent(t, "applied with -target", "job", "sync", []string{`{"v":1}`, `{"v":2}`}, devsF...)

	s.write(t, body(onlyG))
	apply(s.cli, a...)
	s.write(t, body(fg))
	apply(s.cli, a...)
	s.expectSent(t, "fleet F removed and added back", "job", "sync", []string{`{"v":1}`, `{"v":2}`}, devsF...)
	s.expectSent(t, "fleet F removed and added back", "fota", "fw", []string{"1.0", "2.0"}, devsF...)
}

// TestAccLedgerOtherState: two states, each with a fleet-wide job and
// firmware update on fleet F, of other values. State A removes F and adds
// it back, then replaces its resources (-replace): F's devices get A's value
// once in all, though the service shows B's (the replacement takes over the
// record of the object it replaces). A change of triggers sends it again.
func TestAccLedgerOtherState(t *testing.T) {
	s := newSchedEnv(t)
	f, g, devsF, devsG := ledgerFleets(t, s, "states")
	ws := s.Bootstrap.WorkspaceID
	fg, onlyG, onlyF := strconv.Quote(f)+", "+strconv.Quote(g), strconv.Quote(g), strconv.Quote(f)
	bodyA := func(fleets, extra string) string {
		return ledgerJob("a", ws, fleets, 1, extra) + ledgerFOTA("a", ws, fleets, "1.0", extra)
	}
	s.write(t, bodyA(fg, ""))
	s.init()
	apply(s.cli)
	b := acctest.NewCLI(t)
	b.Write("main.tf", acctest.RequiredProviders+s.ProviderConfig()+ledgerJob("b", ws, onlyF, 2, "")+ledgerFOTA("b", ws, onlyF, "2.0", ""))
	b.MustRun("init", "-input=false", "-no-color")
	apply(b)
	s.expectSent(t, "both states applied", "job", "sync", []string{`{"v":1}`, `{"v":2}`}, devsF...)

	s.write(t, bodyA(onlyG, ""))
	apply(s.cli)
	s.write(t, bodyA(fg, ""))
	apply(s.cli)
	s.expectSent(t, "fleet F removed and added back", "job", "sync", []string{`{"v":1}`, `{"v":2}`}, devsF...)
	s.expectSent(t, "fleet F removed and added back", "fota", "fw", []string{"1.0", "2.0"}, devsF...)

	out := apply(s.cli, "-replace=zdm_fleet_job.a", "-replace=zdm_fota.a")
	expectOutput(t, "apply -replace", out, `(?s)already have the job "sync"`)
	s.expectSent(t, "replaced", "job", "sync", []string{`{"v":1}`, `{"v":2}`}, devsF...)
	s.expectSent(t, "replaced", "fota", "fw", []string{"1.0", "2.0"}, devsF...)
	s.expectSent(t, "replaced", "job", "sync", []string{`{"v":1}`}, devsG...)
	st := s.stateValues(t)
	for _, addr := range []string{"zdm_fleet_job.a", "zdm_fota.a"} {
		if devices, _ := st[addr]["devices"].([]any); len(devices) != 3 {
			t.Errorf("%s devices after the replacement = %v, want the 3 devices of the record", addr, st[addr]["devices"])
		}
	}

	// Positive control: a change of triggers is a new command.
	s.write(t, bodyA(fg, `  triggers = { run = "2" }`))
	apply(s.cli)
	s.expectSent(t, "triggers changed", "job", "sync", []string{`{"v":1}`, `{"v":2}`, `{"v":1}`}, devsF...)
}

// TestAccLedgerDeviceAndFleet: a fleet-wide job (firmware update) on fleet
// F and a device job (device-mode update) of another value on a device of F
// in one configuration are refused at plan, nothing sent. With the device
// job in another state, the fleet-wide one removes F and adds it back: the
// device does not get the fleet-wide value a second time.
func TestAccLedgerDeviceAndFleet(t *testing.T) {
	s := newSchedEnv(t)
	f, g, devsF, _ := ledgerFleets(t, s, "devfleet")
	ws := s.Bootstrap.WorkspaceID
	fg, onlyG := strconv.Quote(f)+", "+strconv.Quote(g), strconv.Quote(g)
	dev := devsF[0]
	device := fmt.Sprintf(`
resource "zdm_device_job" "d" {
  device_id = %q
  name      = "sync"
  value     = jsonencode({ v = 2 })
}

resource "zdm_fota" "d" {
  device_id        = %q
  firmware_id      = "fw"
  firmware_version = "2.0"
}
`, dev, dev)
	fleet := func(fleets string) string {
		return ledgerJob("a", ws, fleets, 1, "") + ledgerFOTA("a", ws, fleets, "1.0", "")
	}
	s.write(t, fleet(fg)+device)
	s.init()
	if out, code := s.plan(); code != 1 {
		t.Errorf("plan of a fleet-wide and a device value for one device: exit code %d, want 1 (refused):\n%s", code, out)
	} else {
		expectOutput(t, "plan", out, `Two values of job "sync" for one fleet`, `Two values of firmware for one fleet`,
			`(?s)device\s+`+regexp.QuoteMeta(dev)+`\s+of\s+fleet\s+`+regexp.QuoteMeta(f))
	}
	if n := s.schedules(); n != 0 {
		t.Fatalf("the plan sent %d scheduling requests", n)
	}

	s.write(t, fleet(fg))
	apply(s.cli)
	b := acctest.NewCLI(t)
	b.Write("main.tf", acctest.RequiredProviders+s.ProviderConfig()+device)
	b.MustRun("init", "-input=false", "-no-color")
	apply(b)
	s.expectSent(t, "both states applied", "job", "sync", []string{`{"v":1}`, `{"v":2}`}, dev)
	s.expectSent(t, "both states applied", "fota", "fw", []string{"1.0", "2.0"}, dev)

	s.write(t, fleet(onlyG))
	apply(s.cli)
	s.write(t, fleet(fg))
	apply(s.cli)
	s.expectSent(t, "fleet F removed and added back", "job", "sync", []string{`{"v":1}`, `{"v":2}`}, dev)
	s.expectSent(t, "fleet F removed and added back", "fota", "fw", []string{"1.0", "2.0"}, dev)
	s.expectSent(t, "fleet F removed and added back", "job", "sync", []string{`{"v":1}`}, devsF[1])
}

// TestAccLedgerReplaceAfterPurge: a zdm_device_job and a device-mode
// zdm_fota whose records the service purged are replaced (-replace): the
// replacement takes over the record of the object it replaces and sends
// nothing. A change of triggers sends each again (the positive control).
func TestAccLedgerReplaceAfterPurge(t *testing.T) {
	s := newSchedEnv(t)
	dev := acctest.NewDevices(t, s.Env, "purged")[0]
	body := func(triggers string) string {
		return fmt.Sprintf(`
resource "zdm_device_job" "d" {
  device_id = %q
  name      = "sync"
  value     = jsonencode({ v = 1 })
  %s
}

resource "zdm_fota" "d" {
  device_id        = %q
  firmware_id      = "fw"
  firmware_version = "1.0"
  %s
}
`, dev, triggers, dev, triggers)
	}
	s.write(t, body(""))
	s.init()
	apply(s.cli)
	if err := s.Server.PurgeJob(dev, "sync"); err != nil {
		t.Fatal(err)
	}
	if err := s.Server.PurgeFOTA(dev); err != nil {
		t.Fatal(err)
	}
	out := apply(s.cli, "-replace=zdm_device_job.d", "-replace=zdm_fota.d")
	expectOutput(t, "apply -replace", out, `(?s)already\s+sent\s+to\s+device`)
	s.expectSent(t, "replaced after the purge", "job", "sync", []string{`{"v":1}`}, dev)
	s.expectSent(t, "replaced after the purge", "fota", "fw", []string{"1.0"}, dev)
	if out, code := s.plan(); code != 0 {
		t.Errorf("plan after the replacement: exit code %d, want 0:\n%s", code, out)
	}

	// Positive control: a change of triggers sends each again.
	s.write(t, body(`triggers = { run = "2" }`))
	apply(s.cli)
	s.expectSent(t, "triggers changed", "job", "sync", []string{`{"v":1}`, `{"v":1}`}, dev)
	s.expectSent(t, "triggers changed", "fota", "fw", []string{"1.0", "1.0"}, dev)
}
