package jobs

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/client"
)

func TestAccDeviceJobsDataSources(t *testing.T) {
	e := acctest.NewEnv(t)
	dev := acctest.NewDevices(t, e, "sensor")[0]
	acctest.ScheduleJob(t, e, dev, "reboot", `{}`)
	acctest.ScheduleJob(t, e, dev, "config", `{ "level": 3, "mode": "eco" }`)
	if err := e.Server.SetJobStatus(dev, "reboot", client.JobStatusDone); err != nil {
		t.Fatal(err)
	}
	job := func(name, status, value string) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"name": knownvalue.StringExact(name), "status": knownvalue.StringExact(status),
			"scheduled_at": knownvalue.NotNull(), "value": knownvalue.StringExact(value),
		})
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: e.Config(fmt.Sprintf(`
data "zdm_device_jobs" "all" {
  device_id = %[1]q
}
data "zdm_device_jobs" "pending" {
  device_id = %[1]q
  status    = "pending"
}
data "zdm_device_jobs" "done" {
  device_id = %[1]q
  status    = "done"
}
data "zdm_device_job" "config" {
  device_id = %[1]q
  name      = "config"
}
`, dev)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.zdm_device_jobs.all", tfjsonpath.New("jobs"), knownvalue.ListExact([]knownvalue.Check{
						job("config", "pending", `{"level":3,"mode":"eco"}`), job("reboot", "done", `{}`),
					})),
					statecheck.ExpectKnownValue("data.zdm_device_jobs.pending", tfjsonpath.New("jobs"), knownvalue.ListExact([]knownvalue.Check{
						job("config", "pending", `{"level":3,"mode":"eco"}`),
					})),
					statecheck.ExpectKnownValue("data.zdm_device_jobs.done", tfjsonpath.New("jobs"), knownvalue.ListExact([]knownvalue.Check{
						job("reboot", "done", `{}`),
					})),
					statecheck.ExpectKnownValue("data.zdm_device_job.config", tfjsonpath.New("status"), knownvalue.StringExact("pending")),
					statecheck.ExpectKnownValue("data.zdm_device_job.config", tfjsonpath.New("value"), knownvalue.StringExact(`{"level":3,"mode":"eco"}`)),
					statecheck.ExpectKnownValue("data.zdm_device_job.config", tfjsonpath.New("scheduled_at"), knownvalue.NotNull()),
				},
			},
			{
				Config:      e.Config(`data "zdm_device_jobs" "x" { device_id = "dev-missing" }`),
				ExpectError: regexp.MustCompile(`(?s)Device not found.*"dev-missing"`),
			},
			{
				Config:      e.Config(`data "zdm_device_job" "x" {` + fmt.Sprintf("\ndevice_id = %q\n", dev) + `name = "nothing"` + "\n}"),
				ExpectError: regexp.MustCompile(`(?s)Job not found.*no job named "nothing"`),
			},
			{
				Config: e.Config(`
data "zdm_device_job" "x" {
  device_id = "dev-missing"
  name      = "reboot"
}
`),
				ExpectError: regexp.MustCompile(`(?s)Device not found.*"dev-missing"`),
			},
			{
				// The destroy at the end of the test runs with the last configuration.
				Config: e.Config(fmt.Sprintf(`data "zdm_device_jobs" "all" { device_id = %q }`, dev)),
			},
		},
	})
}

func TestAccDeviceJobsDataSourcesInvalid(t *testing.T) {
	e := acctest.NewEnv(t)
	before := e.Server.TotalRequests()
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: e.Config(`
data "zdm_device_jobs" "x" {
  device_id = "dev-1"
  status    = "running"
}
`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Attribute status value must be one of.*"running"`),
			},
			{
				Config:      e.Config(`data "zdm_device_jobs" "x" { device_id = " " }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Blank value.*device_id`),
			},
			{
				Config: e.Config(`
data "zdm_device_job" "x" {
  device_id = "dev-1"
  name      = ""
}
`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Attribute name string length must be at least 1`),
			},
		},
	})
	acctest.ExpectNoRequests(t, e, before)
}
