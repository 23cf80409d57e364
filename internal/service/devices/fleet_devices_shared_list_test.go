package devices

import (
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// routeListDevices is the list of a workspace's devices, as the local
// server counts it.
const routeListDevices = "GET /v3/workspaces/{workspace_id}/devices"

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
	if n := counts[routeListDevices]; n != 1 {
		t.Errorf("the no-op plan listed the devices of the workspace %d times, want once (shared by the 4 resources): %v", n, counts)
	}
	if n := counts[routeGetDevice]; n != 0 {
		t.Errorf("the no-op plan read %d devices alone, want none: %v", n, counts)
	}
}
