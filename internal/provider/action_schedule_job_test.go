package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// actionVersions skips action tests below Terraform 1.14 (and on OpenTofu).
var actionVersions = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)}

// triggeredBy is a terraform_data resource that invokes the action after it
// is created and each time input changes.
func triggeredBy(action, input string) string {
	return fmt.Sprintf(`
resource "terraform_data" "trigger" {
  input = %q
  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [%s]
    }
  }
}
`, input, action)
}

// doneInBackground plays the devices: every 50ms it moves the job called
// name of each device (the firmware update when name is empty) from pending
// to done, until the returned function is called (at the latest when the
// test ends).
func doneInBackground(t *testing.T, e *acctest.Env, name string, devices ...string) func() {
	t.Helper()
	return moveInBackground(t, e, name, "done", devices...)
}

// moveInBackground is doneInBackground moving firmware updates to status.
func moveInBackground(t *testing.T, e *acctest.Env, name, status string, devices ...string) func() {
	t.Helper()
	c := apiClient(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			for _, dev := range devices {
				if name == "" {
					if f, err := c.GetFOTA(ctx, dev); err == nil && f.Status == "pending" {
						_ = e.Server.SetFOTAStatus(dev, status)
					}
				} else if j, err := c.GetJob(ctx, dev, name); err == nil && j.Status == client.JobStatusPending {
					_ = e.Server.SetJobStatus(dev, name, client.JobStatusDone)
				}
			}
		}
	})
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			wg.Wait()
		})
	}
	t.Cleanup(stop)
	return stop
}

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
	e := newEnv(t)
	dev := newDevices(t, e, "sensor")[0]
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
`, dev, extra) + triggeredBy("action.zdm_schedule_job.configure", input))
	}
	var stop func()
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		TerraformVersionChecks:   actionVersions,
		Steps: []resource.TestStep{
			{
				Config: config("1", ""),
				Check:  jobsWith(t, e, "configure", "pending", `{"level":2}`, dev),
			},
			{
				// Waits until the device runs the job.
				PreConfig: func() { stop = doneInBackground(t, e, "configure", dev) },
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
				ExpectError: wrapped(`job "configure" is not done after 1s on 1 of 1 devices: ` + dev + ` (pending)`),
			},
			{
				Config: config("4", ""),
			},
		},
	})
}

func TestAccScheduleJobActionFleets(t *testing.T) {
	e := newEnv(t)
	ws := e.Bootstrap.WorkspaceID
	fleetA, devsA := newFleetWithDevices(t, e, "east", "east-1", "east-2")
	fleetB, devsB := newFleetWithDevices(t, e, "west", "west-1")
	spare := newDevices(t, e, "spare")[0]
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
`, ws, fleetA, fleetB) + triggeredBy("action.zdm_schedule_job.sync", input))
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		TerraformVersionChecks:   actionVersions,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { doneInBackground(t, e, "sync", ab...) },
				Config:    config("1"),
				Check: resource.ComposeTestCheckFunc(
					jobsWith(t, e, "sync", "done", `{}`, ab...),
					func(*terraform.State) error {
						if _, err := apiClient(t, e).GetJob(context.Background(), spare, "sync"); !client.IsNotFound(err) {
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
	e := newEnv(t)
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
		TerraformVersionChecks:   actionVersions,
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
	expectNoRequests(t, e, before)
}
