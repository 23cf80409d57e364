package fleetdevices

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// The refusal of second copies of zdm_fleet_devices (devices/duplicates.go)
// by a rename, a move, a create in a default fleet that cannot be told,
// and after a killed apply, through the real CLI; each test counts the
// device writes at the service.

// fleetDevicesConfig is one zdm_fleet_devices "test" with the body given.
func (g *gateEnv) config(body string) {
	g.c.Write("main.tf", acctest.RequiredProviders+g.e.ProviderConfig()+`
resource "zdm_fleet_devices" "test" {
`+body+`
}
`)
}

// refused runs an apply that must fail with every part of want (in order)
// and send no device create nor update; it returns the output.
func (g *gateEnv) refused(t *testing.T, what string, want ...string) string {
	t.Helper()
	g.e.Server.ResetCounters()
	out, code := g.c.Run("apply", "-no-color", "-auto-approve")
	if code == 0 || !acctest.ErrorPattern(want...).MatchString(out) {
		t.Errorf("%s: exit code %d, want a refusal saying %q:\n%s", what, code, want, out)
	}
	counts := g.e.Server.Counters()
	if n := counts[acctest.RouteCreateDevice] + counts[acctest.RouteUpdateDevice]; n != 0 {
		t.Errorf("%s: %d device writes sent, want 0", what, n)
	}
	return out
}

