// Several families: the import by identity of IDs with a slash, for zdm_device (devices), zdm_device_job (jobs) and zdm_fota (firmware) in one configuration.

package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccIdentityImportSlashIDs imports a device whose ID contains "/",
// its job and its firmware update by identity (each plans no change), and
// checks that the string import ID of such a device is refused rather than
// split into a wrong workspace and ID.
func TestAccIdentityImportSlashIDs(t *testing.T) {
	e := acctest.NewEnv(t)
	choices, err := acctest.EnvChoices()
	if err != nil {
		t.Fatal(err)
	}
	choices.DeviceIDPrefix = "dev/a/"
	if err := e.Server.SetChoices(choices); err != nil {
		t.Fatal(err)
	}
	const (
		dev  = "zdm_device.test"
		job  = "zdm_device_job.test"
		fota = "zdm_fota.test"
	)
	config := e.Config(`
resource "zdm_device" "test" {
  name = "slash"
}
resource "zdm_device_job" "test" {
  device_id = zdm_device.test.id
  name      = "configure"
  value     = jsonencode({ interval = 30 })
}
resource "zdm_fota" "test" {
  device_id        = zdm_device.test.id
  firmware_id      = "fw-1"
  firmware_version = "1.0.0"
}
`)
	byIdentity := func(addr string) resource.TestStep {
		return resource.TestStep{
			ResourceName:    addr,
			ImportState:     true,
			ImportStateKind: resource.ImportBlockWithResourceIdentity,
			ImportPlanChecks: resource.ImportPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop)},
			},
		}
	}
	// A job whose value the service does not echo is imported without it:
	// the plan records the configured value in place, keeps scheduled_at
	// and status, and sends nothing.
	importJob := byIdentity(job)
	if acctest.JobValueNotEchoed(t) {
		importJob.ExpectNonEmptyPlan = true
		importJob.ImportPlanChecks.PreApply = []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(job, plancheck.ResourceActionUpdate),
			plancheck.ExpectKnownValue(job, tfjsonpath.New("scheduled_at"), knownvalue.NotNull()),
			plancheck.ExpectKnownValue(job, tfjsonpath.New("status"), knownvalue.StringExact("pending")),
			plancheck.ExpectKnownValue(job, tfjsonpath.New("value"), knownvalue.StringExact(`{"interval":30}`)),
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: append(append(append(acctest.IdentityChecks(dev, "workspace_id", "id"),
					acctest.IdentityChecks(job, "device_id", "name")...),
					statecheck.ExpectIdentity(fota, map[string]knownvalue.Check{
						"device_id":    knownvalue.StringRegexp(regexp.MustCompile(`^dev/a/`)),
						"workspace_id": knownvalue.Null(),
					}),
					statecheck.ExpectIdentityValueMatchesState(fota, tfjsonpath.New("device_id"))),
					statecheck.ExpectKnownValue(dev, tfjsonpath.New("id"), knownvalue.StringRegexp(regexp.MustCompile(`^dev/a/[0-9a-f]+$`)))),
			},
			byIdentity(dev),
			importJob,
			byIdentity(fota),
			{
				// "<device_id>" alone splits into three parts: refused, never
				// read as "<workspace_id>/<device_id>".
				ResourceName:      dev,
				ImportState:       true,
				ImportStateIdFunc: acctest.ImportID(dev, true),
				ExpectError:       regexp.MustCompile(`has 3 parts`),
			},
			{
				Config: config + `
import {
  to       = zdm_device_job.other
  identity = { device_id = "", name = "configure" }
}
resource "zdm_device_job" "other" {
  device_id = "x"
  name      = "configure"
}
`,
				ExpectError: acctest.Wrapped(`The identity of a job needs a non-empty device_id and name`),
			},
			{
				Config: config + `
import {
  to       = zdm_fota.other
  identity = { workspace_id = "w" }
}
resource "zdm_fota" "other" {
  device_id        = "x"
  firmware_id      = "fw-1"
  firmware_version = "1.0.0"
}
`,
				ExpectError: acctest.Wrapped(`The identity of a firmware update needs a non-empty device_id`),
			},
			{Config: config},
		},
	})
}
