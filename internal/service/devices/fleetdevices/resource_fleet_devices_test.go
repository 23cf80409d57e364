package fleetdevices

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// routeGetDevice is the route of the read of one device, as the local
// server counts it.
const routeGetDevice = "GET /v3/workspaces/{workspace_id}/devices/{device_id}"

// serverDevices returns the devices of the test's workspace, by name
// (several devices of one name are all kept).
func serverDevices(t *testing.T, e *acctest.Env) map[string][]client.Device {
	t.Helper()
	all, err := acctest.APIClient(t, e).ListDevices(t.Context(), e.Bootstrap.WorkspaceID)
	if err != nil {
		t.Fatalf("list the devices: %v", err)
	}
	out := map[string][]client.Device{}
	for _, d := range all {
		out[d.Name] = append(out[d.Name], d)
	}
	return out
}

// devicesOnServer checks that the workspace holds exactly one device of
// each name of want, in the fleet want gives (any fleet for ""), and no
// other device.
func devicesOnServer(t *testing.T, e *acctest.Env, want map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got := serverDevices(t, e)
		var problems []string
		for name, fleet := range want {
			ds := got[name]
			switch {
			case len(ds) != 1:
				problems = append(problems, fmt.Sprintf("%d devices named %q, want 1", len(ds), name))
			case fleet != "" && ds[0].FleetID() != fleet:
				problems = append(problems, fmt.Sprintf("device %q is in fleet %s, want %s", name, ds[0].FleetID(), fleet))
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				problems = append(problems, fmt.Sprintf("unexpected device %q", name))
			}
		}
		sort.Strings(problems)
		if len(problems) > 0 {
			return fmt.Errorf("devices on the server: %s", strings.Join(problems, "; "))
		}
		return nil
	}
}

