package fleets

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

func TestAccFleetDataSources(t *testing.T) {
	e := acctest.NewEnv(t)
	defaultID := acctest.DefaultFleetID(t, e)
	config := e.Config(`
resource "zdm_fleet" "a" {
  name        = "fleet-a"
  description = "first"
}
data "zdm_fleet" "default" {
  name = "default"
}
data "zdm_fleet" "by_id" {
  id = zdm_fleet.a.id
}
data "zdm_fleet" "by_name" {
  name       = "fleet-a"
  depends_on = [zdm_fleet.a]
}
data "zdm_fleets" "all" {
  depends_on = [zdm_fleet.a]
}
`)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.zdm_fleet.default", tfjsonpath.New("workspace_id"),
						knownvalue.StringExact(e.Bootstrap.WorkspaceID)),
					statecheck.ExpectKnownValue("data.zdm_fleet.default", tfjsonpath.New("id"), knownvalue.StringExact(defaultID)),
					statecheck.ExpectKnownValue("data.zdm_fleet.by_id", tfjsonpath.New("name"), knownvalue.StringExact("fleet-a")),
					statecheck.ExpectKnownValue("data.zdm_fleet.by_id", tfjsonpath.New("description"), knownvalue.StringExact("first")),
					statecheck.CompareValuePairs("data.zdm_fleet.by_name", tfjsonpath.New("id"),
						"zdm_fleet.a", tfjsonpath.New("id"), compare.ValuesSame()),
					statecheck.ExpectKnownValue("data.zdm_fleets.all", tfjsonpath.New("fleets"), knownvalue.ListSizeExact(2)),
					statecheck.ExpectKnownValue("data.zdm_fleets.all", tfjsonpath.New("workspace_id"),
						knownvalue.StringExact(e.Bootstrap.WorkspaceID)),
				},
			},
			{
				Config:      config + `data "zdm_fleet" "missing" { id = "flt-missing" }`,
				ExpectError: regexp.MustCompile(`(?s)No fleet found.*id "flt-missing"`),
			},
			{
				Config:      config + `data "zdm_fleet" "missing" { name = "nope" }`,
				ExpectError: regexp.MustCompile(`(?s)No fleet found.*name "nope"`),
			},
			{
				Config:      config + `data "zdm_fleets" "empty_ws" { workspace_id = "" }`,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`workspace_id string length must be at least 1`),
			},
			{
				Config: config,
			},
		},
	})
}
