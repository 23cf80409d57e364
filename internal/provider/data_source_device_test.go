package provider

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
)

func TestAccDeviceDataSource(t *testing.T) {
	e := newEnv(t)
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
				ExpectError: regexp.MustCompile(`(?s)Exactly one of these attributes must be configured: \[id,name\]`),
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
	e := newEnv(t)
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
	e := newEnv(t)
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
