package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
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
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

func TestParseDeviceJobID(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string][2]string{
		"dev-1/reboot":     {"dev-1", "reboot"},
		"dev-1/fw/install": {"dev-1", "fw/install"},
	} {
		dev, name, err := objects.ParseDeviceJobID(raw)
		if err != nil || dev != want[0] || name != want[1] {
			t.Errorf("parseDeviceJobID(%q) = %q, %q, %v", raw, dev, name, err)
		}
	}
	for _, raw := range []string{"", "dev-1", "dev-1/", "/reboot", " /reboot"} {
		if _, _, err := objects.ParseDeviceJobID(raw); err == nil {
			t.Errorf("parseDeviceJobID(%q) succeeded", raw)
		}
	}
}

func TestJSONEqual(t *testing.T) {
	t.Parallel()
	equal := [][2]string{
		{`{"a":1,"b":[1,2]}`, "{ \"b\": [1, 2],\n \"a\": 1 }"},
		{`{"n":1}`, `{"n":1.0}`},
		{`{"n":100}`, `{"n":1e2}`},
		{`{"big":12345678901234567890}`, `{"big":12345678901234567890}`},
		{`{}`, ` {} `},
		// float64, as the service keeps numbers.
		{`{"big":12345678901234567890}`, `{"big":12345678901234567891}`},
	}
	for _, c := range equal {
		if !jsonvalue.Equal(c[0], c[1]) {
			t.Errorf("jsonvalue.Equal(%s, %s) = false", c[0], c[1])
		}
	}
	different := [][2]string{
		{`{"a":1}`, `{"a":"1"}`},
		{`{"big":12345678901234567890}`, `{"big":12345678901234569890}`},
		{`{"a":[1,2]}`, `{"a":[2,1]}`},
		{`{"a":1}`, `{"a":1,"b":null}`},
		{`{"a":1}`, `not json`},
		{`{"a":1} {}`, `{"a":1}`},
	}
	for _, c := range different {
		if jsonvalue.Equal(c[0], c[1]) {
			t.Errorf("jsonvalue.Equal(%s, %s) = true", c[0], c[1])
		}
	}
}

func TestCompactJSONObject(t *testing.T) {
	t.Parallel()
	if got, err := jsonvalue.CompactObject(" { \"b\" : 1, \"a\": [ 1 ] } "); err != nil || string(got) != `{"b":1,"a":[1]}` {
		t.Errorf("jsonvalue.CompactObject = %s, %v", got, err)
	}
	for _, bad := range []string{``, `[1]`, `"s"`, `{"a":}`, `{"a":1} x`, `null`} {
		if _, err := jsonvalue.CompactObject(bad); err == nil {
			t.Errorf("jsonvalue.CompactObject(%q) succeeded", bad)
		}
	}
}

// jobOnServer checks the job the service has.
func jobOnServer(t *testing.T, e *acctest.Env, dev, name, status, value string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		j, err := acctest.APIClient(t, e).GetJob(context.Background(), dev, name)
		if err != nil {
			return err
		}
		if j.Status != status || !jsonvalue.Equal(string(j.Value), value) {
			return fmt.Errorf("job %s on %s is %s with %s, want %s with %s", name, dev, j.Status, j.Value, status, value)
		}
		return nil
	}
}

