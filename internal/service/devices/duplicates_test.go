package devices_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// The gate of device creates, renames and moves (duplicates.go), with the
// real CLI: each test counts the writes at the service.

// namedOnServer returns how many devices of the workspace are named name.
func namedOnServer(t *testing.T, e *acctest.Env, name string) int {
	t.Helper()
	n := 0
	for _, got := range acctest.DeviceNames(t, acctest.APIClient(t, e), e.Bootstrap.WorkspaceID) {
		if got == name {
			n++
		}
	}
	return n
}

// refusedApply runs an apply that must fail with every part of want (in
// order) and send no device create nor update.
func refusedApply(t *testing.T, e *acctest.Env, c *acctest.Cli, what string, want []string, args ...string) string {
	t.Helper()
	e.Server.ResetCounters()
	out, code := c.Run(append([]string{"apply", "-no-color", "-auto-approve"}, args...)...)
	if code == 0 || !acctest.ErrorPattern(want...).MatchString(out) {
		t.Errorf("%s: exit code %d, want a refusal saying %q:\n%s", what, code, want, out)
	}
	counts := e.Server.Counters()
	if n := counts[acctest.RouteCreateDevice] + counts[acctest.RouteUpdateDevice]; n != 0 {
		t.Errorf("%s: %d device writes sent, want 0", what, n)
	}
	return out
}

// TestAccDeviceCheckListRefused: a device list answered with 403 or 400
// (a key that may create but not list, a proxy) fails the plan of a
// replacement, which before created a second device; the 403 says how to
// get the list. With the list back the same replacement is refused by the
// name, and allow_duplicate_names = true creates without reading the list
// (the control: the create is counted).
func TestAccDeviceCheckListRefused(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	config := func(extra string) string {
		return acctest.RequiredProviders + e.ProviderConfig() + fmt.Sprintf(`
resource "zdm_device" "gw" {
  name = "gw"
  %s
}
`, extra)
	}
	c.Write("main.tf", config(""))
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")
	for _, status := range []int{http.StatusForbidden, http.StatusBadRequest} {
		if _, err := e.Server.AddRequestFault(localzdm.RequestFault{Method: http.MethodGet,
			Path: "/v3/workspaces/{workspace_id}/devices", Action: localzdm.FaultHTMLError, Status: status}); err != nil {
			t.Fatal(err)
		}
		refusedApply(t, e, c, fmt.Sprintf("-replace with the list answered %d", status),
			[]string{"Cannot check for devices with the same names", "Listing the fleets and devices of workspace",
				fmt.Sprintf("%d %s", status, http.StatusText(status)), "Nothing was sent.",
				"Give the API key the permission to list", "fix the proxy", "allow_duplicate_names = true"},
			"-refresh=false", "-replace=zdm_device.gw")
		e.Server.ClearRequestFaults()
		if n := namedOnServer(t, e, "gw"); n != 1 {
			t.Errorf("%d devices named gw after the refused -replace (list answered %d), want 1", n, status)
		}
	}

	// The list answers: the clash is what the check refuses.
	refusedApply(t, e, c, "-replace with the list", []string{"Devices with these names already exist", `"gw"`},
		"-refresh=false", "-replace=zdm_device.gw")

	// The opt-in reads nothing: with the list refused it creates.
	c.Write("main.tf", config("allow_duplicate_names = true"))
	c.MustRun("apply", "-no-color", "-auto-approve")
	if _, err := e.Server.AddRequestFault(localzdm.RequestFault{Method: http.MethodGet,
		Path: "/v3/workspaces/{workspace_id}/devices", Action: localzdm.FaultHTMLError, Status: http.StatusForbidden}); err != nil {
		t.Fatal(err)
	}
	e.Server.ResetCounters()
	c.MustRun("apply", "-no-color", "-auto-approve", "-refresh=false", "-replace=zdm_device.gw")
	if n := e.Server.Counters()[acctest.RouteCreateDevice]; n != 1 {
		t.Errorf("-replace with allow_duplicate_names sent %d creates, want 1", n)
	}
	e.Server.ClearRequestFaults()
	if n := namedOnServer(t, e, "gw"); n != 2 {
		t.Errorf("%d devices named gw after the opted-in -replace, want 2", n)
	}
}