// TestAccFleetDevicesResource walks one zdm_fleet_devices through create in
// the default fleet, rename, add and forget, a move to another fleet, and
// drift (a rename and a deletion made outside Terraform).
func TestAccFleetDevicesResource(t *testing.T) {
	e := acctest.NewEnv(t)
	const addr = "zdm_fleet_devices.test"
	sameA := statecheck.CompareValue(compare.ValuesSame())
	sameB := statecheck.CompareValue(compare.ValuesSame())
	var fleetB string
	fleets := `
resource "zdm_fleet" "b" {
  name = "fleet-b"
}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				// No fleet_id: the devices go to the default fleet.
				Config: e.Config(fleets + `
resource "zdm_fleet_devices" "test" {
  include_details = true
  devices = {
    a = "a"
    b = "bee"
    c = "c"
  }
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("fleet_id")),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("devices").AtMapKey("a"), knownvalue.StringExact("a")),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("device_ids").AtMapKey("a")),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("device_details").AtMapKey("b").AtMapKey("name"), knownvalue.StringExact("bee")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("fleet_name"), knownvalue.StringExact("default")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices_elsewhere"), knownvalue.MapSizeExact(0)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("device_ids"), knownvalue.MapSizeExact(3)),
					statecheck.CompareValuePairs(addr, tfjsonpath.New("device_ids").AtMapKey("a"), addr,
						tfjsonpath.New("device_details").AtMapKey("a").AtMapKey("id"), compare.ValuesSame()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.Bootstrap.WorkspaceID)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("parallelism"), knownvalue.Int64Exact(16)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices").AtMapKey("b"), knownvalue.StringExact("bee")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("device_details").AtMapKey("c").AtMapKey("identities"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("device_details").AtMapKey("c").AtMapKey("phys_id"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("device_details").AtMapKey("c").AtMapKey("created_at"), knownvalue.NotNull()),
					statecheck.CompareValuePairs(addr, tfjsonpath.New("fleet_id"), addr,
						tfjsonpath.New("device_details").AtMapKey("a").AtMapKey("fleet_id"), compare.ValuesSame()),
					sameA.AddStateValue(addr, tfjsonpath.New("device_ids").AtMapKey("a")),
					sameB.AddStateValue(addr, tfjsonpath.New("device_ids").AtMapKey("b")),
				},
				Check: devicesOnServer(t, e, map[string]string{"a": "", "bee": "", "c": ""}),
			},
			{
				// Rename b, add d, forget c: c stays in the service.
				Config: e.Config(fleets + `
resource "zdm_fleet_devices" "test" {
  devices = {
    a = "a"
    b = "bee-2"
    d = "d"
  }
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("fleet_name"), knownvalue.StringExact("default")),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("device_ids").AtMapKey("d")),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("device_ids").AtMapKey("a"), knownvalue.NotNull()),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("device_details"), knownvalue.Null()),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					sameA.AddStateValue(addr, tfjsonpath.New("device_ids").AtMapKey("a")),
					sameB.AddStateValue(addr, tfjsonpath.New("device_ids").AtMapKey("b")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("device_ids"), knownvalue.MapSizeExact(3)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices"), knownvalue.MapExact(map[string]knownvalue.Check{
						"a": knownvalue.StringExact("a"), "b": knownvalue.StringExact("bee-2"), "d": knownvalue.StringExact("d")})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("device_details"), knownvalue.Null()),
				},
				Check: devicesOnServer(t, e, map[string]string{"a": "", "bee-2": "", "c": "", "d": ""}),
			},
			{
				// Move every device to fleet b, in place.
				Config: e.Config(fleets + `
resource "zdm_fleet_devices" "test" {
  fleet_id = zdm_fleet.b.id
  devices = {
    a = "a"
    b = "bee-2"
    d = "d"
  }
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("fleet_name")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					sameA.AddStateValue(addr, tfjsonpath.New("device_ids").AtMapKey("a")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("fleet_name"), knownvalue.StringExact("fleet-b")),
					statecheck.CompareValuePairs(addr, tfjsonpath.New("fleet_id"), "zdm_fleet.b", tfjsonpath.New("id"), compare.ValuesSame()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices_elsewhere"), knownvalue.MapSizeExact(0)),
				},
				Check: resource.ComposeTestCheckFunc(
					acctest.CaptureID("zdm_fleet.b", &fleetB),
					func(s *terraform.State) error {
						return devicesOnServer(t, e, map[string]string{"a": fleetB, "bee-2": fleetB, "c": "", "d": fleetB})(s)
					},
				),
			},
			{
				// Drift: a renamed outside Terraform, d deleted, b moved
				// back to the default fleet. The plan renames a, moves b
				// back and creates d again.
				PreConfig: func() {
					devs := serverDevices(t, e)
					c := acctest.APIClient(t, e)
					if _, err := c.UpdateDevice(t.Context(), e.Bootstrap.WorkspaceID, devs["a"][0].ID, "a-drifted", fleetB); err != nil {
						t.Fatal(err)
					}
					if _, err := c.UpdateDevice(t.Context(), e.Bootstrap.WorkspaceID, devs["bee-2"][0].ID, "bee-2", devs["c"][0].FleetID()); err != nil {
						t.Fatal(err)
					}
					if err := e.Server.DeleteDevice(devs["d"][0].ID); err != nil {
						t.Fatal(err)
					}
				},
				Config: e.Config(fleets + `
resource "zdm_fleet_devices" "test" {
  fleet_id = zdm_fleet.b.id
  devices = {
    a = "a"
    b = "bee-2"
    d = "d"
  }
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("devices").AtMapKey("a"), knownvalue.StringExact("a")),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("device_ids").AtMapKey("d")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					sameA.AddStateValue(addr, tfjsonpath.New("device_ids").AtMapKey("a")),
					sameB.AddStateValue(addr, tfjsonpath.New("device_ids").AtMapKey("b")),
				},
				Check: func(s *terraform.State) error {
					return devicesOnServer(t, e, map[string]string{"a": fleetB, "bee-2": fleetB, "c": "", "d": fleetB})(s)
				},
			},
		},
	})
}

// TestAccFleetDevicesForget checks the plan-time warnings of forgetting
// devices (a removed key, and the destroy of the resource) and that
// neither writes to the service.
func TestAccFleetDevicesForget(t *testing.T) {
	e := acctest.NewEnv(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: e.Config(`
resource "zdm_fleet_devices" "test" {
  devices = { a = "a", b = "b" }
}
`),
			},
			{
				PreConfig: func() { e.Server.ResetCounters() },
				Config: e.Config(`
resource "zdm_fleet_devices" "test" {
  devices = { a = "a" }
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("zdm_fleet_devices.test", plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeTestCheckFunc(
					devicesOnServer(t, e, map[string]string{"a": "", "b": ""}),
					noDeviceWrites(e),
				),
			},
			{
				Config: e.Config(`
resource "zdm_fleet_devices" "test" {
  devices = { a = "a" }
}
`),
				Destroy: true,
				Check:   devicesOnServer(t, e, map[string]string{"a": "", "b": ""}),
			},
		},
	})
}

// noDeviceWrites fails when the server saw a device create or update since
// its counters were reset.
func noDeviceWrites(e *acctest.Env) resource.TestCheckFunc {
	return func(*terraform.State) error {
		c := e.Server.Counters()
		if n := c[acctest.RouteCreateDevice] + c[acctest.RouteUpdateDevice]; n != 0 {
			return fmt.Errorf("%d device writes, want none: %v", n, c)
		}
		return nil
	}
}

// TestAccFleetDevicesPartialFailure runs the real CLI through a create that
// fails for one device out of five (a name the service refuses): the apply
// fails naming the key and the reason, the state keeps the four devices
// created, and Terraform taints it. The next apply replaces it, and the
// replacement resumes it: it keeps the four devices and sends only the
// failed key. With -refresh=false, which reads nothing before the plan,
// the plan is refused instead of creating the four again.
func TestAccFleetDevicesPartialFailure(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	long := strings.Repeat("x", 300)
	config := func(name string) string {
		return acctest.RequiredProviders + e.ProviderConfig() + fmt.Sprintf(`
resource "zdm_fleet_devices" "test" {
  devices = {
    a = "a"
    b = "b"
    c = "c"
    d = "d"
    e = %q
  }
}
`, name)
	}
	c.Write("main.tf", config(long))
	c.MustRun("init", "-no-color")
	out, code := c.Run("apply", "-no-color", "-auto-approve")
	if flat := strings.Join(strings.Fields(out), " "); code == 0 || !strings.Contains(flat, "1 of 5 devices could not be written") ||
		!strings.Contains(flat, `"e" (create`) || !strings.Contains(flat, "at most 255") {
		t.Fatalf("first apply: exit code %d, want a failure naming key e and the reason:\n%s", code, out)
	}
	check := func(want int) {
		t.Helper()
		names := serverDevices(t, e)
		total := 0
		for name, ds := range names {
			total += len(ds)
			if len(ds) != 1 {
				t.Errorf("%d devices named %q", len(ds), name)
			}
		}
		if total != want {
			t.Errorf("the service holds %d devices, want %d", total, want)
		}
	}
	check(4)
	state := c.MustRun("state", "show", "-no-color", "zdm_fleet_devices.test")
	if !strings.Contains(state, "tainted") || strings.Count(state, `"dev-`) != 4 {
		t.Errorf("state after the partial create: want tainted with 4 devices:\n%s", state)
	}

	// Applying again replaces the tainted object: the replacement keeps the
	// four devices and sends only e, which fails again.
	e.Server.ResetCounters()
	out, code = c.Run("apply", "-no-color", "-auto-approve")
	if flat := strings.Join(strings.Fields(out), " "); code == 0 || !strings.Contains(flat, "Resuming a zdm_fleet_devices created in part") ||
		!strings.Contains(flat, "keeps the 4 devices that exist") || !strings.Contains(flat, "1 of 1 devices could not be written") {
		t.Fatalf("re-apply of the tainted resource: exit code %d, want it resumed and e failing again:\n%s", code, out)
	}
	if n := e.Server.Counters()[acctest.RouteCreateDevice]; n != 1 {
		t.Errorf("the resumed apply sent %d creates, want 1 (key e only)", n)
	}
	check(4)

	// Without a refresh, nothing ties the replacement to the tainted object
	// before the plan: the plan would create a, b, c and d again, so it is
	// refused, and nothing is sent.
	c.Write("main.tf", config("e"))
	e.Server.ResetCounters()
	out, code = c.Run("apply", "-no-color", "-auto-approve", "-refresh=false")
	if flat := strings.Join(strings.Fields(out), " "); code == 0 || !strings.Contains(flat, "Devices with these names already exist") ||
		!strings.Contains(flat, "4 devices with names") || !strings.Contains(flat, "untaint") {
		t.Fatalf("apply -refresh=false of the tainted resource: exit code %d, want the plan refused:\n%s", code, out)
	}
	if n := e.Server.Counters()[acctest.RouteCreateDevice]; n != 0 {
		t.Errorf("the refused plan sent %d creates, want 0", n)
	}
	check(4)

	// With the refresh, the replacement finishes the object: one create.
	e.Server.ResetCounters()
	out = c.MustRun("apply", "-no-color", "-auto-approve")
	if !strings.Contains(out, "1 added, 0 changed, 1 destroyed") {
		t.Errorf("apply after the fix: want the tainted object replaced:\n%s", out)
	}
	if n := e.Server.Counters()[acctest.RouteCreateDevice]; n != 1 {
		t.Errorf("apply after the fix sent %d creates, want 1", n)
	}
	if n := e.Server.Counters()[acctest.RouteUpdateDevice]; n != 0 {
		t.Errorf("apply after the fix sent %d updates, want 0", n)
	}
	check(5)
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("plan after the fix is not empty (exit code %d):\n%s", code, out)
	}
	state = c.MustRun("state", "show", "-no-color", "zdm_fleet_devices.test")
	if strings.Contains(state, "tainted") || strings.Count(state, `"dev-`) != 5 {
		t.Errorf("state after the fix: want 5 devices, not tainted:\n%s", state)
	}
}

