package firmware

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccFotaFleetsIDImportAndUpgrade: two updates of fleets of one
// workspace have different ids, each imports back by its id without
// sending anything (a "/" in the version included), and a state written
// with schema version 0 (whose id was the workspace ID) is upgraded to the
// new id with an empty plan.
func TestAccFotaFleetsIDImportAndUpgrade(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	ws := e.Bootstrap.WorkspaceID
	fleetA, _ := acctest.NewFleetWithDevices(t, e, "east", "east-1", "east-2")
	fleetB, _ := acctest.NewFleetWithDevices(t, e, "west", "west-1")
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig()+fmt.Sprintf(`
resource "zdm_fota" "a" {
  workspace_id     = %q
  fleet_ids        = [%q]
  firmware_id      = "fw-sensor"
  firmware_version = "1.0"
}

resource "zdm_fota" "b" {
  workspace_id     = %q
  fleet_ids        = [%q]
  firmware_id      = "fw-gateway"
  firmware_version = "2.0/rc1"
}
`, ws, fleetA, ws, fleetB))
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")
	idA, idB := ws+"/fw-sensor/1.0", ws+"/fw-gateway/2.0%2Frc1"
	for addr, want := range map[string]string{"zdm_fota.a": idA, "zdm_fota.b": idB} {
		if got := stateAttr(t, c, addr, "id"); got != want {
			t.Errorf("%s id = %q, want %q", addr, got, want)
		}
	}

	// Import both back by their ids: nothing is sent, and the plan after
	// the import sends nothing either (fewer fleets than all).
	c.MustRun("state", "rm", "zdm_fota.a", "zdm_fota.b")
	e.Server.ResetCounters()
	c.MustRun("import", "-no-color", "zdm_fota.a", idA)
	c.MustRun("import", "-no-color", "zdm_fota.b", idB)
	for addr, want := range map[string]string{"zdm_fota.a": "fw-sensor 1.0", "zdm_fota.b": "fw-gateway 2.0/rc1"} {
		if got := stateAttr(t, c, addr, "firmware_id") + " " + stateAttr(t, c, addr, "firmware_version"); got != want {
			t.Errorf("imported %s has firmware %q, want %q", addr, got, want)
		}
	}
	c.MustRun("apply", "-no-color", "-auto-approve")
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("plan after the import and an apply is not empty (exit code %d):\n%s", code, out)
	}
	if n := e.Server.Counters()[acctest.FleetFOTAPOST] + e.Server.Counters()[acctest.FOTAPOST]; n != 0 {
		t.Errorf("the import and the apply after it sent %d firmware updates, want 0", n)
	}

	// A state of schema version 0 had the workspace ID as the id of both.
	raw := map[string]json.RawMessage{}
	if err := json.Unmarshal([]byte(c.Read("terraform.tfstate")), &raw); err != nil {
		t.Fatal(err)
	}
	var resources []map[string]json.RawMessage
	if err := json.Unmarshal(raw["resources"], &resources); err != nil {
		t.Fatal(err)
	}
	for _, r := range resources {
		var insts []map[string]any
		if err := json.Unmarshal(r["instances"], &insts); err != nil {
			t.Fatal(err)
		}
		for _, inst := range insts {
			inst["schema_version"] = 0
			attrs, ok := inst["attributes"].(map[string]any)
			if !ok {
				t.Fatalf("state instance without attributes: %v", inst)
			}
			attrs["id"] = ws
		}
		b, err := json.Marshal(insts)
		if err != nil {
			t.Fatal(err)
		}
		r["instances"] = b
	}
	res, err := json.Marshal(resources)
	if err != nil {
		t.Fatal(err)
	}
	raw["resources"] = res
	b, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	c.Write("terraform.tfstate", string(b))
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("plan after the upgrade is not empty (exit code %d):\n%s", code, out)
	}
	c.MustRun("apply", "-no-color", "-auto-approve", "-refresh-only")
	for addr, want := range map[string]string{"zdm_fota.a": idA, "zdm_fota.b": idB} {
		if got := stateAttr(t, c, addr, "id"); got != want {
			t.Errorf("%s id after the upgrade = %q, want %q", addr, got, want)
		}
	}
	if n := e.Server.Counters()[acctest.FleetFOTAPOST] + e.Server.Counters()[acctest.FOTAPOST]; n != 0 {
		t.Errorf("%d firmware updates sent, want 0", n)
	}
}

// stateAttr returns a string attribute of a resource in the state.
func stateAttr(t *testing.T, c *acctest.Cli, addr, attr string) string {
	t.Helper()
	values, ok := c.StateValues()[addr]
	if !ok {
		t.Fatalf("%s is not in the state", addr)
	}
	s, _ := values[attr].(string)
	return s
}
