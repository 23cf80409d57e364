package fleetdevices

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// Replacements of zdm_fleet_devices (see devices/duplicates.go and
// fleet_devices_resume.go): a create that failed in part is finished by its
// replacement whatever changed meanwhile, and a replacement that would make
// second copies is refused. Each test counts at the service.

// replaceCase is the configuration of one zdm_fleet_devices of
// fleetDevicesAtScale keys "k0000".. with names "n0000"...
type replaceCase struct {
	fleet       string
	parallelism int
	rename      map[string]string // key -> new name
	remove      string            // a key left out, or ""
	address     string            // resource name; "test" when empty
	extra       string            // more configuration
}

// fleetDevicesAtScale is the size of the fault-injection tests.
const fleetDevicesAtScale = 3000

func (rc replaceCase) config(e *acctest.Env) string {
	var renames []string
	for k, v := range rc.rename {
		renames = append(renames, fmt.Sprintf("%q = %q", k, v))
	}
	sort.Strings(renames)
	name := rc.address
	if name == "" {
		name = "test"
	}
	return acctest.RequiredProviders + e.ProviderConfig() + fmt.Sprintf(`
locals {
  base = { for p in setproduct(range(%d), range(100)) : format("k%%04d", p[0] * 100 + p[1]) => format("n%%04d", p[0] * 100 + p[1]) }
}

resource "zdm_fleet_devices" %q {
  fleet_id    = %q
  parallelism = %d
  devices     = merge({ for k, v in local.base : k => v if k != %q }, { %s })
}
%s`, fleetDevicesAtScale/100, name, rc.fleet, rc.parallelism, rc.remove, strings.Join(renames, ", "), rc.extra)
}

// scaleEnv is a local server with two fleets and a CLI.
type scaleEnv struct {
	e              *acctest.Env
	c              *acctest.Cli
	api            *client.Client
	fleetA, fleetB string
}

func newScaleEnv(t *testing.T) *scaleEnv {
	e := acctest.NewEnv(t)
	c := acctest.NewQuietCLI(t)
	api := acctest.APIClient(t, e)
	s := &scaleEnv{e: e, c: c, api: api}
	for _, dst := range []*string{&s.fleetA, &s.fleetB} {
		f, err := api.CreateFleet(t.Context(), e.Bootstrap.WorkspaceID, "fleet", "")
		if err != nil {
			t.Fatal(err)
		}
		*dst = f.ID
	}
	return s
}

// devices returns the devices of the workspace by name.
func (s *scaleEnv) devices(t *testing.T) map[string][]client.Device {
	t.Helper()
	return serverDevices(t, s.e)
}

// failAfter starts an apply and, once the service has received after
// device creates, makes every further create fail with a 500; it returns
// when the apply ended, with its output, and clears the fault.
func (s *scaleEnv) failAfter(t *testing.T, after int64) string {
	t.Helper()
	cmd, err := s.c.S.Start(t.Context(), "apply", "-auto-approve", "-input=false", "-no-color")
	if err != nil {
		t.Fatal(err)
	}
	for s.e.Server.Counters()[acctest.RouteCreateDevice] < after {
		time.Sleep(2 * time.Millisecond)
	}
	if _, err := s.e.Server.AddRequestFault(localzdm.RequestFault{Method: "POST",
		Path: "/v3/workspaces/{workspace_id}/devices", Action: localzdm.FaultHTMLError}); err != nil {
		t.Fatal(err)
	}
	res, err := cmd.Wait()
	if err != nil {
		t.Fatal(err)
	}
	s.e.Server.ClearRequestFaults()
	if res.ExitCode == 0 {
		t.Fatalf("the apply with failing creates exited with 0:\n%s", res.Output)
	}
	return res.Output
}

// interruptAfter starts an apply and sends it one SIGINT once the service
// has received after device creates; it returns when the apply ended.
func (s *scaleEnv) interruptAfter(t *testing.T, after int64) {
	t.Helper()
	cmd, err := s.c.S.Start(t.Context(), "apply", "-auto-approve", "-input=false", "-no-color")
	if err != nil {
		t.Fatal(err)
	}
	for s.e.Server.Counters()[acctest.RouteCreateDevice] < after {
		time.Sleep(2 * time.Millisecond)
	}
	if err := cmd.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	res, err := cmd.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == 0 || !strings.Contains(res.Output, "Interrupt received") {
		t.Fatalf("the interrupted apply: exit code %d, want an interrupt:\n%s", res.ExitCode, acctest.Tail(res.Output, 40))
	}
}

