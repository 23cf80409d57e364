package devices_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccImportForEachFromDataSource adopts every device of a fleet with
// one for_each import block driven by the zdm_devices data source, then
// checks the plan is empty.
func TestAccImportForEachFromDataSource(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	line, err := acctest.APIClient(t, e).CreateFleet(t.Context(), ws, "line-a", "")
	if err != nil {
		t.Fatal(err)
	}
	ids := acctest.CreateDevices(t, e, line.ID, "pump", 5)
	acctest.CreateDevices(t, e, "", "other", 3)

	c := acctest.NewCLI(t)
	c.SkipBelow(12, "import blocks with for_each and identity need Terraform 1.12 or later")
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig()+fmt.Sprintf(`
data "zdm_devices" "line_a" {
  fleet_id = %q
}

locals {
  line_a = { for d in data.zdm_devices.line_a.devices : d.id => d }
}

import {
  for_each = local.line_a
  to       = zdm_device.line_a[each.key]
  identity = {
    id = each.key
  }
}

resource "zdm_device" "line_a" {
  for_each = local.line_a
  name     = each.value.name
  fleet_id = each.value.fleet_id
}
`, line.ID))
	c.MustRun("init", "-no-color")
	out := c.MustRun("apply", "-no-color", "-auto-approve")
	if want := fmt.Sprintf("Resources: %d imported, 0 added, 0 changed, 0 destroyed", len(ids)); !strings.Contains(out, want) {
		t.Fatalf("apply: want %q in:\n%s", want, out)
	}
	out = c.MustRun("state", "list")
	for _, id := range ids {
		if !strings.Contains(out, fmt.Sprintf("zdm_device.line_a[%q]", id)) {
			t.Errorf("device %s not in the state:\n%s", id, out)
		}
	}
	out, code := c.Run("plan", "-no-color", "-detailed-exitcode")
	if code != 0 {
		t.Fatalf("plan after the import is not empty (exit code %d):\n%s", code, out)
	}
}
