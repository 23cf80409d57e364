package fleetdevices

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccFleetDevicesRefreshSharesOneList checks with the real CLI that
// the zdm_fleet_devices of one workspace refresh from one shared list: a
// no-op plan of four resources (four fleets) lists the workspace once, not
// four times, and reads no device alone.
func TestAccFleetDevicesRefreshSharesOneList(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	c.Write("main.tf", acctest.RequiredProviders+e.Config(`
resource "zdm_fleet" "f" {
  count = 4
  name  = "fleet-${count.index}"
}

resource "zdm_fleet_devices" "d" {
  count    = 4
  fleet_id = zdm_fleet.f[count.index].id
  devices  = { for i in range(5) : "k${i}" => "f${count.index}-d${i}" }
}
`))
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")
	if n := len(serverDevices(t, e)); n != 20 {
		t.Fatalf("%d devices after the apply, want 20", n)
	}

	e.Server.ResetCounters()
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("no-op plan: exit code %d, want 0:\n%s", code, out)
	}
	counts := e.Server.Counters()
	t.Logf("no-op plan of 4 zdm_fleet_devices: %v", counts)
	if n := counts[acctest.RouteListDevices]; n != 1 {
		t.Errorf("the no-op plan listed the devices of the workspace %d times, want once (shared by the 4 resources): %v", n, counts)
	}
	if n := counts[routeGetDevice]; n != 0 {
		t.Errorf("the no-op plan read %d devices alone, want none: %v", n, counts)
	}
}

// TestAccFleetDevicesCreatesShareTheList checks with the real CLI that the
// devices a zdm_fleet_devices creates enter the shared list of the
// workspace: the next resource's check for a second copy (in its final
// plan) reads them from it instead of listing the workspace again. Six
// resources created one after another list the workspace at most twice in
// the apply for it; forgetting the list after each bulk write listed it
// once per resource. Each create's check for twins made at the same time
// by another process adds a fresh list of its own.
func TestAccFleetDevicesCreatesShareTheList(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	const resources = 6
	c.Write("main.tf", acctest.RequiredProviders+e.Config(fmt.Sprintf(`
resource "zdm_fleet" "f" {
  count = %d
  name  = "fleet-${count.index}"
}

resource "zdm_fleet_devices" "d" {
  count    = %d
  fleet_id = zdm_fleet.f[count.index].id
  devices  = { for i in range(10) : "k${i}" => "f${count.index}-d${i}" }
}

resource "zdm_fleet_devices" "twin" {
  fleet_id   = zdm_fleet.f[0].id
  devices    = { k = "f0-d3" }
  depends_on = [zdm_fleet_devices.d]
}
`, resources, resources)))
	c.MustRun("init", "-no-color")
	e.Server.ResetCounters()
	out, code := c.Run("apply", "-no-color", "-auto-approve", "-parallelism=1")
	counts := e.Server.Counters()
	t.Logf("apply of %d zdm_fleet_devices: %v", resources, counts)
	// The devices created earlier in the same apply are in the list: the
	// second copy of f0-d3 is refused.
	if code == 0 || !strings.Contains(out, "Devices with these names already exist") {
		t.Fatalf("the apply did not refuse a second f0-d3 (exit code %d):\n%s", code, out)
	}
	if got := counts[acctest.RouteCreateDevice]; got != resources*10 {
		t.Errorf("%d device creates, want %d", got, resources*10)
	}
	// At most 2 lists for the final plans' checks, and one fresh list per
	// resource that created devices, for devices of their names made at
	// the same time by another process (devices/twins.go).
	if got := counts[acctest.RouteListDevices]; got > 2+resources {
		t.Errorf("the apply listed the devices of the workspace %d times for %d resources, want at most %d", got, resources, 2+resources)
	}
	if got := len(serverDevices(t, e)); got != resources*10 {
		t.Errorf("%d devices on the server, want %d", got, resources*10)
	}
}