// TestAccFleetDevicesPartialCreateBeforeDestroy checks the replacement
// order that cannot always resume: with create_before_destroy, the Create
// of the replacement comes before the Delete of the tainted object. A saved
// plan applied by another provider process then lacks the devices planned
// earlier, and its apply-time plan, which would create the existing devices
// again, is refused before any write.
func TestAccFleetDevicesPartialCreateBeforeDestroy(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig()+fmt.Sprintf(`
resource "zdm_fleet_devices" "test" {
  devices = {
    a = "a"
    b = %q
  }
  lifecycle {
    create_before_destroy = true
  }
}
`, strings.Repeat("x", 300)))
	c.MustRun("init", "-no-color")
	if out, code := c.Run("apply", "-no-color", "-auto-approve"); code == 0 {
		t.Fatalf("first apply succeeded, want b refused:\n%s", out)
	}
	// A saved plan is applied by another provider process, which has not
	// read the tainted object, and Terraform creates before it deletes.
	c.MustRun("plan", "-no-color", "-out=tfplan")
	e.Server.ResetCounters()
	out, code := c.Run("apply", "-no-color", "tfplan")
	if flat := strings.Join(strings.Fields(out), " "); code == 0 || !strings.Contains(flat, "Devices with these names already exist") {
		t.Fatalf("apply of the saved plan with create_before_destroy: exit code %d, want the final plan refused:\n%s", code, out)
	}
	if n := e.Server.Counters()[acctest.RouteCreateDevice]; n != 0 {
		t.Errorf("the stopped apply sent %d creates, want 0", n)
	}
	if got := serverDevices(t, e); len(got) != 1 || len(got["a"]) != 1 {
		t.Errorf("the service holds %v, want device a once", got)
	}
}