// TestAccDeviceDefaultFleetUnknown: with two fleets named "default", the
// provider cannot tell the fleet of a device without fleet_id; the
// replacement after terraform taint, which before created a second device,
// is refused naming both fleets and fleet_id. A name that no device of the
// workspace has is created (the control: the create is counted).
func TestAccDeviceDefaultFleetUnknown(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	defaultID := acctest.DefaultFleetID(t, e)
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig()+`
resource "zdm_device" "gw" {
  name = "gw"
}
`)
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")
	second, err := acctest.APIClient(t, e).CreateFleet(t.Context(), e.Bootstrap.WorkspaceID, "default", "")
	if err != nil {
		t.Fatal(err)
	}
	c.MustRun("taint", "zdm_device.gw")
	first, last := defaultID, second.ID
	if last < first {
		first, last = last, first
	}
	refusedApply(t, e, c, "taint with two default fleets", []string{"Cannot tell the default fleet",
		`2 fleets are named "default": ` + first + ", " + last, `"gw" (`, "fleet " + defaultID, "Nothing was sent.",
		"Set fleet_id"})
	if n := namedOnServer(t, e, "gw"); n != 1 {
		t.Errorf("%d devices named gw after the refused replacement, want 1", n)
	}

	c.MustRun("untaint", "zdm_device.gw")
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig()+`
resource "zdm_device" "gw" {
  name = "gw"
}

resource "zdm_device" "fresh" {
  name = "fresh"
}
`)
	e.Server.ResetCounters()
	c.MustRun("apply", "-no-color", "-auto-approve")
	if n := e.Server.Counters()[acctest.RouteCreateDevice]; n != 1 {
		t.Errorf("a new name with two default fleets: %d creates, want 1", n)
	}
}

// TestAccDeviceRenameMoveIntoTakenName: a rename of a zdm_device to the
// name of another device of its fleet, and a move into a fleet that holds
// its name, are refused as a create of the name would be; before, both
// made two devices of one name in one fleet. allow_duplicate_names = true
// renames (the control: the update is counted).
func TestAccDeviceRenameMoveIntoTakenName(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	defaultID := acctest.DefaultFleetID(t, e)
	config := func(bName, cFleet, allow string) string {
		return acctest.RequiredProviders + e.ProviderConfig() + fmt.Sprintf(`
resource "zdm_fleet" "other" {
  name = "other"
}

resource "zdm_device" "a" {
  name = "a"
}

resource "zdm_device" "b" {
  name = %q
  %s
}

resource "zdm_device" "c" {
  name     = "a"
  fleet_id = %s
}
`, bName, allow, cFleet)
	}
	c.Write("main.tf", config("b", "zdm_fleet.other.id", ""))
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")

	c.Write("main.tf", config("a", "zdm_fleet.other.id", ""))
	refusedApply(t, e, c, "rename to a taken name", []string{"Devices with these names already exist",
		`Fleet "` + defaultID + `"`, "Nothing was sent.", "To be given by a rename, or by a move into the fleet", `"a" (`,
		"allow_duplicate_names = true"})
	c.Write("main.tf", config("b", fmt.Sprintf("%q", defaultID), ""))
	refusedApply(t, e, c, "move into a fleet that holds the name", []string{"Devices with these names already exist",
		`Fleet "` + defaultID + `"`, "To be given by a rename, or by a move into the fleet", `"a" (`})
	if n := namedOnServer(t, e, "a"); n != 2 {
		t.Errorf("%d devices named a after the refusals, want 2 (one per fleet)", n)
	}

	c.Write("main.tf", config("a", "zdm_fleet.other.id", "allow_duplicate_names = true"))
	e.Server.ResetCounters()
	c.MustRun("apply", "-no-color", "-auto-approve")
	if n := e.Server.Counters()[acctest.RouteUpdateDevice]; n != 1 {
		t.Errorf("the opted-in rename sent %d updates, want 1", n)
	}
	if n := namedOnServer(t, e, "a"); n != 3 {
		t.Errorf("%d devices named a after the opted-in rename, want 3", n)
	}
}

// TestAccDeviceKilledApplyImport: after an apply killed once it created a
// device (a device of the name made outside Terraform stands in for it),
// the apply again is refused, names a killed or timed-out apply among the
// causes and prints an import block with the device's import ID; that
// block, its address filled in, imports the device with no create.
func TestAccDeviceKilledApplyImport(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	ids := acctest.NewDevices(t, e, "gw")
	config := acctest.RequiredProviders + e.ProviderConfig() + `
resource "zdm_device" "gw" {
  name = "gw"
}
`
	c.Write("main.tf", config)
	c.MustRun("init", "-no-color")
	wantID := e.Bootstrap.WorkspaceID + "/" + ids[0]
	out := refusedApply(t, e, c, "apply after a killed apply", []string{"Devices with these names already exist",
		`"gw" (` + ids[0] + ")", "killed or timed out", "the state was never written", "import {",
		"to = zdm_device.<name of this resource>", `id = "` + wantID + `"`, "terraform query", `list "zdm_device"`})
	m := regexp.MustCompile(`id = "([^"]+)"`).FindStringSubmatch(out)
	if m == nil || m[1] != wantID {
		t.Fatalf("the refusal's import block has id %v, want %q", m, wantID)
	}
	c.Write("main.tf", config+fmt.Sprintf(`
import {
  to = zdm_device.gw
  id = %q
}
`, m[1]))
	e.Server.ResetCounters()
	out = c.MustRun("apply", "-no-color", "-auto-approve")
	if !strings.Contains(out, "1 imported, 0 added") || e.Server.Counters()[acctest.RouteCreateDevice] != 0 {
		t.Errorf("the printed import block: want the device imported and no create:\n%s", out)
	}
	if n := namedOnServer(t, e, "gw"); n != 1 {
		t.Errorf("%d devices named gw, want 1", n)
	}
}