func TestAccDeviceJobResource(t *testing.T) {
	e := acctest.NewEnv(t)
	dev := acctest.NewDevices(t, e, "sensor")[0]
	const addr = "zdm_device_job.test"
	config := func(name, value, extra string) string {
		return e.Config(fmt.Sprintf(`
resource "zdm_device_job" "test" {
  device_id = %q
  name      = %q
  value     = %s
  %s
}
`, dev, name, value, extra))
	}
	sameID := statecheck.CompareValue(compare.ValuesSame())
	newSchedule := statecheck.CompareValue(compare.ValuesDiffer())
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		CheckDestroy: func(*terraform.State) error {
			// Destroy only forgets: the job stays in the service.
			_, err := acctest.APIClient(t, e).GetJob(context.Background(), dev, "calibrate")
			return err
		},
		Steps: []resource.TestStep{
			{
				Config: config("configure", `jsonencode({ level = 3, mode = "eco" })`, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("value"), knownvalue.StringExact(`{"level":3,"mode":"eco"}`)),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("status")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(dev+"/configure")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("pending")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("scheduled_at"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("value"), knownvalue.StringExact(`{"level":3,"mode":"eco"}`)),
					sameID.AddStateValue(addr, tfjsonpath.New("id")),
					newSchedule.AddStateValue(addr, tfjsonpath.New("scheduled_at")),
				},
				Check: jobOnServer(t, e, dev, "configure", "pending", `{"level":3,"mode":"eco"}`),
			},
			{
				// The device runs the job: the refresh shows it done, and
				// nothing is planned.
				PreConfig: func() {
					if err := e.Server.SetJobStatus(dev, "configure", client.JobStatusDone); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("configure", `jsonencode({ level = 3, mode = "eco" })`, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("done")),
				},
			},
			{
				// The same JSON written differently plans nothing.
				Config: config("configure", "<<-EOT\n    {\n      \"mode\" : \"eco\",\n      \"level\": 3.0\n    }\n  EOT", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("value"), knownvalue.StringExact(`{"level":3,"mode":"eco"}`)),
				},
			},
			{
				// A new value schedules the job again, in place.
				Config: config("configure", `jsonencode({ level = 4 })`, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("status")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("pending")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("value"), knownvalue.StringExact(`{"level":4}`)),
					sameID.AddStateValue(addr, tfjsonpath.New("id")),
					newSchedule.AddStateValue(addr, tfjsonpath.New("scheduled_at")),
				},
				Check: jobOnServer(t, e, dev, "configure", "pending", `{"level":4}`),
			},
			{
				// Triggers schedule it again with the same value.
				PreConfig: func() {
					if err := e.Server.SetJobStatus(dev, "configure", client.JobStatusDone); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("configure", `jsonencode({ level = 4 })`, `triggers = { release = "v2" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("pending")),
					sameID.AddStateValue(addr, tfjsonpath.New("id")),
					newSchedule.AddStateValue(addr, tfjsonpath.New("scheduled_at")),
				},
			},
			{
				// The service does not know triggers: an import cannot restore them.
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           dev + "/configure",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"triggers"},
			},
			{
				// The job was scheduled again outside Terraform with another
				// value: the refresh keeps this resource's value (with a
				// warning naming what the device holds), so the plan is
				// empty and {"level":4} is not sent a second time.
				PreConfig: func() { acctest.ScheduleJob(t, e, dev, "configure", `{"level":9}`) },
				Config:    config("configure", `jsonencode({ level = 4 })`, `triggers = { release = "v2" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: jobOnServer(t, e, dev, "configure", "pending", `{"level":9}`),
			},
			{
				// A new name replaces the resource; the old job stays.
				Config: config("calibrate", `jsonencode({})`, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(dev+"/calibrate")),
				},
				Check: resource.ComposeTestCheckFunc(
					jobOnServer(t, e, dev, "configure", "pending", `{"level":9}`),
					jobOnServer(t, e, dev, "calibrate", "pending", `{}`),
				),
			},
			{
				// Without value the job is scheduled with {}: no change.
				Config: e.Config(fmt.Sprintf(`
resource "zdm_device_job" "test" {
  device_id = %q
  name      = "calibrate"
}
`, dev)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("value"), knownvalue.StringExact(`{}`)),
				},
			},
		},
	})
}

func TestAccDeviceJobResourceGone(t *testing.T) {
	e := acctest.NewEnv(t)
	dev := acctest.NewDevices(t, e, "sensor")[0]
	config := e.Config(fmt.Sprintf(`
resource "zdm_device_job" "test" {
  device_id = %q
  name      = "reboot"
}
`, dev))
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{Config: config},
			{
				// The device (with its jobs) disappears: the job leaves the
				// state, and the plan schedules it again.
				PreConfig: func() {
					if err := e.Server.DeleteDevice(dev); err != nil {
						t.Fatal(err)
					}
				},
				RefreshState:       true,
				ExpectNonEmptyPlan: true,
				RefreshPlanChecks: resource.RefreshPlanChecks{
					PostRefresh: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("zdm_device_job.test", plancheck.ResourceActionCreate),
					},
				},
			},
			{
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)Cannot schedule job "reboot" on device ` + dev + `.*404`),
			},
		},
	})
}

func TestAccDeviceJobResourceInvalid(t *testing.T) {
	e := acctest.NewEnv(t)
	before := e.Server.TotalRequests()
	step := func(body, want string) resource.TestStep {
		return resource.TestStep{
			Config:      e.Config("resource \"zdm_device_job\" \"x\" {\n" + body + "\n}\n"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			step(`
