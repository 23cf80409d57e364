package devices

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

func TestAccDeviceDataSource(t *testing.T) {
	e := acctest.NewEnv(t)
	var dupIDs []string
	config := e.Config(`
resource "zdm_fleet" "a" {
  name = "fleet-a"
}
resource "zdm_device" "one" {
  name     = "one"
  fleet_id = zdm_fleet.a.id
}
data "zdm_device" "by_name" {
  name       = "one"
  depends_on = [zdm_device.one]
}
data "zdm_device" "by_id" {
  id = zdm_device.one.id
}
`)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.CompareValuePairs("data.zdm_device.by_name", tfjsonpath.New("id"),
						"zdm_device.one", tfjsonpath.New("id"), compare.ValuesSame()),
					statecheck.CompareValuePairs("data.zdm_device.by_id", tfjsonpath.New("name"),
						"zdm_device.one", tfjsonpath.New("name"), compare.ValuesSame()),
					statecheck.ExpectKnownValue("data.zdm_device.by_name", tfjsonpath.New("fleet_name"), knownvalue.StringExact("fleet-a")),
					statecheck.ExpectKnownValue("data.zdm_device.by_name", tfjsonpath.New("workspace_id"),
						knownvalue.StringExact(e.Bootstrap.WorkspaceID)),
					statecheck.ExpectKnownValue("data.zdm_device.by_id", tfjsonpath.New("identities"), knownvalue.Null()),
					statecheck.ExpectKnownValue("data.zdm_device.by_id", tfjsonpath.New("phys_id"), knownvalue.NotNull()),
				},
			},
			{
				PreConfig: func() {
					ids, err := e.Server.CreateDevices(e.Bootstrap.WorkspaceID, "", []string{"twin", "twin"})
					if err != nil {
						t.Fatalf("create devices: %v", err)
					}
					dupIDs = ids
				},
				Config: config + `
data "zdm_device" "twin" {
  name = "twin"
}
`,
				ExpectError: regexp.MustCompile(`(?s)Several devices found.*name "twin" is not unique in\s+workspace.*dev-`),
			},
			{
				Config:      config + `data "zdm_device" "none" { name = "nobody" }`,
				ExpectError: regexp.MustCompile(`(?s)No device found.*name "nobody"`),
			},
			{
				Config:      config + `data "zdm_device" "none" { id = "dev-missing" }`,
				ExpectError: regexp.MustCompile(`(?s)No device found.*id "dev-missing"`),
			},
			{
				Config: config + `
data "zdm_device" "both" {
  id   = "x"
  name = "y"
}
`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Combination`),
			},
			{
				Config:      config + `data "zdm_device" "neither" {}`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Exactly one of these attributes must be configured: \[id,name,phys_id\]`),
			},
			{
				// Lookup by phys_id, unique then shared by two devices.
				PreConfig: func() {
					setPhysID(t, e, dupIDs[0], "SN-0001")
				},
				Config: config + `
data "zdm_device" "by_phys" {
  phys_id = "SN-0001"
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.zdm_device.by_phys", tfjsonpath.New("name"), knownvalue.StringExact("twin")),
					statecheck.ExpectKnownValue("data.zdm_device.by_phys", tfjsonpath.New("phys_id"), knownvalue.StringExact("SN-0001")),
					statecheck.ExpectKnownValue("data.zdm_device.by_phys", tfjsonpath.New("id"), knownvalue.StringFunc(func(v string) error {
						if v != dupIDs[0] {
							return fmt.Errorf("id %q, want %q", v, dupIDs[0])
						}
						return nil
					})),
				},
			},
			{
				PreConfig: func() {
					setPhysID(t, e, dupIDs[1], "SN-0001")
				},
				Config:      config + `data "zdm_device" "by_phys" { phys_id = "SN-0001" }`,
				ExpectError: regexp.MustCompile(`(?s)Several devices found.*phys_id "SN-0001" is not unique`),
			},
			{
				Config:      config + `data "zdm_device" "by_phys" { phys_id = "SN-none" }`,
				ExpectError: regexp.MustCompile(`(?s)No device found.*phys_id "SN-none"`),
			},
			{
				// The last configuration is the one destroyed after the test.
				Config: config,
			},
		},
	})
	if len(dupIDs) != 2 {
		t.Errorf("duplicate devices: %v", dupIDs)
	}
}

func TestAccDevicesDataSource(t *testing.T) {
	e := acctest.NewEnv(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: e.Config(`
resource "zdm_fleet" "a" {
  name = "fleet-a"
}
resource "zdm_device" "in_a" {
  name     = "in-a"
  fleet_id = zdm_fleet.a.id
}
resource "zdm_device" "in_default" {
  name = "in-default"
}
data "zdm_devices" "all" {
  depends_on = [zdm_device.in_a, zdm_device.in_default]
}
data "zdm_devices" "in_a" {
  fleet_id   = zdm_fleet.a.id
  depends_on = [zdm_device.in_a, zdm_device.in_default]
}
data "zdm_devices" "named" {
  name       = "in-default"
  depends_on = [zdm_device.in_a, zdm_device.in_default]
}
data "zdm_devices" "none" {
  fleet_id   = zdm_fleet.a.id
  name       = "in-default"
  depends_on = [zdm_device.in_a, zdm_device.in_default]
}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.zdm_devices.all", tfjsonpath.New("devices"), knownvalue.ListSizeExact(2)),
					statecheck.ExpectKnownValue("data.zdm_devices.all", tfjsonpath.New("workspace_id"),
						knownvalue.StringExact(e.Bootstrap.WorkspaceID)),
					statecheck.ExpectKnownValue("data.zdm_devices.in_a", tfjsonpath.New("devices"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"name":       knownvalue.StringExact("in-a"),
							"fleet_name": knownvalue.StringExact("fleet-a"),
							"identities": knownvalue.Null(),
						}),
					})),
					statecheck.ExpectKnownValue("data.zdm_devices.named", tfjsonpath.New("devices").AtSliceIndex(0).AtMapKey("fleet_name"),
						knownvalue.StringExact("default")),
					statecheck.ExpectKnownValue("data.zdm_devices.named", tfjsonpath.New("devices"), knownvalue.ListSizeExact(1)),
					statecheck.ExpectKnownValue("data.zdm_devices.none", tfjsonpath.New("devices"), knownvalue.ListSizeExact(0)),
				},
			},
		},
	})
}

