package jobs

import (
	"context"
	"fmt"
	"regexp"
	"slices"
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
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

func TestScheduledLater(t *testing.T) {
	t.Parallel()
	if !scheduling.ScheduledLater("2025-01-01T00:00:00.5Z", "2025-01-01T00:00:00Z") {
		t.Error("fractional seconds: not later")
	}
	if scheduling.ScheduledLater("2025-01-01T00:00:00Z", "2025-01-01T01:00:00+02:00") == false {
		t.Error("time zones: not later")
	}
}

func TestAccFleetJobResource(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	fleetA, devsA := acctest.NewFleetWithDevices(t, e, "east", "east-1", "east-2")
	fleetB, devsB := acctest.NewFleetWithDevices(t, e, "west", "west-1")
	spare := acctest.NewDevices(t, e, "spare")[0]
	ab := append(slices.Clone(devsA), devsB...)
	all := append(slices.Clone(ab), spare)
	const addr = "zdm_fleet_job.test"
	fleets := fmt.Sprintf("fleet_ids = [%q, %q]", fleetA, fleetB)
	config := func(name, value, extra string) string {
		return e.Config(fmt.Sprintf(`
resource "zdm_fleet_job" "test" {
  workspace_id = %q
  name         = %q
  value        = %s
  %s
}
`, ws, name, value, extra))
	}
	jobsOnServer := func(name, value string, devices ...string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			for _, dev := range devices {
				j, err := acctest.APIClient(t, e).GetJob(context.Background(), dev, name)
				if err != nil {
					return fmt.Errorf("device %s: %w", dev, err)
				}
				if !jsonvalue.Equal(string(j.Value), value) {
					return fmt.Errorf("device %s has %s, want %s", dev, j.Value, value)
				}
			}
			return nil
		}
	}
	sameID := statecheck.CompareValue(compare.ValuesSame())
	newSchedule := statecheck.CompareValue(compare.ValuesDiffer())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config("configure", `jsonencode({ level = 1 })`, fleets),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("workspace_id"), knownvalue.StringExact(ws)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(ws+"/configure")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices"), knownvalue.ListExact(stringChecks(slices.Sorted(slices.Values(ab))))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("scheduled_at"), knownvalue.NotNull()),
					sameID.AddStateValue(addr, tfjsonpath.New("id")),
					newSchedule.AddStateValue(addr, tfjsonpath.New("scheduled_at")),
				},
				Check: resource.ComposeTestCheckFunc(
					jobsOnServer("configure", `{"level":1}`, ab...),
					func(*terraform.State) error {
						if _, err := acctest.APIClient(t, e).GetJob(context.Background(), spare, "configure"); !client.IsNotFound(err) {
							return fmt.Errorf("device %s of another fleet: %v", spare, err)
						}
						return nil
					},
				),
			},
			{
				// Devices run the job; there is no fleet-wide read, and
				// reformatted JSON plans nothing.
				PreConfig: func() {
					if err := e.Server.SetJobStatus(devsA[0], "configure", client.JobStatusDone); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("configure", "\"{ \\\"level\\\" : 1 }\"", fleets),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// A new value: scheduled again in place.
				Config: config("configure", `jsonencode({ level = 2 })`, fleets),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(addr, tfjsonpath.New("id")),
					newSchedule.AddStateValue(addr, tfjsonpath.New("scheduled_at")),
				},
				Check: jobsOnServer("configure", `{"level":2}`, ab...),
			},
			{
				// all_fleets: every fleet of the workspace.
				Config: config("configure", `jsonencode({ level = 2 })`, "all_fleets = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices"), knownvalue.ListExact(stringChecks(slices.Sorted(slices.Values(all))))),
				},
				Check: jobsOnServer("configure", `{"level":2}`, all...),
			},
			{
				Config: config("configure", `jsonencode({ level = 2 })`, "all_fleets = true\n"+`triggers = { run = "2" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					newSchedule.AddStateValue(addr, tfjsonpath.New("scheduled_at")),
				},
			},
			{
				// The import rebuilds devices, value and scheduled_at from the
				// devices' jobs; triggers are unknown to the service.
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           ws + "/configure",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"triggers"},
			},
			{
				// A new name replaces the resource; the old jobs stay.
				Config: config("calibrate", `jsonencode({})`, fleets),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
				Check: resource.ComposeTestCheckFunc(
					jobsOnServer("configure", `{"level":2}`, all...),
					jobsOnServer("calibrate", `{}`, ab...),
				),
			},
		},
	})
}

// stringChecks checks each string exactly.
func stringChecks(items []string) []knownvalue.Check {
	checks := make([]knownvalue.Check, len(items))
	for i, s := range items {
		checks[i] = knownvalue.StringExact(s)
	}
	return checks
}

func TestAccFleetJobResourceInvalid(t *testing.T) {
	e := acctest.NewEnv(t)
	before := e.Server.TotalRequests()
	step := func(body, want string) resource.TestStep {
		return resource.TestStep{
			Config:      e.Config("resource \"zdm_fleet_job\" \"x\" {\n" + body + "\n}\n"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			step(`
workspace_id = "w"
all_fleets   = true
name         = "x"
value        = "[]"`, `(?s)Invalid JSON in value.*must be a JSON object`),
			step(`
workspace_id = "w"
name         = "x"
fleet_ids    = []`, `(?s)Attribute fleet_ids set must contain at least 1 elements`),
			step(`
workspace_id = "w"
all_fleets   = true
name         = "  "`, `(?s)Blank value.*name`),
			step(`
name       = "x"
all_fleets = true`, `(?s)Missing required argument.*"workspace_id" is required`),
			step(`
workspace_id = "w"
name         = "x"`, `(?s)Missing fleet_ids.*all_fleets\s+=\s+true`),
			step(`
name         = "x"
all_fleets   = true
workspace_id = ""`, `(?s)Attribute workspace_id string length must be at least 1`),
			{
				Config:        e.Config("resource \"zdm_fleet_job\" \"x\" {\n  workspace_id = \"w\"\n  all_fleets = true\n  name = \"n\"\n}\n"),
				ResourceName:  "zdm_fleet_job.x",
				ImportState:   true,
				ImportStateId: "no-separator",
				ExpectError:   regexp.MustCompile(`(?s)Invalid import ID.*"<workspace_id>/<job_name>"`),
			},
		},
	})
	acctest.ExpectNoRequests(t, e, before)
}
