package fleetdevices

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// The gate of device creates (devices/duplicates.go and fleet_devices_gate.go) through the real CLI: a
// partial create resumes whatever changed, a key renamed with the same name
// keeps its device, and an import by fleet followed by new keys creates
// nothing. Each test counts creates at the service, and creates one new
// device among them, so a count of 0 would be seen if it were wrong.

// gateEnv is a local server with two fleets and a CLI.
type gateEnv struct {
	e              *acctest.Env
	c              *acctest.Cli
	api            *client.Client
	fleetA, fleetB string
}

func newGateEnv(t *testing.T) *gateEnv {
	e := acctest.NewEnv(t)
	g := &gateEnv{e: e, c: acctest.NewCLI(t), api: acctest.APIClient(t, e)}
	for _, dst := range []*string{&g.fleetA, &g.fleetB} {
		f, err := g.api.CreateFleet(t.Context(), e.Bootstrap.WorkspaceID, "fleet", "")
		if err != nil {
			t.Fatal(err)
		}
		*dst = f.ID
	}
	return g
}

// write writes one zdm_fleet_devices of fleet with devices (key to name).
func (g *gateEnv) write(fleet string, devices map[string]string) {
	keys := make([]string, 0, len(devices))
	for k := range devices {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var lines []string
	for _, k := range keys {
		lines = append(lines, fmt.Sprintf("    %q = %q", k, devices[k]))
	}
	g.c.Write("main.tf", acctest.RequiredProviders+g.e.ProviderConfig()+fmt.Sprintf(`
resource "zdm_fleet_devices" "test" {
  fleet_id = %q
  devices = {
%s
  }
}
`, fleet, strings.Join(lines, "\n")))
}

// apply applies and returns the output and the creates the service got.
func (g *gateEnv) apply(t *testing.T) (string, int64) {
	t.Helper()
	g.e.Server.ResetCounters()
	out := g.c.MustRun("apply", "-no-color", "-auto-approve", "-input=false")
	return out, g.e.Server.Counters()[acctest.RouteCreateDevice]
}

// check checks that the service holds exactly the devices of want (name to
// fleet), one of each, and that the plan is empty.
func (g *gateEnv) check(t *testing.T, want map[string]string) {
	t.Helper()
	got := serverDevices(t, g.e)
	var problems []string
	total := 0
	for name, ds := range got {
		total += len(ds)
		switch fleet, ok := want[name]; {
		case !ok:
			problems = append(problems, fmt.Sprintf("%d unexpected devices named %q", len(ds), name))
		case len(ds) != 1:
			problems = append(problems, fmt.Sprintf("%d devices named %q", len(ds), name))
		case ds[0].FleetID() != fleet:
			problems = append(problems, fmt.Sprintf("device %q in fleet %s, want %s", name, ds[0].FleetID(), fleet))
		}
	}
	for name := range want {
		if len(got[name]) == 0 {
			problems = append(problems, fmt.Sprintf("no device named %q", name))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		t.Errorf("%d devices in the service, want %d: %s", total, len(want), strings.Join(problems, "; "))
	}
	if out, code := g.c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("plan after the apply is not empty (exit code %d):\n%s", code, acctest.Tail(out, 40))
	}
}

// ids returns the device IDs of the state by key.
func (g *gateEnv) ids(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, ds := range serverDevices(t, g.e) {
		for _, d := range ds {
			out[name] = d.ID
		}
	}
	return out
}

// TestAccFleetDevicesPartialCreateFleetAndName fails 3 of the 6 creates of
// a zdm_fleet_devices (names the service refuses), then changes fleet_id
// and one device's name at once, in the configuration or outside
// Terraform: the apply resumes the object, with 3 creates and one device
// per key, all in the new fleet.
func TestAccFleetDevicesPartialCreateFleetAndName(t *testing.T) {
	long := strings.Repeat("x", 300)
	for _, outside := range []bool{false, true} {
		t.Run(fmt.Sprintf("outside=%v", outside), func(t *testing.T) {
			g := newGateEnv(t)
			g.write(g.fleetA, map[string]string{"k0": "ik-0", "k1": "ik-1", "k2": "ik-2",
				"k3": long + "3", "k4": long + "4", "k5": long + "5"})
			g.c.MustRun("init", "-no-color")
			if out, code := g.c.Run("apply", "-no-color", "-auto-approve"); code == 0 ||
				!strings.Contains(strings.Join(strings.Fields(out), " "), "3 of 6 devices could not be written") {
				t.Fatalf("first apply: exit code %d, want 3 of 6 creates failing:\n%s", code, out)
			}
			want := map[string]string{"ik-1": g.fleetB, "ik-2": g.fleetB, "ik-3": g.fleetB, "ik-4": g.fleetB, "ik-5": g.fleetB}
			devices := map[string]string{"k1": "ik-1", "k2": "ik-2", "k3": "ik-3", "k4": "ik-4", "k5": "ik-5"}
			if outside {
				d := serverDevices(t, g.e)["ik-0"][0]
				if _, err := g.api.UpdateDevice(t.Context(), g.e.Bootstrap.WorkspaceID, d.ID, "renamed-outside", ""); err != nil {
					t.Fatal(err)
				}
				devices["k0"], want["ik-0"] = "ik-0", g.fleetB
			} else {
				devices["k0"], want["ik-0b"] = "ik-0b", g.fleetB
			}
			g.write(g.fleetB, devices)
			out, creates := g.apply(t)
			if !strings.Contains(out, "Resuming a zdm_fleet_devices created in part") {
				t.Errorf("the apply did not resume the object:\n%s", acctest.Tail(out, 40))
			}
			if creates != 3 {
				t.Errorf("the apply sent %d creates, want 3 (k3, k4 and k5)", creates)
			}
			g.check(t, want)
		})
	}
}

// TestAccFleetDevicesKeyRenamed renames keys of a complete
// zdm_fleet_devices whose names stay: each key keeps its device, and only
// the one new key creates one. Two new keys of one removed device's name
// are refused at plan, naming the device.
func TestAccFleetDevicesKeyRenamed(t *testing.T) {
	g := newGateEnv(t)
	g.write(g.fleetA, map[string]string{"k0": "ik-0", "k1": "ik-1"})
	g.c.MustRun("init", "-no-color")
	if _, creates := g.apply(t); creates != 2 {
		t.Fatalf("the first apply sent %d creates, want 2", creates)
	}
	before := g.ids(t)

	// Two new keys of one name: which one keeps the device is not clear,
	// so the plan is refused.
	g.write(g.fleetA, map[string]string{"SN-0": "ik-0", "SN-0b": "ik-0", "k1": "ik-1"})
	g.e.Server.ResetCounters()
	out, code := g.c.Run("apply", "-no-color", "-auto-approve")
	flat := strings.Join(strings.Fields(out), " ")
	if code == 0 || !strings.Contains(flat, `"ik-0" (`+before["ik-0"]+`)`) || !strings.Contains(flat, "allow_duplicate_names") {
		t.Errorf("two new keys of a removed device's name: exit code %d, want a refusal naming the device:\n%s", code, out)
	}
	if n := g.e.Server.Counters()[acctest.RouteCreateDevice]; n != 0 {
		t.Errorf("the refused apply sent %d creates, want 0", n)
	}

	g.write(g.fleetA, map[string]string{"SN-0": "ik-0", "SN-1": "ik-1", "SN-2": "ik-2"})
	out, creates := g.apply(t)
	if creates != 1 {
		t.Errorf("renaming the keys and adding SN-2 sent %d creates, want 1:\n%s", creates, acctest.Tail(out, 40))
	}
	if strings.Contains(out, "Removed devices are only forgotten") {
		t.Errorf("the keys renamed were reported forgotten:\n%s", acctest.Tail(out, 40))
	}
	g.check(t, map[string]string{"ik-0": g.fleetA, "ik-1": g.fleetA, "ik-2": g.fleetA})
	after := g.ids(t)
	for _, name := range []string{"ik-0", "ik-1"} {
		if after[name] != before[name] {
			t.Errorf("device %q is %s, was %s", name, after[name], before[name])
		}
	}
	state := g.c.MustRun("state", "show", "-no-color", "zdm_fleet_devices.test")
	if !strings.Contains(state, `"SN-0" = "`+before["ik-0"]+`"`) {
		t.Errorf("device_ids[\"SN-0\"] is not %s:\n%s", before["ik-0"], state)
	}
}

// TestAccFleetDevicesStateRmImportRekey follows the documented way to key
// managed devices by another key: terraform state rm, terraform import of
// the fleet (keyed by name), and the configuration keyed by serial: the
// apply creates only the one new key's device.
func TestAccFleetDevicesStateRmImportRekey(t *testing.T) {
	g := newGateEnv(t)
	g.write(g.fleetA, map[string]string{"k0": "ik-0", "k1": "ik-1", "k2": "ik-2"})
	g.c.MustRun("init", "-no-color")
	if _, creates := g.apply(t); creates != 3 {
		t.Fatalf("the first apply sent %d creates, want 3", creates)
	}
	before := g.ids(t)
	g.c.MustRun("state", "rm", "-no-color", "zdm_fleet_devices.test")
	g.write(g.fleetA, map[string]string{"SN-0": "ik-0", "SN-1": "ik-1", "SN-2": "ik-2", "SN-3": "ik-3"})
	g.c.MustRun("import", "-no-color", "zdm_fleet_devices.test", g.e.Bootstrap.WorkspaceID+"/"+g.fleetA)
	out, creates := g.apply(t)
	if creates != 1 {
		t.Errorf("the apply after the import sent %d creates, want 1 (SN-3):\n%s", creates, acctest.Tail(out, 40))
	}
	g.check(t, map[string]string{"ik-0": g.fleetA, "ik-1": g.fleetA, "ik-2": g.fleetA, "ik-3": g.fleetA})
	after := g.ids(t)
	for _, name := range []string{"ik-0", "ik-1", "ik-2"} {
		if after[name] != before[name] {
			t.Errorf("device %q is %s, was %s", name, after[name], before[name])
		}
	}
}
