package devices_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccDeviceCreatesShareTheList checks with the real CLI that an apply
// of many zdm_device does not list the workspace once per device: the check
// for a second copy that each create's final plan makes reads the shared
// list, into which every create answered is written. The plan and the apply
// list a few times for it (a list serves 5 seconds), where listing again
// after each create cost one list per device; the checks for twins made
// at the same time by another process add their own fresh lists.
func TestAccDeviceCreatesShareTheList(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	const n = 40
	c.Write("main.tf", acctest.RequiredProviders+e.Config(fmt.Sprintf(`
resource "zdm_fleet" "f" {
  name = "f"
}

resource "zdm_device" "d" {
  count    = %d
  name     = "d-${count.index}"
  fleet_id = zdm_fleet.f.id
}

resource "zdm_device" "twin" {
  name       = "d-0"
  fleet_id   = zdm_fleet.f.id
  depends_on = [zdm_device.d]
}
`, n)))
	c.MustRun("init", "-no-color")
	e.Server.ResetCounters()
	out, code := c.Run("apply", "-no-color", "-auto-approve")
	counts := e.Server.Counters()
	t.Logf("apply of %d zdm_device: %v", n, counts)
	if code == 0 {
		t.Fatalf("the apply created a second device named d-0:\n%s", out)
	}
	// The device created earlier in the same apply is in the list: the
	// second copy is refused.
	if !strings.Contains(out, "Devices with these names already exist") {
		t.Errorf("the apply does not refuse the second d-0:\n%s", out)
	}
	if got := counts[acctest.RouteCreateDevice]; got != n {
		t.Errorf("%d device creates, want %d", got, n)
	}
	// The final plans' checks list at most 4 times; on top of them, each
	// create's check for a device of its name made at the same time by
	// another process lists the fleet afresh, shared by the checks that
	// queue while one list is in flight (twins.go, fresh_lists.go): at
	// most one more list per create.
	if got := counts[acctest.RouteListDevices]; got > 4+n {
		t.Errorf("the apply listed the devices of the workspace %d times for %d creates, want at most %d", got, n, 4+n)
	}
	all, err := acctest.APIClient(t, e).ListDevices(t.Context(), e.Bootstrap.WorkspaceID)
	if err != nil {
		t.Fatalf("list the devices: %v", err)
	}
	if got := len(all); got != n {
		t.Errorf("%d devices on the server, want %d", got, n)
	}
}