// TestAccFleetDevicesImport adopts the devices of a fleet created outside
// Terraform, keyed by name, with an import block (no write to the service,
// empty plan after), then checks terraform import and an import block with
// the identity against the state.
func TestAccFleetDevicesImport(t *testing.T) {
	e := acctest.NewEnv(t)
	const addr = "zdm_fleet_devices.test"
	ws := e.Bootstrap.WorkspaceID
	east, err := acctest.APIClient(t, e).CreateFleet(t.Context(), ws, "east", "")
	if err != nil {
		t.Fatal(err)
	}
	acctest.CreateDevices(t, e, east.ID, "east", 3)
	acctest.CreateDevices(t, e, "", "spare", 2) // another fleet: not imported
	config := e.Config(fmt.Sprintf(`
resource "zdm_fleet_devices" "test" {
  fleet_id = %q
  devices = {
    east-00001 = "east-00001"
    east-00002 = "east-00002"
    east-00003 = "east-00003"
  }
}
`, east.ID))
	importBlock := fmt.Sprintf(`
import {
  to = zdm_fleet_devices.test
  id = "%s/%s"
}
`, ws, east.ID)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { e.Server.ResetCounters() },
				Config:    config + importBlock,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("device_ids").AtMapKey("east-00002"), knownvalue.NotNull()),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: append(acctest.IdentityChecks(addr, "workspace_id", "fleet_id"),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("fleet_name"), knownvalue.StringExact("east")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("device_ids"), knownvalue.MapSizeExact(3)),
				),
				Check: noDeviceWrites(e),
			},
			{
				// The same configuration without the import block.
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				ResourceName:                         addr,
				ImportState:                          true,
				ImportStateKind:                      resource.ImportCommandWithID,
				ImportStateId:                        ws + "/" + east.ID,
				ImportStateVerify:                    true,
				ImportStateVerifyIdentifierAttribute: "fleet_id",
			},
			{
				ResourceName:    addr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop)},
				},
			},
		},
	})
}