// TestAccFleetDevicesRenameMoveIntoTakenName: a key renamed to the name of
// a device of the fleet that the resource does not hold, and a move of the
// resource into a fleet that holds one of its names, are refused as a
// create of the name would be; before, both made two devices of one name
// in one fleet. Names swapped between keys of the resource are renamed
// (its own devices), and allow_duplicate_names = true renames into the
// taken name (the controls: the updates are counted).
func TestAccFleetDevicesRenameMoveIntoTakenName(t *testing.T) {
	g := newGateEnv(t)
	ws := g.e.Bootstrap.WorkspaceID
	if _, err := g.e.Server.CreateDevices(ws, g.fleetA, []string{"one"}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.e.Server.CreateDevices(ws, g.fleetB, []string{"taken"}); err != nil {
		t.Fatal(err)
	}
	g.write(g.fleetB, map[string]string{"k1": "one", "k2": "two"})
	g.c.MustRun("init", "-no-color")
	g.c.MustRun("apply", "-no-color", "-auto-approve")

	g.write(g.fleetB, map[string]string{"k1": "taken", "k2": "two"})
	g.refused(t, "a key renamed to a taken name", "Devices with these names already exist", `Fleet "`+g.fleetB+`"`,
		"Nothing was sent.", "To be given by a rename, or by a move into the fleet", `"taken" (`)
	g.write(g.fleetA, map[string]string{"k1": "one", "k2": "two"})
	g.refused(t, "a move into a fleet that holds a name", "Devices with these names already exist",
		`Fleet "`+g.fleetA+`"`, "To be given by a rename, or by a move into the fleet", `"one" (`)
	got := serverDevices(t, g.e)
	if len(got["one"]) != 2 || len(got["taken"]) != 1 || got["one"][0].FleetID() == got["one"][1].FleetID() {
		t.Errorf("after the refusals: %d devices named one (want 2, in two fleets), %d named taken (want 1)",
			len(got["one"]), len(got["taken"]))
	}

	g.write(g.fleetB, map[string]string{"k1": "two", "k2": "one"})
	g.e.Server.ResetCounters()
	g.c.MustRun("apply", "-no-color", "-auto-approve")
	if n := g.e.Server.Counters()[acctest.RouteUpdateDevice]; n != 2 {
		t.Errorf("names swapped between keys: %d updates, want 2", n)
	}

	g.config(fmt.Sprintf(`  fleet_id              = %q
  allow_duplicate_names = true
  devices               = { k1 = "taken", k2 = "one" }`, g.fleetB))
	g.e.Server.ResetCounters()
	g.c.MustRun("apply", "-no-color", "-auto-approve")
	if n := g.e.Server.Counters()[acctest.RouteUpdateDevice]; n != 1 {
		t.Errorf("the opted-in rename: %d updates, want 1", n)
	}
	if got := serverDevices(t, g.e); len(got["taken"]) != 2 {
		t.Errorf("%d devices named taken after the opted-in rename, want 2", len(got["taken"]))
	}
}

// TestAccFleetDevicesKilledApplyImport: after an apply killed once it
// created some devices (devices of those names made outside Terraform
// stand in for them), the apply again is refused, names a killed or
// timed-out apply among the causes and prints the import block of the
// resource; that block, its address filled in, takes the devices, and the
// apply creates only the name the fleet lacks.
func TestAccFleetDevicesKilledApplyImport(t *testing.T) {
	g := newGateEnv(t)
	ws := g.e.Bootstrap.WorkspaceID
	if _, err := g.e.Server.CreateDevices(ws, g.fleetA, []string{"n1", "n2"}); err != nil {
		t.Fatal(err)
	}
	devices := map[string]string{"SN1": "n1", "SN2": "n2", "SN3": "n3"}
	g.write(g.fleetA, devices)
	g.c.MustRun("init", "-no-color")
	wantID := ws + "/" + g.fleetA
	out := g.refused(t, "apply after a killed apply", "Devices with these names already exist", `"n1" (`, `"n2" (`,
		"killed or timed out", "the state was never written", "import {",
		"to = zdm_fleet_devices.<name of this resource>", `id = "`+wantID+`"`, "terraform query", `list "zdm_device"`)
	m := regexp.MustCompile(`id = "([^"]+)"`).FindStringSubmatch(out)
	if m == nil || m[1] != wantID {
		t.Fatalf("the refusal's import block has id %v, want %q", m, wantID)
	}
	main := g.c.Read("main.tf")
	g.c.Write("main.tf", main+fmt.Sprintf(`
import {
  to = zdm_fleet_devices.test
  id = %q
}
`, m[1]))
	g.e.Server.ResetCounters()
	out = g.c.MustRun("apply", "-no-color", "-auto-approve")
	if n := g.e.Server.Counters()[acctest.RouteCreateDevice]; n != 1 || !strings.Contains(out, "1 imported") {
		t.Errorf("the printed import block: %d creates, want 1 (n3), and the import:\n%s", n, out)
	}
	if err := devicesOnServer(t, g.e, map[string]string{"n1": g.fleetA, "n2": g.fleetA, "n3": g.fleetA})(nil); err != nil {
		t.Error(err)
	}
}

// TestAccFleetDevicesDefaultFleetUnknown: with two fleets named "default",
// the provider cannot tell where devices without fleet_id go; the
// replacement after terraform taint, which before created the devices
// again, is refused naming fleet_id. A key added to the resource, whose
// fleet the state holds, is created (the control: the create is counted).
func TestAccFleetDevicesDefaultFleetUnknown(t *testing.T) {
	g := newGateEnv(t)
	g.config(`  devices = { a = "fa" }`)
	g.c.MustRun("init", "-no-color")
	g.c.MustRun("apply", "-no-color", "-auto-approve")
	if _, err := g.api.CreateFleet(t.Context(), g.e.Bootstrap.WorkspaceID, "default", ""); err != nil {
		t.Fatal(err)
	}
	g.c.MustRun("taint", "zdm_fleet_devices.test")
	g.refused(t, "taint with two default fleets", "Cannot tell the default fleet", `2 fleets are named "default"`,
		`"fa" (`, "Nothing was sent.", "Set fleet_id")
	if got := serverDevices(t, g.e); len(got["fa"]) != 1 {
		t.Errorf("%d devices named fa after the refused replacement, want 1", len(got["fa"]))
	}

	g.c.MustRun("untaint", "zdm_fleet_devices.test")
	g.config(`  devices = { a = "fa", b = "fb" }`)
	g.e.Server.ResetCounters()
	g.c.MustRun("apply", "-no-color", "-auto-approve")
	if n := g.e.Server.Counters()[acctest.RouteCreateDevice]; n != 1 {
		t.Errorf("a key added with two default fleets: %d creates, want 1", n)
	}
}
