package devices_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// newDir is a CLI working directory with config, initialized.
func newDir(t *testing.T, config string) *acctest.Cli {
	t.Helper()
	c := acctest.NewCLI(t)
	c.Write("main.tf", acctest.RequiredProviders+config)
	c.MustRun("init", "-input=false", "-no-color")
	return c
}

// deviceCreates is the number of device creates the server received.
func deviceCreates(s *localzdm.Server) int64 {
	return s.Counters()["POST /v3/workspaces/{workspace_id}/devices"]
}

// namedIn returns the IDs of the devices of fleet named name.
func namedIn(t *testing.T, e *acctest.Env, fleet, name string) []string {
	t.Helper()
	all, err := acctest.APIClient(t, e).ListDevices(t.Context(), e.Bootstrap.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range all {
		if d.FleetID() == fleet && d.Name == name {
			ids = append(ids, d.ID)
		}
	}
	return ids
}

// TestAccDevicesNamedTwiceInOneConfiguration: two resources of one
// configuration that would create devices of one name in one fleet (two
// zdm_device, a zdm_device and a key of a zdm_fleet_devices, two
// zdm_fleet_devices of one fleet, one of them naming the default fleet
// and the other leaving fleet_id out) fail the plan, naming both, and send
// no create. The positive control: the same configuration with
// allow_duplicate_names on both applies and makes two devices of the name.
func TestAccDevicesNamedTwiceInOneConfiguration(t *testing.T) {
	cases := []struct {
		name string
		body string // %[1]s: the fleet; %[2]s: the opt-in of both
		want []string
	}{
		{"zdm_device and zdm_fleet_devices", `
resource "zdm_device" "a" {
  name     = "twin"
  fleet_id = %[1]q
  %[2]s
}
resource "zdm_fleet_devices" "m" {
  fleet_id = %[1]q
  devices  = { k1 = "twin", k2 = "other" }
  %[2]s
}
`, []string{`"twin": zdm_`, `key "k1"`, `zdm_device "twin"`}},
		{"two zdm_fleet_devices", `
resource "zdm_fleet_devices" "m1" {
  fleet_id = %[1]q
  devices  = { a = "twin" }
  %[2]s
}
resource "zdm_fleet_devices" "m2" {
  fleet_id = %[1]q
  devices  = { b = "twin" }
  %[2]s
}
`, []string{`"twin": zdm_fleet_devices of fleet`, `key "a"`, `key "b"`}},
		{"the default fleet named and implied", `
resource "zdm_device" "a" {
  name = "twin"
  %[2]s
}
resource "zdm_fleet_devices" "m" {
  fleet_id = %[1]q
  devices  = { k = "twin" }
  %[2]s
}
`, []string{`zdm_device "twin"`, `key "k"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := acctest.NewEnv(t)
			fleet := acctest.DefaultFleetID(t, e)
			if !strings.Contains(tc.name, "default") {
				fleet, _ = acctest.NewFleetWithDevices(t, e, "sensors")
			}
			c := newDir(t, e.Config(fmt.Sprintf(tc.body, fleet, "")))
			e.Server.ResetCounters()
			out, code := c.Run("apply", "-auto-approve", "-input=false", "-no-color")
			if code != 1 {
				t.Fatalf("apply: exit %d, want 1:\n%s", code, out)
			}
			parts := append([]string{"Two resources of this configuration create a device of one name",
				"fleet " + fmt.Sprintf("%q", fleet)}, tc.want...)
			for _, p := range parts {
				if !acctest.ErrorPattern(p).MatchString(out) {
					t.Errorf("the output does not hold %q:\n%s", p, out)
				}
			}
			if n := deviceCreates(e.Server); n != 0 {
				t.Errorf("%d device creates, want 0", n)
			}
			if ids := namedIn(t, e, fleet, "twin"); len(ids) != 0 {
				t.Errorf("devices named twin: %v, want none", ids)
			}

			// The positive control: the opt-in lets both create.
			c.Write("main.tf", acctest.RequiredProviders+e.Config(fmt.Sprintf(tc.body, fleet, "allow_duplicate_names = true")))
			c.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
			if ids := namedIn(t, e, fleet, "twin"); len(ids) != 2 {
				t.Errorf("devices named twin after the opt-in: %v, want 2", ids)
			}
		})
	}
}

// TestAccDevicesNamedTwiceRenameAndLateFleet: a rename into a name that
// another resource creates fails the plan; a zdm_device and a key of a
// zdm_fleet_devices of one name in a fleet that the same apply creates
// (unknown at plan) fail at the apply's final plan, after the fleet and
// before any device create.
func TestAccDevicesNamedTwiceRenameAndLateFleet(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, _ := acctest.NewFleetWithDevices(t, e, "sensors")
	c := newDir(t, e.Config(fmt.Sprintf(`
resource "zdm_device" "a" {
  name     = "one"
  fleet_id = %[1]q
}
`, fleet)))
	c.MustRun("apply", "-auto-approve", "-input=false", "-no-color")

	c.Write("main.tf", acctest.RequiredProviders+e.Config(fmt.Sprintf(`
resource "zdm_device" "a" {
  name     = "two"
  fleet_id = %[1]q
}
resource "zdm_device" "b" {
  name     = "two"
  fleet_id = %[1]q
}
`, fleet)))
	e.Server.ResetCounters()
	out, code := c.Run("apply", "-auto-approve", "-input=false", "-no-color")
	if code != 1 || !acctest.ErrorPattern("Two resources of this configuration create a device of one name",
		`"two":`, "renamed or moved").MatchString(out) {
		t.Fatalf("apply of a rename into a created name: exit %d, want 1 naming both:\n%s", code, out)
	}
	if got := e.Server.Counters()["PATCH /v3/workspaces/{workspace_id}/devices/{device_id}"] + deviceCreates(e.Server); got != 0 {
		t.Errorf("%d device writes, want 0", got)
	}

	c.Write("main.tf", acctest.RequiredProviders+e.Config(`
resource "zdm_fleet" "late" {
  name = "late"
}
resource "zdm_device" "a" {
  name     = "twin"
  fleet_id = zdm_fleet.late.id
}
resource "zdm_fleet_devices" "b" {
  fleet_id = zdm_fleet.late.id
  devices  = { k = "twin" }
}
`))
	e.Server.ResetCounters()
	out, code = c.Run("apply", "-auto-approve", "-input=false", "-no-color")
	// Refused at the final plan of the one applied second: by the claim of
	// the other when both plan before either writes, or by the gate's read
	// of the fleet when the other's devices exist by then.
	refused := acctest.ErrorPattern("Two resources of this configuration create a device of one name").MatchString(out) ||
		acctest.ErrorPattern("Devices with these names already exist").MatchString(out)
	if code != 1 || !refused {
		t.Fatalf("apply into a fleet of the same apply: exit %d, want 1:\n%s", code, out)
	}
	if n := deviceCreates(e.Server); n > 1 {
		t.Errorf("%d device creates, want at most 1", n)
	}
}