// checkOnePerKey checks that the service holds exactly one device per key
// of rc, with its name and in its fleet, besides forgotten (devices the
// service may also hold, by name), and that the plan is empty.
func (s *scaleEnv) checkOnePerKey(t *testing.T, rc replaceCase, forgotten ...string) {
	t.Helper()
	got := s.devices(t)
	want := map[string]bool{}
	for i := range fleetDevicesAtScale {
		k := fmt.Sprintf("k%04d", i)
		if k == rc.remove {
			continue
		}
		name := fmt.Sprintf("n%04d", i)
		if r, ok := rc.rename[k]; ok {
			name = r
		}
		want[name] = true
	}
	extra := map[string]bool{}
	for _, n := range forgotten {
		extra[n] = true
	}
	var problems []string
	total := 0
	for name, ds := range got {
		total += len(ds)
		switch {
		case want[name] && len(ds) != 1:
			problems = append(problems, fmt.Sprintf("%d devices named %q", len(ds), name))
		case want[name] && ds[0].FleetID() != rc.fleet:
			problems = append(problems, fmt.Sprintf("device %q in fleet %s, want %s", name, ds[0].FleetID(), rc.fleet))
		case !want[name] && !extra[name]:
			problems = append(problems, fmt.Sprintf("%d unexpected devices named %q", len(ds), name))
		}
	}
	for name := range want {
		if len(got[name]) == 0 {
			problems = append(problems, fmt.Sprintf("no device named %q", name))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		if len(problems) > 10 {
			problems = append(problems[:10], fmt.Sprintf("and %d more", len(problems)-10))
		}
		t.Errorf("%d devices in the service for %d keys: %s", total, len(want), strings.Join(problems, "; "))
	}
	if out, code := s.c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("plan after the apply is not empty (exit code %d):\n%s", code, acctest.Tail(out, 40))
	}
}

// createdKey returns a key whose device exists after a partial create, and
// that device.
func (s *scaleEnv) createdKey(t *testing.T) (string, client.Device) {
	t.Helper()
	got := s.devices(t)
	for i := range fleetDevicesAtScale {
		if ds := got[fmt.Sprintf("n%04d", i)]; len(ds) == 1 {
			return fmt.Sprintf("k%04d", i), ds[0]
		}
	}
	t.Fatal("no device was created")
	return "", client.Device{}
}

// TestAccFleetDevicesPartialCreateThenEdit fails a create of 3,000 devices
// after about 1,000 creates (every further create answers 500), then makes
// one change and applies again: the replacement of the tainted object
// finishes it, with exactly one device per key and an empty plan after.
func TestAccFleetDevicesPartialCreateThenEdit(t *testing.T) {
	edits := []struct {
		name string
		// edit changes rc (and the service) after the failed apply; it
		// returns the names of devices left forgotten in the service.
		edit func(t *testing.T, s *scaleEnv, rc *replaceCase) []string
	}{
		{"rename in config", func(t *testing.T, s *scaleEnv, rc *replaceCase) []string {
			k, _ := s.createdKey(t)
			rc.rename = map[string]string{k: "renamed"}
			return nil
		}},
		{"rename outside", func(t *testing.T, s *scaleEnv, rc *replaceCase) []string {
			_, d := s.createdKey(t)
			if _, err := s.api.UpdateDevice(t.Context(), s.e.Bootstrap.WorkspaceID, d.ID, "outside", ""); err != nil {
				t.Fatal(err)
			}
			return nil
		}},
		{"key removed", func(t *testing.T, s *scaleEnv, rc *replaceCase) []string {
			k, d := s.createdKey(t)
			rc.remove = k
			return []string{d.Name}
		}},
		{"fleet_id changed", func(t *testing.T, s *scaleEnv, rc *replaceCase) []string {
			rc.fleet = s.fleetB
			return nil
		}},
		{"parallelism changed", func(t *testing.T, s *scaleEnv, rc *replaceCase) []string {
			rc.parallelism = 5
			return nil
		}},
	}
	for _, ed := range edits {
		t.Run(ed.name, func(t *testing.T) {
			s := newScaleEnv(t)
			rc := replaceCase{fleet: s.fleetA, parallelism: 16}
			s.c.Write("main.tf", rc.config(s.e))
			s.c.MustRun("init", "-no-color")
			out := s.failAfter(t, fleetDevicesAtScale/3)
			created := 0
			for _, ds := range s.devices(t) {
				created += len(ds)
			}
			if created == 0 || created >= fleetDevicesAtScale || !strings.Contains(out, "could not be written") {
				t.Fatalf("the failed apply created %d of %d devices:\n%s", created, fleetDevicesAtScale, acctest.Tail(out, 40))
			}
			forgotten := ed.edit(t, s, &rc)
			s.c.Write("main.tf", rc.config(s.e))
			s.e.Server.ResetCounters()
			out = s.c.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
			if !strings.Contains(out, "Resuming a zdm_fleet_devices created in part") {
				t.Errorf("the apply after the failure did not resume the object:\n%s", acctest.Tail(out, 40))
			}
			if n, want := s.e.Server.Counters()[acctest.RouteCreateDevice], int64(fleetDevicesAtScale-created); n != want {
				t.Errorf("the apply after the failure sent %d creates, want %d", n, want)
			}
			t.Logf("%s: %d devices created before the failure", ed.name, created)
			s.checkOnePerKey(t, rc, forgotten...)
		})
	}
}

