package fleetdevices

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccFleetDevicesQueryGenerateConfig lists the fleets of a workspace as
// zdm_fleet_devices with terraform query (one result per fleet, with a
// warning for a fleet whose devices share a name), then generates the
// configuration of one fleet and imports it: no device write, an empty
// plan after, and the devices keyed by name.
func TestAccFleetDevicesQueryGenerateConfig(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	c.SkipWithoutQuery()
	east, eastIDs := acctest.NewFleetWithDevices(t, e, "east", "east-1", "east-2", "east-3")
	twins, _ := acctest.NewFleetWithDevices(t, e, "twins", "twin", "twin")
	acctest.NewDevices(t, e, "solo")
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig())
	c.Write("fleets.tfquery.hcl", `
list "zdm_fleet_devices" "all" {
  provider         = zdm
  include_resource = true
  config {}
}
`)
	c.MustRun("init", "-no-color")
	e.Server.ResetCounters()
	out := c.MustRun("query", "-no-color")
	for _, want := range []string{"east (" + east + ")", "twins (" + twins + ")", "default ("} {
		if !strings.Contains(out, want) {
			t.Errorf("query output lacks %q:\n%s", want, out)
		}
	}
	if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, "share names") || !strings.Contains(flat, twins+"/by-id") {
		t.Errorf("query output lacks the warning about the twins fleet:\n%s", out)
	}
	counters := e.Server.Counters()
	if n := counters["GET /v3/workspaces/{workspace_id}/devices"] + counters["GET /v3/workspaces/{workspace_id}/fleets"]; n != 2 {
		t.Errorf("the query made %d list calls, want 2 (fleets and devices): %v", n, counters)
	}

	c.Write("fleets.tfquery.hcl", fmt.Sprintf(`
list "zdm_fleet_devices" "east" {
  provider = zdm
  config {
    fleet_id = %q
  }
}
`, east))
	c.MustRun("query", "-no-color", "-generate-config-out=generated.tf")
	gen := c.Read("generated.tf")
	if strings.Count(gen, `resource "zdm_fleet_devices"`) != 1 || !strings.Contains(gen, `"east-2"`) {
		t.Fatalf("generated.tf, want one zdm_fleet_devices of fleet east:\n%s", gen)
	}
	e.Server.ResetCounters()
	out = c.MustRun("apply", "-no-color", "-auto-approve")
	if !strings.Contains(out, "Resources: 1 imported, 0 added, 0 changed, 0 destroyed") {
		t.Fatalf("apply of the generated configuration:\n%s\ngenerated.tf:\n%s", out, gen)
	}
	if err := noDeviceWrites(e)(nil); err != nil {
		t.Error(err)
	}
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("plan after the import is not empty (exit code %d):\n%s", code, out)
	}
	state := c.MustRun("state", "show", "-no-color", stateAddress(t, c))
	for _, id := range eastIDs {
		if !strings.Contains(state, id) {
			t.Errorf("the imported state lacks device %s:\n%s", id, state)
		}
	}
}

// stateAddress is the address of the one resource of the state.
func stateAddress(t *testing.T, c *acctest.Cli) string {
	t.Helper()
	list := strings.Fields(c.MustRun("state", "list"))
	if len(list) != 1 {
		t.Fatalf("state list: %v, want one resource", list)
	}
	return list[0]
}

// TestAccFleetDevicesQueryOneCall: without include_resource, a list block
// of zdm_fleet_devices lists the fleets and not the devices: one API call
// (TestAccFleetDevicesQueryGenerateConfig, with include_resource, counts
// two).
func TestAccFleetDevicesQueryOneCall(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	c.SkipWithoutQuery()
	east, _ := acctest.NewFleetWithDevices(t, e, "east", "east-1")
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig())
	c.Write("fleets.tfquery.hcl", `
list "zdm_fleet_devices" "all" {
  provider = zdm
  config {}
}
`)
	c.MustRun("init", "-no-color")
	e.Server.ResetCounters()
	if out := c.MustRun("query", "-no-color"); !strings.Contains(out, "east ("+east+")") {
		t.Errorf("query output lacks the east fleet:\n%s", out)
	}
	counters := e.Server.Counters()
	if f, d := counters["GET /v3/workspaces/{workspace_id}/fleets"], counters["GET /v3/workspaces/{workspace_id}/devices"]; f != 1 || d != 0 {
		t.Errorf("the query listed the fleets %d times and the devices %d times, want 1 and 0: %v", f, d, counters)
	}
}
