package firmware

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

func TestAccFotaStatusDataSource(t *testing.T) {
	e := acctest.NewEnv(t)
	ids := acctest.NewDevices(t, e, "updated", "never")
	if _, err := acctest.APIClient(t, e).ScheduleFOTA(context.Background(), ids[0], "fw-sensor", "1.2.0"); err != nil {
		t.Fatal(err)
	}
	config := e.Config(fmt.Sprintf(`
data "zdm_fota_status" "updated" {
  device_id = %q
}
data "zdm_fota_status" "never" {
  device_id = %q
}
`, ids[0], ids[1]))
	const updated, never = "data.zdm_fota_status.updated", "data.zdm_fota_status.never"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(updated, tfjsonpath.New("scheduled"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(updated, tfjsonpath.New("status"), knownvalue.StringExact("pending")),
					statecheck.ExpectKnownValue(updated, tfjsonpath.New("firmware_id"), knownvalue.StringExact("fw-sensor")),
					statecheck.ExpectKnownValue(updated, tfjsonpath.New("firmware_version"), knownvalue.StringExact("1.2.0")),
					statecheck.ExpectKnownValue(updated, tfjsonpath.New("scheduled_at"), knownvalue.NotNull()),
					// Never updated: a documented null result, not an error.
					statecheck.ExpectKnownValue(never, tfjsonpath.New("scheduled"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(never, tfjsonpath.New("status"), knownvalue.Null()),
					statecheck.ExpectKnownValue(never, tfjsonpath.New("firmware_id"), knownvalue.Null()),
					statecheck.ExpectKnownValue(never, tfjsonpath.New("firmware_version"), knownvalue.Null()),
					statecheck.ExpectKnownValue(never, tfjsonpath.New("scheduled_at"), knownvalue.Null()),
				},
			},
			{
				PreConfig: func() {
					if err := e.Server.SetFOTAStatus(ids[0], "done"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(updated, tfjsonpath.New("status"), knownvalue.StringExact("done")),
				},
			},
			{
				Config:      e.Config(`data "zdm_fota_status" "x" { device_id = "dev-missing" }`),
				ExpectError: regexp.MustCompile(`(?s)Device not found.*"dev-missing"`),
			},
			{
				Config:      e.Config(`data "zdm_fota_status" "x" { device_id = "" }`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Attribute device_id string length must be at least 1`),
			},
			{
				// The destroy at the end of the test runs with the last configuration.
				Config: config,
			},
		},
	})
}
