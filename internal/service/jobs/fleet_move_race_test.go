package jobs

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// TestAccFleetJobRacesAMoveOfTheSameApply: devices n0 and n3
// (zdm_fleet_devices) hold the job of a zdm_fleet_job on fleet A; one edit
// moves them into fleet B and sets the job's fleet_ids to [B, C], with no
// order between the two. The job's gate reads B and C (empty), the move
// lands, and then the fleet-wide request acts: without the fleets held
// still, n0 and n3 get the job a second time. The race is made certain by
// the local server: the fleet-wide request is held 2 s before it acts, a
// move 0.5 s, so that a move sent right after the read lands in between.
func TestAccFleetJobRacesAMoveOfTheSameApply(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	c := acctest.NewCLI(t)
	config := func(devicesFleet, jobFleets, dependsOn string) string {
		return acctest.RequiredProviders + e.ProviderConfig() + fmt.Sprintf(`
resource "zdm_fleet" "a" {
  name = "race-a"
}
resource "zdm_fleet" "b" {
  name = "race-b"
}
resource "zdm_fleet" "c" {
  name = "race-c"
}
resource "zdm_fleet_devices" "n" {
  fleet_id = %s
  devices = {
    n0 = "n0"
    n3 = "n3"
  }
}
resource "zdm_fleet_job" "j" {
  workspace_id = %q
  name         = "race"
  value        = jsonencode({ level = 1 })
  fleet_ids    = [%s]
  %s
}
`, devicesFleet, ws, jobFleets, dependsOn)
	}
	c.Write("main.tf", config("zdm_fleet.a.id", "zdm_fleet.a.id", "depends_on = [zdm_fleet_devices.n]"))
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	ids := map[string]string{}
	for addr, v := range c.StateValues() {
		if strings.HasPrefix(addr, "zdm_fleet_devices.") {
			devs, _ := v["device_ids"].(map[string]any)
			for k, id := range devs {
				ids[k], _ = id.(string)
			}
		}
	}
	sends := func() map[string]int {
		n := map[string]int{}
		for _, s := range e.Server.Sends() {
			if s.Kind == "job" && s.Name == "race" {
				n[s.DeviceID]++
			}
		}
		return n
	}
	// The control: the first apply sent the job once to each device, and
	// the count sees it.
	first := sends()
	if len(ids) != 2 || first[ids["n0"]] != 1 || first[ids["n3"]] != 1 {
		t.Fatalf("after the first apply: devices %v, job sends %v; want the job once on each of 2 devices", ids, first)
	}

	for _, f := range []localzdm.RequestFault{
		{Method: "POST", Path: "/v3/workspace/{workspace_id}/jobs/{job_name}", Action: localzdm.FaultDelay, Delay: 2 * time.Second},
		{Method: "PUT", Path: "/v3/workspaces/{workspace_id}/devices/{device_id}", Action: localzdm.FaultDelay, Delay: 500 * time.Millisecond},
	} {
		if _, err := e.Server.AddRequestFault(f); err != nil {
			t.Fatal(err)
		}
	}
	c.Write("main.tf", config("zdm_fleet.b.id", "zdm_fleet.b.id, zdm_fleet.c.id", ""))
	out := c.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	t.Logf("the apply that moves the devices and retargets the job:\n%s", acctest.Tail(out, 12))
	got := sends()
	for k, id := range ids {
		if got[id] != 1 {
			t.Errorf("device %s (%s) got the job %d times, want once: %v", k, id, got[id], e.Server.Sends())
		}
	}
}
