package jobs

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// deviceJobFixture creates a device with the jobs "reboot" (done),
// "configure" and "calibrate" (pending), scheduled outside Terraform.
func deviceJobFixture(t *testing.T, e *acctest.Env) string {
	t.Helper()
	dev := acctest.NewDevices(t, e, "pump")[0]
	c := acctest.APIClient(t, e)
	for _, j := range []struct{ name, value string }{
		{"reboot", `{}`}, {"configure", `{"interval":30,"mode":"eco"}`}, {"calibrate", `{"offset":-1.5}`},
	} {
		if _, err := c.ScheduleJob(t.Context(), dev, j.name, json.RawMessage(j.value)); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Server.SetJobStatus(dev, "reboot", "done"); err != nil {
		t.Fatal(err)
	}
	return dev
}

func TestAccDeviceJobListResource(t *testing.T) {
	e := acctest.NewEnv(t)
	dev := deviceJobFixture(t, e)
	identity := func(name string) map[string]knownvalue.Check {
		return map[string]knownvalue.Check{"device_id": knownvalue.StringExact(dev), "name": knownvalue.StringExact(name)}
	}
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{Config: e.Config("")},
			{
				Query: true,
				Config: fmt.Sprintf(`
list "zdm_device_job" "all" {
  provider         = zdm
  include_resource = true
  config {
    device_id = %[1]q
  }
}

list "zdm_device_job" "pending" {
  provider = zdm
  config {
    device_id = %[1]q
    status    = "pending"
  }
}

list "zdm_device_job" "done" {
  provider = zdm
  config {
    device_id = %[1]q
    status    = "done"
  }
}

list "zdm_device_job" "limited" {
  provider = zdm
  limit    = 1
  config {
    device_id = %[1]q
  }
}
`, dev),
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("zdm_device_job.all", 3),
					querycheck.ExpectIdentity("zdm_device_job.all", identity("configure")),
					querycheck.ExpectResourceDisplayName("zdm_device_job.all", queryfilter.ByResourceIdentity(identity("configure")),
						knownvalue.StringExact("configure ("+dev+")")),
					querycheck.ExpectResourceKnownValues("zdm_device_job.all", queryfilter.ByResourceIdentity(identity("configure")),
						[]querycheck.KnownValueCheck{
							{Path: tfjsonpath.New("id"), KnownValue: knownvalue.StringExact(dev + "/configure")},
							{Path: tfjsonpath.New("device_id"), KnownValue: knownvalue.StringExact(dev)},
							{Path: tfjsonpath.New("name"), KnownValue: knownvalue.StringExact("configure")},
							{Path: tfjsonpath.New("value"), KnownValue: knownvalue.StringExact(`{"interval":30,"mode":"eco"}`)},
							{Path: tfjsonpath.New("status"), KnownValue: knownvalue.StringExact("pending")},
							{Path: tfjsonpath.New("scheduled_at"), KnownValue: knownvalue.NotNull()},
						}),
					querycheck.ExpectLength("zdm_device_job.pending", 2),
					querycheck.ExpectIdentity("zdm_device_job.pending", identity("calibrate")),
					querycheck.ExpectLength("zdm_device_job.done", 1),
					querycheck.ExpectIdentity("zdm_device_job.done", identity("reboot")),
					// Sorted by name: the first is "calibrate", whatever the service's order.
					querycheck.ExpectLength("zdm_device_job.limited", 1),
					querycheck.ExpectIdentity("zdm_device_job.limited", identity("calibrate")),
				},
			},
			{
				Query: true,
				Config: `
list "zdm_device_job" "unknown" {
  provider = zdm
  config {
    device_id = "dev-missing"
  }
}
`,
				ExpectError: acctest.Wrapped(`Device not found`),
			},
		},
	})
}

// TestAccDeviceJobQueryGenerateConfig adopts the jobs of a device in bulk
// with the real CLI: query -generate-config-out, an apply that imports
// them, and an empty plan after it.
func TestAccDeviceJobQueryGenerateConfig(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	c.SkipWithoutQuery()
	dev := deviceJobFixture(t, e)
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig())
	c.Write("jobs.tfquery.hcl", fmt.Sprintf(`
list "zdm_device_job" "pending" {
  provider = zdm
  config {
    device_id = %q
    status    = "pending"
  }
}
`, dev))
	c.MustRun("init", "-no-color")
	out := c.MustRun("query", "-no-color", "-generate-config-out=generated.tf")
	if !strings.Contains(out, "configure ("+dev+")") {
		t.Errorf("query output lacks the display name of job configure:\n%s", out)
	}
	gen := c.Read("generated.tf")
	if got := strings.Count(gen, `resource "zdm_device_job"`); got != 2 {
		t.Errorf("generated.tf has %d zdm_device_job blocks, want 2 (the pending jobs):\n%s", got, gen)
	}
	if strings.Contains(gen, `"reboot"`) {
		t.Errorf("generated.tf adopts the done job:\n%s", gen)
	}
	// Positive control: the fixture's three schedulings are counted on
	// the route checked below.
	const routeScheduleJob = "POST /v3/devices/{device_id}/jobs/{job_name}"
	if n := e.Server.Counters()[routeScheduleJob]; n != 3 {
		t.Fatalf("%s: %d calls for the fixture, want 3: %v", routeScheduleJob, n, e.Server.Counters())
	}
	e.Server.ResetCounters()
	out = c.MustRun("apply", "-no-color", "-auto-approve")
	// A service that does not echo values imports the jobs without them:
	// the apply records the generated values in place and sends nothing.
	want := "Resources: 2 imported, 0 added, 0 changed, 0 destroyed"
	if acctest.JobValueNotEchoed(t) {
		want = "Resources: 2 imported, 0 added, 2 changed, 0 destroyed"
		if got := strings.Count(out, "Job value recorded, not sent"); got == 0 {
			t.Errorf("apply does not warn that the values were recorded, not sent:\n%s", out)
		}
	}
	if !strings.Contains(out, want) {
		t.Fatalf("apply: want %q in:\n%s\ngenerated.tf:\n%s", want, out, gen)
	}
	if n := e.Server.Counters()[routeScheduleJob]; n != 0 {
		t.Errorf("the import scheduled %d jobs, want 0", n)
	}
	out, code := c.Run("plan", "-no-color", "-detailed-exitcode")
	if code != 0 {
		t.Fatalf("plan after the import is not empty (exit code %d):\n%s\ngenerated.tf:\n%s", code, out, gen)
	}
}