// TestAccFleetDevicesImportDuplicateNames: devices of one name cannot be
// keyed by name; the error says to key them by ID, which then works.
func TestAccFleetDevicesImportDuplicateNames(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	fleet, err := acctest.APIClient(t, e).CreateFleet(t.Context(), ws, "twins", "")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := e.Server.CreateDevices(ws, fleet.ID, []string{"twin", "twin", "single"})
	if err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: e.Config(fmt.Sprintf(`
import {
  to = zdm_fleet_devices.test
  id = "%[1]s/%[2]s"
}
resource "zdm_fleet_devices" "test" {
  fleet_id = %[2]q
  devices  = { twin = "twin", single = "single" }
}
`, ws, fleet.ID)),
				ExpectError: regexp.MustCompile(`(?s)duplicate names.*"twin" \(dev-.*by-id`),
			},
			{
				PreConfig: func() { e.Server.ResetCounters() },
				Config: e.Config(fmt.Sprintf(`
import {
  to = zdm_fleet_devices.test
  id = "%[1]s/%[2]s/by-id"
}
resource "zdm_fleet_devices" "test" {
  fleet_id = %[2]q
  devices  = {
    %[3]q = "twin"
    %[4]q = "twin"
    %[5]q = "single"
  }
}
`, ws, fleet.ID, ids[0], ids[1], ids[2])),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("zdm_fleet_devices.test", plancheck.ResourceActionNoop)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: noDeviceWrites(e),
			},
		},
	})
}

// TestAccFleetDevicesImportErrors: an empty fleet imports as an empty map;
// a fleet that does not exist is an error naming it.
func TestAccFleetDevicesImportErrors(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	empty, err := acctest.APIClient(t, e).CreateFleet(t.Context(), ws, "empty", "")
	if err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: e.Config(`
import {
  to = zdm_fleet_devices.test
  id = "flt-does-not-exist"
}
resource "zdm_fleet_devices" "test" {
  fleet_id = "flt-does-not-exist"
  devices  = {}
}
`),
				ExpectError: regexp.MustCompile(`(?s)Cannot import fleet: not found.*flt-does-not-exist`),
			},
			{
				Config: e.Config(fmt.Sprintf(`
import {
  to = zdm_fleet_devices.test
  id = %q
}
resource "zdm_fleet_devices" "test" {
  fleet_id = %[1]q
  devices  = {}
}
`, empty.ID)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("zdm_fleet_devices.test", plancheck.ResourceActionNoop)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("zdm_fleet_devices.test", tfjsonpath.New("fleet_name"), knownvalue.StringExact("empty")),
					statecheck.ExpectKnownValue("zdm_fleet_devices.test", tfjsonpath.New("workspace_id"), knownvalue.StringExact(ws)),
				},
			},
		},
	})
}