device_id = "dev-1"
name      = "x"
value     = "{not json"`, `(?s)Invalid JSON in value.*value is not valid JSON`),
			step(`
device_id = "dev-1"
name      = "x"
value     = jsonencode([1, 2])`, `(?s)Invalid JSON in value.*must be a JSON object`),
			step(`
device_id = "dev-1"
name      = "x"
value     = ""`, `(?s)Invalid JSON in value`),
			step(`
device_id = " "
name      = "x"`, `(?s)Blank value.*device_id`),
			step(`
device_id = "dev-1"
name      = ""`, `(?s)Attribute name string length must be at least 1`),
			{
				Config:        e.Config("resource \"zdm_device_job\" \"x\" {\n  device_id = \"d\"\n  name = \"n\"\n}\n"),
				ResourceName:  "zdm_device_job.x",
				ImportState:   true,
				ImportStateId: "no-separator",
				ExpectError:   regexp.MustCompile(`(?s)Invalid import ID.*"<device_id>/<job_name>"`),
			},
		},
	})
	acctest.ExpectNoRequests(t, e, before)
}

// TestAccDeviceJobImportValueNotEchoed imports a job by its string ID from
// a service that does not echo job values: the first apply records the
// configured value in place with a warning and sends nothing (status and
// scheduled_at unchanged), the plan after it is empty, and a change of
// triggers sends the job once (the positive control of the count).
func TestAccDeviceJobImportValueNotEchoed(t *testing.T) {
	e := acctest.NewEnv(t)
	choices, err := acctest.EnvChoices()
	if err != nil {
		t.Fatal(err)
	}
	choices.JobValue = localzdm.JobValueOmit
	if err := e.Server.SetChoices(choices); err != nil {
		t.Fatal(err)
	}
	dev := acctest.NewDevices(t, e, "valve")[0]
	api := acctest.APIClient(t, e)
	if _, err := api.ScheduleJob(t.Context(), dev, "configure", json.RawMessage(`{"interval":30}`)); err != nil {
		t.Fatal(err)
	}
	before, err := api.GetJob(t.Context(), dev, "configure")
	if err != nil {
		t.Fatal(err)
	}
	const routeScheduleJob = "POST /v3/devices/{device_id}/jobs/{job_name}"
	job := func(triggers string) string {
		return acctest.RequiredProviders + e.ProviderConfig() + fmt.Sprintf(`
import {
  to = zdm_device_job.test
  id = %q
}
resource "zdm_device_job" "test" {
  device_id = %q
  name      = "configure"
  value     = jsonencode({ interval = 30 })
  %s
}
`, dev+"/configure", dev, triggers)
	}
	c := acctest.NewCLI(t)
	c.Write("main.tf", job(""))
	c.MustRun("init", "-no-color")
	e.Server.ResetCounters()
	out := c.MustRun("apply", "-no-color", "-auto-approve")
	for _, want := range []string{"Resources: 1 imported, 0 added, 1 changed, 0 destroyed", "Job value recorded, not sent",
		"Change triggers to send it again"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) { // the CLI wraps warnings
			t.Errorf("apply: want %q in:\n%s", want, out)
		}
	}
	if n := e.Server.Counters()[routeScheduleJob]; n != 0 {
		t.Errorf("the import and its apply scheduled the job %d times, want 0", n)
	}
	after, err := api.GetJob(t.Context(), dev, "configure")
	if err != nil {
		t.Fatal(err)
	}
	if after.ScheduledAt != before.ScheduledAt || after.Status != before.Status {
		t.Errorf("the job was scheduled again: %s %s, then %s %s", before.Status, before.ScheduledAt, after.Status, after.ScheduledAt)
	}
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after the import is not empty (exit code %d):\n%s", code, out)
	}
	// A change of triggers sends it, once.
	c.Write("main.tf", job(`triggers = { release = "2" }`))
	c.MustRun("apply", "-no-color", "-auto-approve")
	if n := e.Server.Counters()[routeScheduleJob]; n != 1 {
		t.Errorf("a change of triggers scheduled the job %d times, want 1", n)
	}
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after the change of triggers is not empty (exit code %d):\n%s", code, out)
	}
}
