package jobs

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// jobsWith checks the job of devices in the service.
func jobsWith(t *testing.T, e *acctest.Env, name, status, value string, devices ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var errs []error
		for _, dev := range devices {
			errs = append(errs, jobOnServer(t, e, dev, name, status, value)(nil))
		}
		return errors.Join(errs...)
	}
}

func TestAccScheduleJobAction(t *testing.T) {
	e := acctest.NewEnv(t)
	dev := acctest.NewDevices(t, e, "sensor")[0]
	config := func(input, extra string) string {
		return e.Config(fmt.Sprintf(`
action "zdm_schedule_job" "configure" {
  config {
    device_id = %q
    name      = "configure"
    value     = jsonencode({ level = 2 })
    %s
  }
}
`, dev, extra) + acctest.TriggeredBy("action.zdm_schedule_job.configure", input))
	}
	var stop func()
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		TerraformVersionChecks:   acctest.ActionVersions,
		Steps: []resource.TestStep{
			{
				Config: config("1", ""),
				Check:  jobsWith(t, e, "configure", "pending", `{"level":2}`, dev),
			},
			{
				// Waits until the device runs the job.
				PreConfig: func() { stop = acctest.DoneInBackground(t, e, "configure", dev) },
				Config: config("2", `wait          = true
    timeout       = "30s"
    poll_interval = "100ms"`),
				Check: jobsWith(t, e, "configure", "done", `{"level":2}`, dev),
			},
			{
				// Nobody runs it: the action fails after the timeout, naming the device.
				PreConfig: func() { stop() },
				Config: config("3", `wait          = true
    timeout       = "1s"
    poll_interval = "200ms"`),
				ExpectError: acctest.Wrapped(`job "configure" is not done after 1s on 1 of 1 devices: ` + dev + ` (pending)`),
			},
			{
				Config: config("4", ""),
			},
		},
	})
}

func TestAccScheduleJobActionFleets(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	fleetA, devsA := acctest.NewFleetWithDevices(t, e, "east", "east-1", "east-2")
	fleetB, devsB := acctest.NewFleetWithDevices(t, e, "west", "west-1")
	spare := acctest.NewDevices(t, e, "spare")[0]
	ab := append(slices.Clone(devsA), devsB...)
	config := func(input string) string {
		return e.Config(fmt.Sprintf(`
action "zdm_schedule_job" "sync" {
  config {
    workspace_id  = %q
    fleet_ids     = [%q, %q]
    name          = "sync"
    wait          = true
    timeout       = "30s"
    poll_interval = "100ms"
  }
}
`, ws, fleetA, fleetB) + acctest.TriggeredBy("action.zdm_schedule_job.sync", input))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		TerraformVersionChecks:   acctest.ActionVersions,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { acctest.DoneInBackground(t, e, "sync", ab...) },
				Config:    config("1"),
				Check: resource.ComposeTestCheckFunc(
					jobsWith(t, e, "sync", "done", `{}`, ab...),
					func(*terraform.State) error {
						if _, err := acctest.APIClient(t, e).GetJob(context.Background(), spare, "sync"); !client.IsNotFound(err) {
							return fmt.Errorf("device %s of another fleet: %v", spare, err)
						}
						return nil
					},
				),
			},
		},
	})
}

func TestAccScheduleActionsInvalid(t *testing.T) {
	e := acctest.NewEnv(t)
	before := e.Server.TotalRequests()
	step := func(action, body, want string) resource.TestStep {
		return resource.TestStep{
			Config:      e.Config(fmt.Sprintf("action %q \"x\" {\n  config {\n%s\n  }\n}\n", action, body)),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}
	}
	job := func(body, want string) resource.TestStep {
		return step("zdm_schedule_job", "name = \"j\"\n"+body, want)
	}
	fota := func(body, want string) resource.TestStep {
		return step("zdm_schedule_fota", "firmware_id = \"fw\"\nfirmware_version = \"1\"\n"+body, want)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		TerraformVersionChecks:   acctest.ActionVersions,
		Steps: []resource.TestStep{
			job(``, `(?s)Exactly one of these attributes must be configured: \[device_id,workspace_id\]`),
			job(`device_id = "d"
workspace_id = "w"`, `(?s)Exactly one of these attributes must be configured: \[device_id,workspace_id\]`),
			job(`device_id = "d"
fleet_ids = ["f"]`, `(?s)cannot be configured together: \[device_id,fleet_ids\]`),
			job(`workspace_id = "w"
fleet_ids = []`, `(?s)Attribute fleet_ids set must contain at least 1 elements`),
			job(`workspace_id = "w"`, `(?s)Missing fleet_ids.*all_fleets\s+=\s+true`),
			fota(`workspace_id = "w"
all_fleets = false`, `(?s)Missing fleet_ids.*never\s+targets\s+every\s+fleet`),
			fota(`workspace_id = "w"
all_fleets = true
fleet_ids = ["f"]`, `(?s)Conflicting all_fleets and fleet_ids`),
			job(`device_id = "d"
all_fleets = true`, `(?s)cannot be configured together: \[device_id,all_fleets\]`),
			job(`device_id = "d"
value = "{\"a\":"`, `(?s)Invalid JSON in value.*not valid JSON`),
			job(`device_id = "d"
value = "[]"`, `(?s)Invalid JSON in value.*must be a JSON object`),
			step("zdm_schedule_job", `device_id = "d"
name = " "`, `(?s)Blank value.*name`),
			job(`device_id = "d"
wait = true
timeout = "5 minutes"`, `(?s)Invalid timeout.*not a duration`),
			job(`device_id = "d"
wait = true
timeout = "1s"
poll_interval = "2s"`, `(?s)Invalid poll_interval.*poll_interval \(2s\) must not be longer than timeout \(1s\)`),
			fota(`device_id = ""`, `(?s)Attribute device_id string length must be at least 1`),
			fota(`workspace_id = "w"
device_id = "d"`, `(?s)Exactly one of these attributes must be configured`),
			step("zdm_schedule_fota", `device_id = "d"
firmware_id = "fw"
firmware_version = ""`, `(?s)Attribute firmware_version string length must be at least 1`),
			fota(`device_id = "d"
wait = true
poll_interval = "0s"`, `(?s)Invalid poll_interval.*greater than zero`),
		},
	})
	acctest.ExpectNoRequests(t, e, before)
}
