package fleets_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

func TestAccFleetStatusDataSource(t *testing.T) {
	e := acctest.NewEnv(t)
	ctx := context.Background()
	c := acctest.APIClient(t, e)
	fleetA, a := acctest.NewFleetDevices(t, e, "a", 4)
	fleetB, b := acctest.NewFleetDevices(t, e, "b", 2)
	if _, err := c.ScheduleFleetFOTA(ctx, e.Bootstrap.WorkspaceID, "fw", "2.0", []string{fleetA}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ScheduleFOTA(ctx, b[0], "fw", "1.0"); err != nil {
		t.Fatal(err)
	}
	// b[0] finished another firmware: it must not count as done for 2.0.
	if err := e.Server.SetFOTAStatus(b[0], "done"); err != nil {
		t.Fatal(err)
	}
	for i, st := range []string{"done", "done", "failed"} {
		if err := e.Server.SetFOTAStatus(a[i], st); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.ScheduleJob(ctx, b[1], "reboot", []byte(`{"delay": 5}`)); err != nil {
		t.Fatal(err)
	}

	config := e.Config(fmt.Sprintf(`
data "zdm_fleet_status" "fota" {
  fota             = true
  firmware_id      = "fw"
  firmware_version = "2.0"
  parallelism      = 2
}
data "zdm_fleet_status" "job" {
  job_name  = "reboot"
  fleet_ids = [%q]
}
data "zdm_fleet_status" "one" {
  fota       = true
  device_ids = [%q]
}
`, fleetB, a[3]))
	const fota, job, one = "data.zdm_fleet_status.fota", "data.zdm_fleet_status.job", "data.zdm_fleet_status.one"
	first := func(attr string) tfjsonpath.Path {
		return tfjsonpath.New("devices").AtSliceIndex(0).AtMapKey(attr)
	}
	// Every device of the workspace, in ID order; a[0] is at index ia.
	all := slices.Sorted(slices.Values(append(slices.Clone(a), b...)))
	ia := slices.Index(all, a[0])
	ofA := func(attr string) tfjsonpath.Path { return tfjsonpath.New("devices").AtSliceIndex(ia).AtMapKey(attr) }
	ids := make([]knownvalue.Check, len(all))
	for i, id := range all {
		ids[i] = knownvalue.ObjectPartial(map[string]knownvalue.Check{"device_id": knownvalue.StringExact(id)})
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					// Every device of the workspace (the provider's default): the 4
					// of A, the 2 of B; the default fleet is empty.
					statecheck.ExpectKnownValue(fota, tfjsonpath.New("workspace_id"), knownvalue.StringExact(e.Bootstrap.WorkspaceID)),
					statecheck.ExpectKnownValue(fota, tfjsonpath.New("device_count"), knownvalue.Int64Exact(6)),
					statecheck.ExpectKnownValue(fota, tfjsonpath.New("parallelism"), knownvalue.Int64Exact(2)),
					// Of firmware 2.0 only: b[0], done with 1.0, is not counted.
					statecheck.ExpectKnownValue(fota, tfjsonpath.New("status_counts"), knownvalue.MapExact(map[string]knownvalue.Check{
						"done": knownvalue.Int64Exact(2), "failed": knownvalue.Int64Exact(1), "pending": knownvalue.Int64Exact(1),
					})),
					statecheck.ExpectKnownValue(fota, tfjsonpath.New("firmware_counts"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{"firmware_id": knownvalue.StringExact("fw"),
							"firmware_version": knownvalue.StringExact("1.0"), "devices": knownvalue.Int64Exact(1)}),
						knownvalue.ObjectExact(map[string]knownvalue.Check{"firmware_id": knownvalue.StringExact("fw"),
							"firmware_version": knownvalue.StringExact("2.0"), "devices": knownvalue.Int64Exact(4)}),
					})),
					// Not on fw 2.0: b[0] (on 1.0) and b[1] (never updated), in ID order.
					statecheck.ExpectKnownValue(fota, tfjsonpath.New("missing_device_ids"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact(b[0]), knownvalue.StringExact(b[1]),
					})),
					statecheck.ExpectKnownValue(fota, tfjsonpath.New("devices"), knownvalue.ListExact(ids)),
					statecheck.ExpectKnownValue(fota, ofA("status"), knownvalue.StringExact("done")),
					statecheck.ExpectKnownValue(fota, ofA("firmware_version"), knownvalue.StringExact("2.0")),
					statecheck.ExpectKnownValue(fota, ofA("fleet_id"), knownvalue.StringExact(fleetA)),
					statecheck.ExpectKnownValue(fota, ofA("scheduled_at"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(fota, ofA("value"), knownvalue.Null()),

					// The job, on fleet B only: b[1] has it, b[0] never got it.
					statecheck.ExpectKnownValue(job, tfjsonpath.New("parallelism"), knownvalue.Int64Exact(16)),
					statecheck.ExpectKnownValue(job, tfjsonpath.New("device_count"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(job, tfjsonpath.New("status_counts"), knownvalue.MapExact(map[string]knownvalue.Check{
						"pending": knownvalue.Int64Exact(1),
					})),
					statecheck.ExpectKnownValue(job, tfjsonpath.New("missing_device_ids"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact(b[0]),
					})),
					statecheck.ExpectKnownValue(job, tfjsonpath.New("firmware_counts"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue(job, first("scheduled"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(job, first("status"), knownvalue.Null()),
					statecheck.ExpectKnownValue(job, tfjsonpath.New("devices").AtSliceIndex(1).AtMapKey("value"),
						knownvalue.StringExact(`{"delay":5}`)),
					statecheck.ExpectKnownValue(job, tfjsonpath.New("devices").AtSliceIndex(1).AtMapKey("status"),
						knownvalue.StringExact("pending")),

					statecheck.ExpectKnownValue(one, tfjsonpath.New("device_count"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue(one, first("status"), knownvalue.StringExact("pending")),
				},
			},
			{
				// A change on the devices shows at the next read.
				PreConfig: func() {
					if err := e.Server.SetJobStatus(b[1], "reboot", "done"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(job, tfjsonpath.New("status_counts"), knownvalue.MapExact(map[string]knownvalue.Check{
						"done": knownvalue.Int64Exact(1),
					})),
				},
			},
			{
				Config: e.Config(`data "zdm_fleet_status" "x" {
  fleet_ids = ["flt-nope"]
  fota = true
}`),
				ExpectError: regexp.MustCompile(`(?s)has no fleet flt-nope.*Check fleet_ids`),
			},
			{
				Config: e.Config(`data "zdm_fleet_status" "x" {
  device_ids = ["dev-nope"]
  job_name = "j"
}`),
				ExpectError: regexp.MustCompile(`has no device dev-nope`),
			},
			{
				Config:      e.Config(`data "zdm_fleet_status" "x" { }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Missing job_name or fota`),
			},
			{
				Config: e.Config(`data "zdm_fleet_status" "x" {
  job_name = "j"
  fota = true
}`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Conflicting job_name and fota`),
			},
			{
				Config: e.Config(`data "zdm_fleet_status" "x" {
  fota = true
  parallelism = 0
}`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)parallelism.*must be between 1 and 64`),
			},
			{
				Config: e.Config(`data "zdm_fleet_status" "x" {
  fota = true
  fleet_ids = []
}`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)fleet_ids.*at least 1`),
			},
			{
				Config: e.Config(`data "zdm_fleet_status" "x" {
  fota = true
  firmware_id = "fw"
}`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)firmware_version.*must be specified`),
			},
			{
				Config: config,
			},
		},
	})
}

// TestAccFleetStatusDataSourceThousand reads a fleet of 1,000 devices on
// the CLI: one list, then one GET per device per read.
func TestAccFleetStatusDataSourceThousand(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, e, "big", 1000)
	ctx := context.Background()
	// The devices answer at once; a seeded tenth of them fail.
	err := e.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, FailureFraction: 0.1, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acctest.APIClient(t, e).ScheduleFleetFOTA(ctx, e.Bootstrap.WorkspaceID, "fw", "3.0", []string{fleet}); err != nil {
		t.Fatal(err)
	}
	const addr = "data.zdm_fleet_status.big"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { e.Server.ResetCounters() },
				Config: e.Config(fmt.Sprintf(`
data "zdm_fleet_status" "big" {
  fleet_ids        = [%q]
  fota             = true
  firmware_id      = "fw"
  firmware_version = "3.0"
  parallelism      = 32
}
`, fleet)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("device_count"), knownvalue.Int64Exact(1000)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices"), knownvalue.ListSizeExact(1000)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status_counts"), knownvalue.MapExact(map[string]knownvalue.Check{
						"done": knownvalue.Int64Exact(900), "failed": knownvalue.Int64Exact(100),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("missing_device_ids"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices").AtSliceIndex(999).AtMapKey("device_id"),
						knownvalue.StringExact(ids[999])),
				},
				Check: func(*terraform.State) error {
					// Every read of the data source costs one list of devices,
					// one list of fleets and 1,000 GETs: the GETs are exactly
					// 1,000 per list.
					got := e.Server.Counters()
					lists := got["GET /v3/workspaces/{workspace_id}/devices"]
					gets := got["GET /v3/devices/{device_id}/fota"]
					if lists < 1 || gets != 1000*lists {
						return fmt.Errorf("%d device lists and %d firmware reads, want 1,000 reads per list (all: %v)", lists, gets, got)
					}
					return nil
				},
			},
		},
	})
}