// TestAccFleetDevicesManagedTwice: a device held by a zdm_fleet_devices and
// by a zdm_device of the same configuration is reported at plan time, and
// a configuration where each device has one owner is not.
func TestAccFleetDevicesManagedTwice(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	base := acctest.RequiredProviders + e.ProviderConfig() + `
resource "zdm_fleet_devices" "a" {
  devices = { x = "x", y = "y" }
}
resource "zdm_device" "z" {
  name = "z"
}
`
	c.Write("main.tf", base)
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")
	out := c.MustRun("plan", "-no-color")
	if strings.Contains(out, "managed by two resources") {
		t.Fatalf("plan warns about devices managed twice, but each device has one owner:\n%s", out)
	}
	x := serverDevices(t, e)["x"][0].ID
	c.Write("main.tf", base+fmt.Sprintf(`
import {
  to = zdm_device.dup
  id = %q
}
resource "zdm_device" "dup" {
  name = "x"
}
`, x))
	c.MustRun("apply", "-no-color", "-auto-approve")
	out = strings.Join(strings.Fields(c.MustRun("plan", "-no-color")), " ")
	want := "device " + x + ": "
	if !strings.Contains(out, "Devices managed by two resources") || !strings.Contains(out, want) ||
		!strings.Contains(out, `(key "x")`) || strings.Contains(out, "device "+serverDevices(t, e)["y"][0].ID+":") {
		t.Errorf("plan: want a warning naming device %s (key x) only:\n%s", x, out)
	}
}

// TestAccFleetDevicesAtScale creates 5,000 devices (times ZDM_BENCH_SCALE)
// with one resource, plans with one API call, renames them all, and plans
// empty after, with the real CLI. Durations are logged, not asserted: speed
// is measured by make bench. The provider runs with its logging off, as its
// binary does without TF_LOG (see newQuietCLI).
func TestAccFleetDevicesAtScale(t *testing.T) {
	n := 5000 * acctest.BenchScale(t)
	e := acctest.NewEnv(t)
	c := acctest.NewQuietCLI(t)
	config := func(suffix string) string {
		// range() stops at 1,024 values: count in thousands.
		return acctest.RequiredProviders + e.ProviderConfig() + fmt.Sprintf(`
locals {
  numbers = flatten([for k in range(%d) : [for i in range(1000) : k * 1000 + i]])
}
resource "zdm_fleet_devices" "many" {
  devices = { for i in local.numbers : format("d-%%05d", i) => format("dev-%%05d%s", i) }
}
`, n/1000, suffix)
	}
	c.Write("main.tf", config(""))
	c.MustRun("init", "-no-color")

	e.Server.ResetCounters()
	c.MustRun("apply", "-no-color", "-auto-approve")
	t.Logf("apply creating %d devices: %s", n, c.Last)
	if got := e.Server.Counters()[acctest.RouteCreateDevice]; got != int64(n) {
		t.Errorf("%d creates, want %d", got, n)
	}
	if got := len(serverDevices(t, e)); got != n {
		t.Errorf("the service holds %d device names, want %d", got, n)
	}

	e.Server.ResetCounters()
	out, code := c.Run("plan", "-no-color", "-detailed-exitcode")
	t.Logf("no-op plan of %d devices: %s", n, c.Last)
	if code != 0 {
		t.Fatalf("plan after the create: exit code %d:\n%s", code, acctest.Head(out, 40))
	}
	if total, lists := e.Server.TotalRequests(), e.Server.Counters()[acctest.RouteListDevices]; total != 1 || lists != 1 {
		t.Errorf("no-op plan: %d API calls (%d lists), want exactly 1 list: %v", total, lists, e.Server.Counters())
	}

	c.Write("main.tf", config("-r"))
	e.Server.ResetCounters()
	out = c.MustRun("apply", "-no-color", "-auto-approve")
	t.Logf("apply renaming %d devices: %s", n, c.Last)
	if !strings.Contains(out, "0 added, 1 changed, 0 destroyed") {
		t.Errorf("rename apply: want one resource changed in place:\n%s", acctest.Tail(out, 20))
	}
	counters := e.Server.Counters()
	// Two lists: the plan's refresh, whose list the plan's check of the
	// new names shares, and the check in the final plan at apply, right
	// before the renames (a provider process of its own).
	if counters[acctest.RouteUpdateDevice] != int64(n) || counters[acctest.RouteCreateDevice] != 0 || counters[acctest.RouteListDevices] != 2 {
		t.Errorf("rename: requests %v, want %d updates, 2 lists and no create", counters, n)
	}
	names := serverDevices(t, e)
	if len(names) != n || len(names["dev-00042-r"]) != 1 {
		t.Errorf("after the rename the service holds %d names (dev-00042-r: %d)", len(names), len(names["dev-00042-r"]))
	}
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("plan after the rename: exit code %d:\n%s", code, acctest.Head(out, 40))
	}
}

