package fleetdevices

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccFleetDevicesMigration follows the guide "Moving devices to
// zdm_fleet_devices" with the real CLI: devices managed as zdm_device
// resources are handed to one zdm_fleet_devices with removed blocks and an
// import block. The apply writes nothing to the service, no device is
// duplicated, no device is reported as managed twice, and the plan after it
// is empty.
func TestAccFleetDevicesMigration(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	c.SkipBelow(7, "removed blocks and expressions in import IDs need Terraform 1.7 or later")
	base := acctest.RequiredProviders + e.ProviderConfig() + `
resource "zdm_fleet" "east" {
  name = "east"
}

locals {
  sensors = toset(["boiler", "roof", "cellar", "garage", "attic"])
}
`
	c.Write("main.tf", base+`
resource "zdm_device" "sensor" {
  for_each = local.sensors
  name     = each.key
  fleet_id = zdm_fleet.east.id
}
`)
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")
	before := serverDevices(t, e)
	if len(before) != 5 {
		t.Fatalf("%d device names after the first apply, want 5", len(before))
	}

	c.Write("main.tf", base+fmt.Sprintf(`
removed {
  from = zdm_device.sensor
  lifecycle {
    destroy = false
  }
}

import {
  to = zdm_fleet_devices.east
  id = "%s/${zdm_fleet.east.id}"
}

resource "zdm_fleet_devices" "east" {
  fleet_id = zdm_fleet.east.id
  devices  = { for name in local.sensors : name => name }
}
`, e.Bootstrap.WorkspaceID))
	e.Server.ResetCounters()
	out := c.MustRun("apply", "-no-color", "-auto-approve")
	flat := strings.Join(strings.Fields(out), " ")
	if !strings.Contains(flat, "1 imported, 0 added, 0 changed, 0 destroyed") {
		t.Errorf("migration apply: want one import and nothing else:\n%s", out)
	}
	if strings.Contains(flat, "managed by two resources") {
		t.Errorf("migration apply warns about devices managed twice:\n%s", out)
	}
	counters := e.Server.Counters()
	if n := counters[acctest.RouteCreateDevice] + counters[acctest.RouteUpdateDevice]; n != 0 {
		t.Errorf("the migration sent %d device writes, want none: %v", n, counters)
	}
	if counters[acctest.RouteListDevices] == 0 {
		t.Errorf("the migration made no list call, so the counters prove nothing: %v", counters)
	}
	after := serverDevices(t, e)
	for name, ds := range after {
		if len(ds) != 1 || len(before[name]) != 1 || ds[0].ID != before[name][0].ID {
			t.Errorf("device %q: %d devices after, want the same single device as before", name, len(ds))
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d device names after the migration, %d before", len(after), len(before))
	}
	state := c.MustRun("state", "list")
	if strings.Contains(state, "zdm_device.sensor") || !strings.Contains(state, "zdm_fleet_devices.east") {
		t.Errorf("state after the migration:\n%s", state)
	}
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("plan after the migration is not empty (exit code %d):\n%s", code, out)
	}
}