// TestAccDevicesDataSourceOneCall reads many devices with one list call, not
// one call per device.
func TestAccDevicesDataSourceOneCall(t *testing.T) {
	e := acctest.NewEnv(t)
	names := make([]string, 40)
	for i := range names {
		names[i] = fmt.Sprintf("bulk-%02d", i)
	}
	if _, err := e.Server.CreateDevices(e.Bootstrap.WorkspaceID, "", names); err != nil {
		t.Fatalf("create devices: %v", err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				PreConfig: e.Server.ResetCounters,
				Config:    e.Config(`data "zdm_devices" "all" {}`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.zdm_devices.all", tfjsonpath.New("devices"), knownvalue.ListSizeExact(len(names))),
				},
				Check: func(*terraform.State) error {
					c := e.Server.Counters()
					if n := c["GET /v3/workspaces/{workspace_id}/devices/{device_id}"]; n != 0 {
						return fmt.Errorf("%d single-device GETs, want 0 (counters %v)", n, c)
					}
					if n := c["GET /v3/workspaces/{workspace_id}/devices"]; n == 0 || n > 3 {
						return fmt.Errorf("%d list calls, want 1 per read (counters %v)", n, c)
					}
					return nil
				},
			},
		},
	})
}

// setPhysID sets the physical ID of a device through the local server's
// admin API, as provisioning would.
func setPhysID(t *testing.T, e *acctest.Env, deviceID, physID string) {
	t.Helper()
	if err := e.Server.SetDeviceIdentities(deviceID, physID, nil); err != nil {
		t.Fatalf("set phys_id of %s: %v", deviceID, err)
	}
}

// TestAccDevicesDataSourceFilters filters zdm_devices by name prefix,
// regular expression, physical ID and fleet (the filters of the zdm_device
// list resource), and refuses conflicting name filters at plan time.
func TestAccDevicesDataSourceFilters(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	east, err := acctest.APIClient(t, e).CreateFleet(t.Context(), ws, "east", "")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := e.Server.CreateDevices(ws, east.ID, []string{"east-2", "east-1", "East-3"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Server.CreateDevices(ws, "", []string{"west-1"}); err != nil {
		t.Fatal(err)
	}
	setPhysID(t, e, ids[2], "SN-42")
	names := func(addr string, want ...string) statecheck.StateCheck {
		checks := make([]knownvalue.Check, len(want))
		for i, n := range want {
			checks[i] = knownvalue.ObjectPartial(map[string]knownvalue.Check{"name": knownvalue.StringExact(n)})
		}
		return statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices"), knownvalue.ListExact(checks))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: e.Config(fmt.Sprintf(`
data "zdm_devices" "prefix" {
  name_prefix = "east-"
}
data "zdm_devices" "regex" {
  name_regex = "(?i)^east"
}
data "zdm_devices" "phys" {
  phys_id = "SN-42"
}
data "zdm_devices" "fleet_and_regex" {
  fleet_id   = %q
  name_regex = "-1$"
}
data "zdm_devices" "none" {
  phys_id     = "SN-42"
  name_prefix = "west"
}
`, east.ID)),
				ConfigStateChecks: []statecheck.StateCheck{
					names("data.zdm_devices.prefix", "east-1", "east-2"),
					names("data.zdm_devices.regex", "East-3", "east-1", "east-2"),
					names("data.zdm_devices.phys", "East-3"),
					names("data.zdm_devices.fleet_and_regex", "east-1"),
					names("data.zdm_devices.none"),
				},
			},
			{
				Config:      e.Config(`data "zdm_devices" "x" { name_regex = "(" }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`must be a valid regular expression`),
			},
			{
				Config: e.Config(`
data "zdm_devices" "x" {
  name        = "a"
  name_prefix = "b"
}
`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Invalid Attribute Combination`),
			},
			{
				// A valid configuration for the destroy that ends the test.
				Config: e.Config(`data "zdm_devices" "all" {}`),
			},
		},
	})
}
