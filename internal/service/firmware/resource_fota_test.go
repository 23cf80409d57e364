package firmware

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// fotaOnServer checks the firmware update of devices in the service.
func fotaOnServer(t *testing.T, e *acctest.Env, version, status string, devices ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, dev := range devices {
			f, err := acctest.APIClient(t, e).GetFOTA(context.Background(), dev)
			if err != nil {
				return err
			}
			if f.Value.FirmwareVersion != version || f.Status != status {
				return fmt.Errorf("device %s has firmware %s (%s), want %s (%s)", dev, f.Value.FirmwareVersion, f.Status, version, status)
			}
		}
		return nil
	}
}

// stringSetExact checks a list of strings holds exactly want, in any order.
func stringSetExact(want ...string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(want))
	for i, w := range want {
		checks[i] = knownvalue.StringExact(w)
	}
	return knownvalue.SetExact(checks)
}

func TestAccFotaResource(t *testing.T) {
	e := acctest.NewEnv(t)
	dev := acctest.NewDevices(t, e, "sensor")[0]
	const addr = "zdm_fota.test"
	config := func(version, extra string) string {
		return e.Config(fmt.Sprintf(`
resource "zdm_fota" "test" {
  device_id        = %q
  firmware_id      = "fw-sensor"
  firmware_version = %q
  %s
}
`, dev, version, extra))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		CheckDestroy:             fotaOnServer(t, e, "1.1.0", "pending", dev), // only forgotten
		Steps: []resource.TestStep{
			{
				Config: config("1.0.0", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(dev)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("pending")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("scheduled_at"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(dev)})),
				},
				Check: fotaOnServer(t, e, "1.0.0", "pending", dev),
			},
			{
				// The device reports the update done: seen on refresh.
				PreConfig: func() {
					if err := e.Server.SetFOTAStatus(dev, "done"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("1.0.0", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("done")),
				},
			},
			{
				// A new version is scheduled in place.
				Config: config("1.1.0", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("status")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("pending")),
				},
				Check: fotaOnServer(t, e, "1.1.0", "pending", dev),
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateId:     dev,
				ImportStateVerify: true,
			},
			{
				// Another update scheduled outside Terraform: the refresh
				// keeps this resource's firmware (with a warning naming what
				// the device holds), so the plan is empty and 1.1.0 is not
				// sent a second time; the device keeps 0.9.0.
				PreConfig: func() {
					if _, err := acctest.APIClient(t, e).ScheduleFOTA(context.Background(), dev, "fw-sensor", "0.9.0"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("1.1.0", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("firmware_version"), knownvalue.StringExact("1.1.0")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status_counts"), knownvalue.MapExact(map[string]knownvalue.Check{
						"replaced": knownvalue.Int64Exact(1)})),
				},
				Check: fotaOnServer(t, e, "0.9.0", "pending", dev),
			},
			{
				// Triggers schedule the same version again.
				PreConfig: func() {
					if err := e.Server.SetFOTAStatus(dev, "failed"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("1.1.0", `triggers = { attempt = "2" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("pending")),
				},
			},
		},
	})
}

func TestAccFotaResourceFleets(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	fleetA, devsA := acctest.NewFleetWithDevices(t, e, "east", "east-1", "east-2")
	fleetB, devsB := acctest.NewFleetWithDevices(t, e, "west", "west-1")
	other := acctest.NewDevices(t, e, "spare")[0] // in the default fleet
	const addr = "zdm_fota.fleets"
	both := fmt.Sprintf("fleet_ids = [%q, %q]", fleetA, fleetB)
	all := append(append(slices.Clone(devsA), devsB...), other)
	config := func(fleets, version string) string {
		return e.Config(fmt.Sprintf(`
resource "zdm_fota" "fleets" {
  workspace_id     = %q
  %s
  firmware_id      = "fw-sensor"
  firmware_version = %q
}

data "zdm_fota_status" "west" {
  device_id  = %q
  depends_on = [zdm_fota.fleets]
}

data "zdm_fota_status" "spare" {
  device_id  = %q
  depends_on = [zdm_fota.fleets]
}
`, ws, fleets, version, devsB[0], other))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config(both, "2.0.0"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(ws+"/fw-sensor/2.0.0")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices"), stringSetExact(append(slices.Clone(devsA), devsB...)...)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("pending")),
					statecheck.ExpectKnownValue("data.zdm_fota_status.west", tfjsonpath.New("firmware_version"),
						knownvalue.StringExact("2.0.0")),
					statecheck.ExpectKnownValue("data.zdm_fota_status.spare", tfjsonpath.New("scheduled"), knownvalue.Bool(false)),
				},
				Check: resource.ComposeTestCheckFunc(
					fotaOnServer(t, e, "2.0.0", "pending", append(slices.Clone(devsA), devsB...)...),
					func(*terraform.State) error {
						if _, err := acctest.APIClient(t, e).GetFOTA(context.Background(), other); err == nil {
							return fmt.Errorf("device %s of another fleet got the update", other)
						}
						return nil
					},
				),
			},
			{
				// Fewer fleets: nothing is sent; the devices keep the update.
				PreConfig: func() { e.Server.ResetCounters() },
				Config:    config(fmt.Sprintf("fleet_ids = [%q]", fleetA), "2.0.0"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices"), stringSetExact(append(slices.Clone(devsA), devsB...)...)),
				},
				Check: func(*terraform.State) error {
					if n := e.Server.Counters()[acctest.FleetFOTAPOST]; n != 0 {
						return fmt.Errorf("%d fleet-wide updates sent for a removed fleet, want 0", n)
					}
					return nil
				},
			},
			{
				// all_fleets: every fleet of the workspace.
				Config: config("all_fleets = true", "2.1.0"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices"), stringSetExact(all...)),
				},
				Check: fotaOnServer(t, e, "2.1.0", "pending", all...),
			},
			{
				// No fleet-wide read: refresh keeps the state, and the plan is empty.
				PreConfig: func() {
					if err := e.Server.SetFOTAStatus(other, "done"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("all_fleets = true", "2.1.0"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.zdm_fota_status.spare", tfjsonpath.New("status"),
						knownvalue.StringExact("done")),
				},
			},
		},
	})
}

func TestAccFotaResourceInvalid(t *testing.T) {
	e := acctest.NewEnv(t)
	before := e.Server.TotalRequests()
	step := func(body, want string) resource.TestStep {
		return resource.TestStep{
			Config: e.Config("resource \"zdm_fota\" \"x\" {\n  firmware_id = \"fw\"\n  firmware_version = \"1\"\n" +
				body + "\n}\n"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			step(``, `(?s)Exactly one of these attributes must be configured: \[device_id,workspace_id\]`),
			step(`
device_id    = "dev-1"
workspace_id = "wks-1"`, `(?s)Exactly one of these attributes must be configured: \[device_id,workspace_id\]`),
			step(`
device_id = "dev-1"
fleet_ids = ["flt-1"]`, `(?s)Invalid Attribute Combination.*cannot be configured together: \[device_id,fleet_ids\]`),
			step(`
workspace_id = "wks-1"
fleet_ids    = []`, `(?s)Attribute fleet_ids set must contain at least 1 elements`),
			step(`
workspace_id = "wks-1"
fleet_ids    = [""]`, `(?s)fleet_ids.*string length must be at least 1`),
			step(`device_id = "  "`, `(?s)Blank value.*device_id`),
			{
				Config:      e.Config("resource \"zdm_fota\" \"x\" {\n  device_id = \"d\"\n  firmware_id = \"\"\n  firmware_version = \"1\"\n}\n"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Attribute firmware_id string length must be at least 1`),
			},
		},
	})
	acctest.ExpectNoRequests(t, e, before)
}