// TestAccFleetDevicesInterruptedTwiceFleetChanged interrupts the create of
// 3,000 devices (one Ctrl-C), changes fleet_id, interrupts the apply that
// finishes it, and applies again: one device per key, all in the new fleet.
func TestAccFleetDevicesInterruptedTwiceFleetChanged(t *testing.T) {
	s := newScaleEnv(t)
	s.e.Server.SetFaults(localzdm.Faults{Latency: 10 * time.Millisecond})
	rc := replaceCase{fleet: s.fleetA, parallelism: 16}
	s.c.Write("main.tf", rc.config(s.e))
	s.c.MustRun("init", "-no-color")
	s.interruptAfter(t, fleetDevicesAtScale/4)
	first := s.e.Server.Counters()[acctest.RouteCreateDevice]

	rc.fleet = s.fleetB
	s.c.Write("main.tf", rc.config(s.e))
	s.e.Server.ResetCounters()
	s.interruptAfter(t, fleetDevicesAtScale/4)
	second := s.e.Server.Counters()[acctest.RouteCreateDevice]

	s.e.Server.SetFaults(localzdm.Faults{})
	s.e.Server.ResetCounters()
	s.c.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	third := s.e.Server.Counters()[acctest.RouteCreateDevice]
	t.Logf("creates per apply: %d, %d, %d", first, second, third)
	if first+second+third != fleetDevicesAtScale {
		t.Errorf("the three applies sent %d + %d + %d creates, want %d in all", first, second, third, fleetDevicesAtScale)
	}
	s.checkOnePerKey(t, rc)
}

// TestAccFleetDevicesTwoResourcesOnePartialCreate gives the map of a
// tainted zdm_fleet_devices created in part to a second resource too: the
// replacement of the first finishes it, and the second, which would make
// second copies of its devices, is refused at plan time.
func TestAccFleetDevicesTwoResourcesOnePartialCreate(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	long := strings.Repeat("x", 300)
	block := func(name, last, extra string) string {
		return fmt.Sprintf(`
resource "zdm_fleet_devices" %q {
  devices = { a = "a", b = "b", c = "c", d = %q }
  %s
}
`, name, last, extra)
	}
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig()+block("x", long, ""))
	c.MustRun("init", "-no-color")
	if out, code := c.Run("apply", "-no-color", "-auto-approve"); code == 0 {
		t.Fatalf("first apply succeeded, want d refused:\n%s", out)
	}
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig()+block("x", "d", "")+block("y", "d", "depends_on = [zdm_fleet_devices.x]"))
	e.Server.ResetCounters()
	out, code := c.Run("apply", "-no-color", "-auto-approve")
	flat := strings.Join(strings.Fields(out), " ")
	if code == 0 || strings.Count(flat, "Error: Devices with these names already exist") != 1 ||
		!strings.Contains(flat, "Error: Devices with these names already exist with zdm_fleet_devices.y") {
		t.Fatalf("apply with a second resource of the same map: exit code %d, want y refused and x not:\n%s", code, out)
	}
	if n := e.Server.Counters()[acctest.RouteCreateDevice]; n != 0 {
		t.Errorf("the refused plan sent %d creates, want 0", n)
	}
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig()+block("x", "d", ""))
	c.MustRun("apply", "-no-color", "-auto-approve")
	if n := e.Server.Counters()[acctest.RouteCreateDevice]; n != 1 {
		t.Errorf("finishing x sent %d creates, want 1 (d)", n)
	}
	if err := devicesOnServer(t, e, map[string]string{"a": "", "b": "", "c": "", "d": ""})(nil); err != nil {
		t.Error(err)
	}
}