// TestAccFleetDevicesDetailsAndUnknowns covers values not known at plan
// time (a name from another resource, and a whole map whose keys come from
// another resource's ID) and turning include_details on for devices that
// need no write: one list call, no device write, the details filled.
func TestAccFleetDevicesDetailsAndUnknowns(t *testing.T) {
	e := acctest.NewEnv(t)
	const addr, other = "zdm_fleet_devices.test", "zdm_fleet_devices.later"
	var fleetID string
	config := func(details string) string {
		return e.Config(`
resource "zdm_fleet" "f" {
  name = "named-by-a-fleet"
}

resource "zdm_fleet_devices" "test" {
` + details + `
  devices = {
    a = "a"
    b = "b-${zdm_fleet.f.id}"
  }
}

resource "zdm_fleet_devices" "later" {
  fleet_id = zdm_fleet.f.id
  devices  = { for id in [zdm_fleet.f.id] : "key-of-${id}" => "later" }
}
`)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("devices").AtMapKey("b")),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("devices").AtMapKey("a"), knownvalue.StringExact("a")),
						plancheck.ExpectUnknownValue(other, tfjsonpath.New("devices")),
						plancheck.ExpectUnknownValue(other, tfjsonpath.New("device_ids")),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("device_details"), knownvalue.Null()),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.CompareValuePairs(addr, tfjsonpath.New("devices").AtMapKey("b"), addr,
						tfjsonpath.New("device_ids").AtMapKey("b"), compare.ValuesDiffer()),
					statecheck.ExpectKnownValue(other, tfjsonpath.New("device_ids"), knownvalue.MapSizeExact(1)),
					statecheck.ExpectKnownValue(other, tfjsonpath.New("fleet_name"), knownvalue.StringExact("named-by-a-fleet")),
				},
				Check: resource.ComposeTestCheckFunc(acctest.CaptureID("zdm_fleet.f", &fleetID), func(s *terraform.State) error {
					return devicesOnServer(t, e, map[string]string{"a": "", "b-" + fleetID: "", "later": fleetID})(s)
				}),
			},
			{
				// Details on: nothing to write, one list fills them.
				PreConfig: func() { e.Server.ResetCounters() },
				Config:    config("  include_details = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction(other, plancheck.ResourceActionNoop),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("device_details").AtMapKey("a").AtMapKey("phys_id")),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("device_details").AtMapKey("a").AtMapKey("name"), knownvalue.StringExact("a")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("device_details").AtMapKey("a").AtMapKey("phys_id"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("device_details").AtMapKey("b").AtMapKey("created_at"), knownvalue.NotNull()),
					statecheck.CompareValuePairs(addr, tfjsonpath.New("device_ids").AtMapKey("b"), addr,
						tfjsonpath.New("device_details").AtMapKey("b").AtMapKey("id"), compare.ValuesSame()),
				},
				Check: resource.ComposeTestCheckFunc(noDeviceWrites(e), func(*terraform.State) error {
					// Positive control of noDeviceWrites: the counters saw this step's lists.
					if n := e.Server.Counters()["GET /v3/workspaces/{workspace_id}/devices"]; n == 0 {
						return fmt.Errorf("no device list counted: %v", e.Server.Counters())
					}
					return nil
				}),
			},
		},
	})
}
