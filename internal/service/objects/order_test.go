package objects

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/client"
)

func TestSortDevicesByNameThenID(t *testing.T) {
	t.Parallel()
	devices := []client.Device{
		{ID: "dev-9", Name: "b"}, {ID: "dev-3", Name: "a"}, {ID: "dev-1", Name: "b"}, {ID: "dev-2", Name: "A"},
	}
	SortDevices(devices)
	var got []string
	for _, d := range devices {
		got = append(got, d.Name+"/"+d.ID)
	}
	if want := "A/dev-2 a/dev-3 b/dev-1 b/dev-9"; strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
	jobs := []client.Job{{Name: "zeta"}, {Name: "alpha"}, {Name: "mid"}}
	SortJobs(jobs)
	if jobs[0].Name != "alpha" || jobs[1].Name != "mid" || jobs[2].Name != "zeta" {
		t.Errorf("jobs order %v", jobs)
	}
}

// TestAccListsSortedUnderShuffle reads zdm_workspaces, zdm_fleets,
// zdm_devices and zdm_device_jobs from a server that answers every list in a
// new order: the lists come sorted (by name then ID; jobs by name), and
// outputs built from them plan no change on later refreshes. Objects are
// created out of band in an order that is not sorted, with duplicate names,
// so the service's order (creation order without the switch) differs from
// the sorted one.
func TestAccListsSortedUnderShuffle(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	c := acctest.APIClient(t, e)
	ctx := t.Context()
	for _, n := range []string{"zulu", "alpha", "mike", "alpha"} {
		if _, err := c.CreateFleet(ctx, ws, n, ""); err != nil {
			t.Fatal(err)
		}
	}
	devs, err := e.Server.CreateDevices(ws, "", []string{"sensor-c", "sensor-a", "sensor-b", "sensor-a", "gateway"})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []string{"zeta", "alpha", "mid", "beta"} {
		if _, err := c.ScheduleJob(ctx, devs[0], j, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"ws-z", "ws-a", "ws-m"} {
		if _, err := e.Server.CreateWorkspace(e.Bootstrap.AccountID, n); err != nil {
			t.Fatal(err)
		}
	}
	choices, err := acctest.EnvChoices()
	if err != nil {
		t.Fatal(err)
	}
	choices.ShuffleLists = true
	if err := e.Server.SetChoices(choices); err != nil {
		t.Fatal(err)
	}
	config := e.Config(fmt.Sprintf(`
data "zdm_workspaces" "all" {}
data "zdm_fleets" "all" {}
data "zdm_devices" "all" {}
data "zdm_devices" "sensors" {
  name_prefix = "sensor-"
}
data "zdm_device_jobs" "all" {
  device_id = %q
}
output "workspaces" {
  value = data.zdm_workspaces.all.workspaces[*].id
}
output "fleets" {
  value = data.zdm_fleets.all.fleets[*].id
}
output "devices" {
  value = data.zdm_devices.all.devices[*].id
}
output "jobs" {
  value = data.zdm_device_jobs.all.jobs[*].name
}
`, devs[0]))
	noChange := resource.TestStep{
		Config: config,
		ConfigPlanChecks: resource.ConfigPlanChecks{
			PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
		},
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(
					checkSorted("data.zdm_workspaces.all", "workspaces", "name", "id"),
					checkSorted("data.zdm_fleets.all", "fleets", "name", "id"),
					checkSorted("data.zdm_devices.all", "devices", "name", "id"),
					checkSorted("data.zdm_devices.sensors", "devices", "name", "id"),
					checkSorted("data.zdm_device_jobs.all", "jobs", "name"),
					resource.TestCheckResourceAttr("data.zdm_workspaces.all", "workspaces.#", "4"),
					resource.TestCheckResourceAttr("data.zdm_fleets.all", "fleets.#", "5"),
					resource.TestCheckResourceAttr("data.zdm_devices.all", "devices.#", "5"),
					resource.TestCheckResourceAttr("data.zdm_devices.sensors", "devices.#", "4"),
					resource.TestCheckResourceAttr("data.zdm_device_jobs.all", "jobs.#", "4"),
					resource.TestCheckResourceAttr("data.zdm_device_jobs.all", "jobs.0.name", "alpha"),
					resource.TestCheckResourceAttr("data.zdm_devices.all", "devices.0.name", "gateway"),
				),
			},
			noChange, noChange, noChange,
		},
	})
	if n := e.Server.Counters()["GET /v3/workspaces/{workspace_id}/devices"]; n < 4 {
		t.Errorf("%d device lists, want at least 4 (one per refresh)", n)
	}
}

// checkSorted checks that the objects of the list attribute of the data
// source at addr are sorted by the given keys (each compared as a string).
func checkSorted(addr, list string, keys ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		attrs := rs.Primary.Attributes
		var n int
		if _, err := fmt.Sscan(attrs[list+".#"], &n); err != nil {
			return fmt.Errorf("%s.%s.#: %w", addr, list, err)
		}
		key := func(i int) []string {
			k := make([]string, len(keys))
			for j, name := range keys {
				k[j] = attrs[fmt.Sprintf("%s.%d.%s", list, i, name)]
			}
			return k
		}
		for i := 1; i < n; i++ {
			a, b := key(i-1), key(i)
			if strings.Join(a, "\x00") > strings.Join(b, "\x00") {
				return fmt.Errorf("%s.%s not sorted by %v: %v before %v", addr, list, keys, a, b)
			}
		}
		return nil
	}
}

// TestSortedJSON: job values read the same whatever order the service
// echoes their keys in; numbers and strings keep their text.
