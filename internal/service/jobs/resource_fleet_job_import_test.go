package jobs

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccFleetJobImportKeepsItsFleets: job "sync" is {v=1} on fleet EU and
// {v=2} on fleet US, and a zdm_device_job gives a device of neither fleet
// {v=3}, scheduled last. zdm_fleet_job.eu removed from the state and
// imported back by "<workspace_id>/sync", the configuration unchanged,
// never takes another fleet's value: the apply after the import sends
// nothing to any device, the plan after it is empty, and a change of
// triggers then sends the job once more to each EU device (the positive
// control of the count).
func TestAccFleetJobImportKeepsItsFleets(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	eu, euDevs := acctest.NewFleetWithDevices(t, e, "eu", "eu-1", "eu-2")
	us, usDevs := acctest.NewFleetWithDevices(t, e, "us", "us-1")
	spare := acctest.NewDevices(t, e, "spare")[0]
	config := func(triggers string) string {
		return acctest.RequiredProviders + e.ProviderConfig() + fmt.Sprintf(`
resource "zdm_fleet_job" "eu" {
  workspace_id = %[1]q
  fleet_ids    = [%[2]q]
  name         = "sync"
  value        = jsonencode({ v = 1 })
  %[5]s
}

resource "zdm_fleet_job" "us" {
  workspace_id = %[1]q
  fleet_ids    = [%[3]q]
  name         = "sync"
  value        = jsonencode({ v = 2 })
}

resource "zdm_device_job" "spare" {
  device_id  = %[4]q
  name       = "sync"
  value      = jsonencode({ v = 3 })
  depends_on = [zdm_fleet_job.eu, zdm_fleet_job.us]
}
`, ws, eu, us, spare, triggers)
	}
	sends := func(want int, devs ...string) {
		t.Helper()
		for _, dev := range devs {
			if err := acctest.ExpectSends(e, "job", dev, "sync", want)(nil); err != nil {
				t.Error(err)
			}
		}
	}
	c := acctest.NewCLI(t)
	c.Write("main.tf", config(""))
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")
	sends(1, append(append(euDevs, usDevs...), spare)...)

	c.MustRun("state", "rm", "-no-color", "zdm_fleet_job.eu")
	c.MustRun("import", "-no-color", "zdm_fleet_job.eu", ws+"/sync")
	out := c.MustRun("apply", "-no-color", "-auto-approve")
	sends(1, append(append(euDevs, usDevs...), spare)...)
	if t.Failed() {
		t.Fatalf("the apply after the import sent the job again:\n%s", out)
	}
	if got := strings.Join(strings.Fields(out), " "); !strings.Contains(got, "Imported scheduling recorded, not sent") {
		t.Errorf("apply after the import: want the warning %q in:\n%s", "Imported scheduling recorded, not sent", out)
	}
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after the import is not empty (exit code %d):\n%s", code, out)
	}
	st := c.StateValues()["zdm_fleet_job.eu"]
	if got := fmt.Sprint(st["devices"]); got != fmt.Sprint(slices.Sorted(slices.Values(euDevs))) {
		t.Errorf("devices after the import's apply: %s, want those of fleet %s: %v", got, eu, euDevs)
	}

	// A change of triggers sends it again, once, to the EU devices only.
	c.Write("main.tf", config(`triggers = { run = "2" }`))
	c.MustRun("apply", "-no-color", "-auto-approve")
	sends(2, euDevs...)
	sends(1, append(usDevs, spare)...)
}

// TestAccDeviceJobRefreshKeepsItsValue: a zdm_device_job "sync" {v=1} on a
// device, then "sync" {v=2} sent to that device from elsewhere (as the
// fleet job of another state does; in one configuration the pair is
// refused at plan): the refresh of the device job never takes the other
// value into its own, so the plan after it is empty and an apply sends
// nothing, with a warning naming what the device holds; a change of the
// device job's triggers sends it once more (the positive control of the
// count).
func TestAccDeviceJobRefreshKeepsItsValue(t *testing.T) {
	e := acctest.NewEnv(t)
	_, devs := acctest.NewFleetWithDevices(t, e, "eu", "eu-1", "eu-2")
	config := func(triggers string) string {
		return acctest.RequiredProviders + e.ProviderConfig() + fmt.Sprintf(`
resource "zdm_device_job" "one" {
  device_id = %[1]q
  name      = "sync"
  value     = jsonencode({ v = 1 })
  %[2]s
}
`, devs[0], triggers)
	}
	c := acctest.NewCLI(t)
	c.Write("main.tf", config(""))
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")
	acctest.ScheduleJob(t, e, devs[0], "sync", `{"v":2}`)
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after the other value was sent is not empty (exit code %d):\n%s", code, out)
	}
	out := c.MustRun("apply", "-no-color", "-auto-approve")
	if err := acctest.ExpectSends(e, "job", devs[0], "sync", 2)(nil); err != nil {
		t.Fatalf("%v (the device job's send and the other value's):\n%s", err, out)
	}
	if got := strings.Join(strings.Fields(out), " "); !strings.Contains(got, "now holds job \"sync\" with value {\"v\":2}") {
		t.Errorf("apply: want the warning naming what device %s holds in:\n%s", devs[0], out)
	}
	c.Write("main.tf", config(`triggers = { run = "2" }`))
	c.MustRun("apply", "-no-color", "-auto-approve")
	if err := acctest.ExpectSends(e, "job", devs[0], "sync", 3)(nil); err != nil {
		t.Error(err)
	}
}

// TestAccFleetJobImportThenChange: a zdm_fleet_job of every fleet imported
// back with the configuration unchanged: the first apply records it and
// sends nothing, even though no attribute of the configuration differs
// from the import; a later change of value then sends it once to each
// device (the import's mark does not outlive that first apply). An import
// block does the same in the apply that imports.
func TestAccFleetJobImportThenChange(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	_, devs := acctest.NewFleetWithDevices(t, e, "eu", "eu-1", "eu-2")
	config := func(v int) string {
		return acctest.RequiredProviders + e.ProviderConfig() + fmt.Sprintf(`
resource "zdm_fleet_job" "all" {
  workspace_id = %q
  all_fleets   = true
  name         = "sync"
  value        = jsonencode({ v = %d })
}
`, ws, v)
	}
	sends := func(want int) {
		t.Helper()
		for _, dev := range devs {
			if err := acctest.ExpectSends(e, "job", dev, "sync", want)(nil); err != nil {
				t.Error(err)
			}
		}
	}
	c := acctest.NewCLI(t)
	c.Write("main.tf", config(1))
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")
	sends(1)
	c.MustRun("state", "rm", "-no-color", "zdm_fleet_job.all")
	c.MustRun("import", "-no-color", "zdm_fleet_job.all", ws+"/sync")
	c.MustRun("apply", "-no-color", "-auto-approve")
	sends(1)
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after the import's apply is not empty (exit code %d):\n%s", code, out)
	}
	c.Write("main.tf", config(2))
	c.MustRun("apply", "-no-color", "-auto-approve")
	sends(2)

	// The same with an import block: the apply that imports sends nothing.
	c.MustRun("state", "rm", "-no-color", "zdm_fleet_job.all")
	c.Write("main.tf", config(2)+fmt.Sprintf(`
import {
  to = zdm_fleet_job.all
  id = "%s/sync"
}
`, ws))
	c.MustRun("apply", "-no-color", "-auto-approve")
	sends(2)
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after the import block's apply is not empty (exit code %d):\n%s", code, out)
	}
}