// TestAccReplacementRefused replaces complete resources in every way
// Terraform can (taint, -replace, a renamed for_each key, a changed
// address): each plan is refused before anything is sent, a moved block
// keeps the devices, and allow_duplicate_names = true (the control) does
// create second devices.
func TestAccReplacementRefused(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	config := func(key, name, allow string) string {
		return acctest.RequiredProviders + e.ProviderConfig() + fmt.Sprintf(`
resource "zdm_fleet_devices" "fd" {
  for_each = toset([%q])
  devices  = { a = "fa", b = "fb" }
  %s
}

resource "zdm_device" %q {
  name = "single"
  %s
}
`, key, allow, name, allow)
	}
	c.Write("main.tf", config("one", "d", ""))
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")
	want := map[string]string{"fa": "", "fb": "", "single": ""}
	if err := devicesOnServer(t, e, want)(nil); err != nil {
		t.Fatal(err)
	}
	refused := func(what string, wantCount int, args ...string) {
		t.Helper()
		e.Server.ResetCounters()
		out, code := c.Run(append([]string{"apply", "-no-color", "-auto-approve"}, args...)...)
		flat := strings.Join(strings.Fields(out), " ")
		if code == 0 || strings.Count(flat, "Error: Devices with these names already exist") != wantCount {
			t.Errorf("%s: exit code %d, want %d refusals:\n%s", what, code, wantCount, out)
		}
		if n := e.Server.Counters()[acctest.RouteCreateDevice]; n != 0 {
			t.Errorf("%s: %d creates sent, want 0", what, n)
		}
		if err := devicesOnServer(t, e, want)(nil); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	c.MustRun("taint", `zdm_fleet_devices.fd["one"]`)
	c.MustRun("taint", "zdm_device.d")
	refused("taint", 2)
	c.MustRun("untaint", `zdm_fleet_devices.fd["one"]`)
	c.MustRun("untaint", "zdm_device.d")
	refused("-replace", 2, `-replace=zdm_fleet_devices.fd["one"]`, "-replace=zdm_device.d")
	c.Write("main.tf", config("two", "e", ""))
	refused("renamed key and address", 2)

	// A moved block keeps them: nothing to do.
	c.Write("main.tf", config("two", "e", "")+`
moved {
  from = zdm_fleet_devices.fd["one"]
  to   = zdm_fleet_devices.fd["two"]
}

moved {
  from = zdm_device.d
  to   = zdm_device.e
}
`)
	e.Server.ResetCounters()
	out := c.MustRun("apply", "-no-color", "-auto-approve")
	if !strings.Contains(out, "0 added, 0 changed, 0 destroyed") || e.Server.Counters()[acctest.RouteCreateDevice] != 0 {
		t.Errorf("apply with moved blocks: want nothing done:\n%s", out)
	}

	// The opt-in does what it says: second devices with the same names.
	c.Write("main.tf", config("two", "e", "allow_duplicate_names = true"))
	c.MustRun("apply", "-no-color", "-auto-approve")
	e.Server.ResetCounters()
	c.MustRun("apply", "-no-color", "-auto-approve", `-replace=zdm_fleet_devices.fd["two"]`, "-replace=zdm_device.e")
	if n := e.Server.Counters()[acctest.RouteCreateDevice]; n != 3 {
		t.Errorf("-replace with allow_duplicate_names sent %d creates, want 3", n)
	}
	got := serverDevices(t, e)
	for _, name := range []string{"fa", "fb", "single"} {
		if len(got[name]) != 2 {
			t.Errorf("%d devices named %q after the opted-in replace, want 2", len(got[name]), name)
		}
	}
}
