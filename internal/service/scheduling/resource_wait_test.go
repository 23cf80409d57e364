package scheduling

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// Waiting in the scheduling resources, on the real CLI (Terraform and
// OpenTofu): a wait that succeeds, fails at once on a failure status, or
// times out; and a failed wait is never sent again by the next apply (the
// tainted replacement, with and without a refresh, and after untaint),
// while a change of triggers sends once.

const jobGET = "GET /v3/devices/{device_id}/jobs/{job_name}"

// lit is a pattern for text as the CLI prints it: literal, wrapped at any
// space.
func lit(text string) string { return acctest.Wrapped(text).String() }

// apply runs terraform apply with extra arguments and returns its output
// and exit code.
func (s *schedEnv) apply(args ...string) (string, int) {
	return s.cli.Run(append([]string{"apply", "-auto-approve", "-input=false", "-no-color"}, args...)...)
}

// expectFail runs apply with args and fails the test unless it fails with
// output matching each pattern.
func (s *schedEnv) expectFail(t *testing.T, what string, patterns []string, args ...string) string {
	t.Helper()
	out, code := s.apply(args...)
	if code == 0 {
		t.Fatalf("%s: apply succeeded, want an error:\n%s", what, out)
	}
	expectOutput(t, what, out, patterns...)
	return out
}

// expectPOSTs checks the number of scheduling requests since the last
// ResetCounters, and resets the counters.
func (s *schedEnv) expectPOSTs(t *testing.T, what string, want int64) {
	t.Helper()
	if got := s.schedules(); got != want {
		t.Errorf("%s: %d scheduling requests, want %d", what, got, want)
	}
	s.Server.ResetCounters()
}

func deviceJobWaitConfig(dev, name, trigger, extra string) string {
	return fmt.Sprintf(`
resource "zdm_device_job" %[2]q {
  device_id        = %[1]q
  name             = "reboot"
  triggers         = { run = %[3]q }
  wait             = true
  failure_statuses = ["failed"]
  poll_interval    = "100ms"
  %[4]s
}
`, dev, name, trigger, extra)
}

// TestAccDeviceJobWait: a job whose device answers after a delay is waited
// for (status done, one request); a device that reports a failure status
// ends the wait at once (a few status reads, not the timeout's worth) with
// an error naming it; re-applies of the tainted job send nothing, with and
// without refresh, and after untaint; a change of triggers sends once.
func TestAccDeviceJobWait(t *testing.T) {
	s := newSchedEnv(t)
	devs := acctest.NewDevices(t, s.Env, "wait-ok", "wait-fail")
	ok, bad := devs[0], devs[1]
	if err := s.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, Delay: 300 * time.Millisecond,
		JobFailureStatus: "failed", FailDevices: []string{bad}}); err != nil {
		t.Fatal(err)
	}
	s.write(t, deviceJobWaitConfig(ok, "ok", "1", ""))
	s.init()
	s.Server.ResetCounters()

	// The wait succeeds: status done, one request.
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	if st := s.stateValues(t)["zdm_device_job.ok"]; st["status"] != "done" {
		t.Errorf("status after the wait: %v, want done", st["status"])
	}
	s.expectPOSTs(t, "wait that succeeds", 1)

	// A failure status ends the wait at once: with a 10-minute timeout and
	// polls every 100 ms, a few reads, and an error naming the device.
	s.write(t, deviceJobWaitConfig(ok, "ok", "1", "")+deviceJobWaitConfig(bad, "bad", "1", ""))
	s.expectFail(t, "failure status", []string{lit(`job "reboot" failed on 1 of 1 devices: ` + bad + ` (failed)`),
		lit(`Applying again sends nothing`)})
	if reads := s.Server.Counters()[jobGET]; reads > 20 {
		t.Errorf("%d job reads before the failure ended the wait, want a few (the device failed after 300 ms)", reads)
	}
	s.expectPOSTs(t, "failed wait", 1)

	// The tainted job is replaced: nothing is sent, the wait fails again.
	out := s.expectFail(t, "re-apply of the tainted job", []string{`sends nothing`, bad + ` \(failed\)`})
	expectOutput(t, "re-apply of the tainted job", out, `must be replaced|tainted`)
	s.expectPOSTs(t, "re-apply of the tainted job", 0)

	// Without a refresh in the plan, Delete remembers it: nothing is sent.
	s.expectFail(t, "re-apply with -refresh=false", []string{bad + ` \(failed\)`}, "-refresh=false")
	s.expectPOSTs(t, "re-apply with -refresh=false", 0)

	// After untaint: an in-place update that only waits, and fails again.
	s.cli.MustRun("untaint", "-no-color", "zdm_device_job.bad")
	out, code := s.plan()
	if code != 2 {
		t.Fatalf("plan after untaint: exit code %d, want 2 (changes):\n%s", code, out)
	}
	expectOutput(t, "plan after untaint", out, `update in-place`, lit(`The update only waits again`))
	s.expectFail(t, "apply after untaint", []string{bad + ` \(failed\)`})
	s.expectPOSTs(t, "apply after untaint", 0)

	// The device is fixed: the next apply waits and succeeds, sending
	// nothing; then nothing is left to do.
	if err := s.Server.SetJobStatus(bad, "reboot", "done"); err != nil {
		t.Fatal(err)
	}
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	s.expectPOSTs(t, "apply after the fix", 0)
	if out, code := s.plan(); code != 0 {
		t.Errorf("plan after the wait succeeded: exit code %d, want 0:\n%s", code, out)
	}

	// Positive control: a change of triggers sends once.
	if err := s.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, Delay: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	s.write(t, deviceJobWaitConfig(ok, "ok", "1", "")+deviceJobWaitConfig(bad, "bad", "2", ""))
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	s.expectPOSTs(t, "change of triggers", 1)
}

// TestAccDeviceWaitTimesOut: a device that never answers ends the waits of
// a job and of a device-mode firmware update at timeouts.create, with
// errors naming it and its status; the tainted resources are then adopted,
// not sent again, and their waits succeed once the device has answered.
func TestAccDeviceWaitTimesOut(t *testing.T) {
	s := newSchedEnv(t)
	dev := acctest.NewDevices(t, s.Env, "wait-silent")[0]
	if err := s.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, SilentDevices: []string{dev}}); err != nil {
		t.Fatal(err)
	}
	s.write(t, deviceJobWaitConfig(dev, "j", "1", `timeouts { create = "1s" }`)+fmt.Sprintf(`
resource "zdm_fota" "u" {
  device_id        = %q
  firmware_id      = "fw-sensor"
  firmware_version = "2.0"
  wait             = true
  poll_interval    = "100ms"
  timeouts {
    create = "1s"
  }
}
`, dev))
	s.init()
	s.Server.ResetCounters()
	s.expectFail(t, "silent device", []string{lit(`job "reboot" is not done after 1s on 1 of 1 devices: ` + dev + ` (pending)`),
		lit(`firmware update fw-sensor 2.0 is not done after 1s on 1 of 1 devices: ` + dev + ` (pending)`)})
	s.expectPOSTs(t, "silent device", 2)
	st := s.stateValues(t)
	if st["zdm_device_job.j"]["status"] != "pending" || st["zdm_device_job.j"]["scheduled_at"] == "" ||
		st["zdm_fota.u"]["status"] != "pending" {
		t.Errorf("state after the timeout: %v, want the schedulings, pending", st)
	}

	if err := s.Server.SetJobStatus(dev, "reboot", "done"); err != nil {
		t.Fatal(err)
	}
	if err := s.Server.SetFOTAStatus(dev, "done"); err != nil {
		t.Fatal(err)
	}
	out := s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	expectOutput(t, "re-apply", out, lit(`The replacement of an unfinished job sends nothing`),
		lit(`The replacement of an unfinished firmware update sends nothing`))
	s.expectPOSTs(t, "re-apply after the device answered", 0)
	st = s.stateValues(t)
	if st["zdm_device_job.j"]["status"] != "done" || st["zdm_fota.u"]["status"] != "done" {
		t.Errorf("statuses after the re-apply: %v, %v, want done", st["zdm_device_job.j"]["status"], st["zdm_fota.u"]["status"])
	}
	if out, code := s.plan(); code != 0 {
		t.Errorf("plan after the waits succeeded: exit code %d, want 0:\n%s", code, out)
	}
}

func fleetWaitConfig(ws, fleets, trigger string) string {
	return fmt.Sprintf(`
resource "zdm_fleet_job" "j" {
  workspace_id     = %[1]q
  fleet_ids        = [%[2]s]
  name             = "reboot"
  triggers         = { run = %[3]q }
  wait             = true
  failure_statuses = ["failed"]
  poll_interval    = "100ms"
}

resource "zdm_fota" "u" {
  workspace_id     = %[1]q
  fleet_ids        = [%[2]s]
  firmware_id      = "fw-sensor"
  firmware_version = "2.0"
  triggers         = { run = %[3]q }
  wait             = true
  failure_statuses = ["failed"]
  poll_interval    = "100ms"
}
`, ws, fleets, trigger)
}

// TestAccFleetWait: a fleet-wide job and firmware update on a fleet of
// three devices, one of which fails: the wait ends at once with errors
// naming that device; re-applies of the tainted resources send nothing,
// with and without refresh; once the device is fixed the wait succeeds
// without sending; a change of triggers sends each once; a fleet added to
// fleet_ids gets the job alone, and the wait covers every device.
func TestAccFleetWait(t *testing.T) {
	s := newSchedEnv(t)
	fleet, ids := acctest.NewFleetDevices(t, s.Env, "waitfleet", 3)
	bad := ids[1]
	if err := s.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, Delay: 200 * time.Millisecond,
		FailureStatus: "failed", JobFailureStatus: "failed", FailDevices: []string{bad}}); err != nil {
		t.Fatal(err)
	}
	ws := s.Bootstrap.WorkspaceID
	s.write(t, fleetWaitConfig(ws, fmt.Sprintf("%q", fleet), "1"))
	s.init()
	s.Server.ResetCounters()

	failed := []string{lit(`job "reboot" failed on 1 of 3 devices: ` + bad + ` (failed)`),
		lit(`firmware update fw-sensor 2.0 failed on 1 of 3 devices: ` + bad + ` (failed)`)}
	s.expectFail(t, "one failing device", failed)
	if reads := s.Server.Counters()[jobGET]; reads > 40 {
		t.Errorf("%d job reads before the failure ended the wait, want a few", reads)
	}
	s.expectPOSTs(t, "one failing device", 2)
	st := s.stateValues(t)
	if devices, ok := st["zdm_fota.u"]["devices"].([]any); !ok || len(devices) != 3 || st["zdm_fleet_job.j"]["scheduled_at"] == "" {
		t.Errorf("state after the failed waits: %v", st)
	}

	out := s.expectFail(t, "re-apply of the tainted resources", failed)
	expectOutput(t, "re-apply of the tainted resources", out, lit(`The replacement of an unfinished job sends nothing`),
		lit(`The replacement of an unfinished firmware update sends nothing`))
	s.expectPOSTs(t, "re-apply of the tainted resources", 0)
	s.expectFail(t, "re-apply with -refresh=false", failed, "-refresh=false")
	s.expectPOSTs(t, "re-apply with -refresh=false", 0)

	// After untaint: in-place updates that only wait, and fail again.
	s.cli.MustRun("untaint", "-no-color", "zdm_fleet_job.j")
	s.cli.MustRun("untaint", "-no-color", "zdm_fota.u")
	out, code := s.plan()
	if code != 2 {
		t.Fatalf("plan after untaint: exit code %d, want 2 (changes):\n%s", code, out)
	}
	expectOutput(t, "plan after untaint", out, `2 to change, 0 to destroy`, lit(`The update only waits again`))
	s.expectFail(t, "apply after untaint", failed)
	s.expectPOSTs(t, "apply after untaint", 0)

	// The device is fixed: the waits succeed without sending anything.
	if err := s.Server.SetJobStatus(bad, "reboot", "done"); err != nil {
		t.Fatal(err)
	}
	if err := s.Server.SetFOTAStatus(bad, "done"); err != nil {
		t.Fatal(err)
	}
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	s.expectPOSTs(t, "apply after the fix", 0)
	if out, code := s.plan(); code != 0 {
		t.Errorf("plan after the waits succeeded: exit code %d, want 0:\n%s", code, out)
	}

	// Positive control: a change of triggers sends each once.
	if err := s.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, Delay: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	s.write(t, fleetWaitConfig(ws, fmt.Sprintf("%q", fleet), "2"))
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	s.expectPOSTs(t, "change of triggers", 2)

	// An added fleet: one request each, for the added fleet; the waits
	// cover the four devices.
	fleet2, _ := acctest.NewFleetDevices(t, s.Env, "waitfleet2", 1)
	s.write(t, fleetWaitConfig(ws, fmt.Sprintf("%q, %q", fleet, fleet2), "2"))
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	s.expectPOSTs(t, "added fleet", 2)
	for addr, v := range s.stateValues(t) {
		if counts, ok := v["status_counts"].(map[string]any); !ok || fmt.Sprint(counts["done"]) != "4" || len(counts) != 1 {
			t.Errorf("%s: status_counts %v after the added fleet, want done: 4", addr, v["status_counts"])
		}
	}
}

// TestAccDeviceJobWaitCreateBeforeDestroy: with create_before_destroy,
// Terraform creates the replacement of the tainted job before Delete could
// remember its scheduling; the plan has adopted it, so the apply fails
// before anything is sent.
func TestAccDeviceJobWaitCreateBeforeDestroy(t *testing.T) {
	s := newSchedEnv(t)
	dev := acctest.NewDevices(t, s.Env, "wait-cbd")[0]
	if err := s.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, SilentDevices: []string{dev}}); err != nil {
		t.Fatal(err)
	}
	s.write(t, deviceJobWaitConfig(dev, "j", "1", `timeouts { create = "1s" }
  lifecycle { create_before_destroy = true }`))
	s.init()
	s.Server.ResetCounters()
	s.expectFail(t, "silent device", []string{lit(`is not done after 1s on 1 of 1 devices: ` + dev + ` (pending)`)})
	s.expectPOSTs(t, "silent device", 1)
	s.expectFail(t, "create_before_destroy re-apply", []string{`sends nothing`, lit(`inconsistent final plan`)})
	s.expectPOSTs(t, "create_before_destroy re-apply", 0)
}

// TestAccWaitValidation: overlapping success and failure statuses are a
// plan-time error naming failure_statuses, before any request; wait
// settings without wait are warned about. Positive control: the same
// configuration without the overlap plans.
func TestAccWaitValidation(t *testing.T) {
	s := newSchedEnv(t)
	body := func(failure string) string {
		return fmt.Sprintf(`
resource "zdm_device_job" "j" {
  device_id        = "dev-1"
  name             = "reboot"
  wait             = true
  failure_statuses = [%q]
}

resource "zdm_fota" "u" {
  workspace_id     = "wks-1"
  all_fleets       = true
  firmware_id      = "fw"
  firmware_version = "1.0"
  wait             = true
  success_statuses = ["installed"]
  failure_statuses = [%q]
}

resource "zdm_fleet_job" "f" {
  workspace_id  = "wks-1"
  all_fleets    = true
  name          = "reboot"
  poll_interval = "1s"
}
`, failure, failure)
	}
	s.write(t, body("done"))
	s.init()
	s.Server.ResetCounters()
	out, code := s.plan()
	if code != 1 {
		t.Fatalf("plan with overlapping statuses: exit code %d, want 1:\n%s", code, out)
	}
	expectOutput(t, "overlapping statuses", out, `Overlapping statuses`, `failure_statuses`, lit(`Unused poll_interval`))
	s.write(t, body("installed"))
	out, _ = s.plan()
	expectOutput(t, "overlapping statuses with a custom success status", out, lit(`The status "installed" is both a success status and a failure status`))
	if n := len(s.Server.Counters()); n != 0 {
		t.Errorf("invalid configurations made requests: %v", s.Server.Counters())
	}
	s.write(t, body("failed"))
	if out, code := s.plan(); code != 2 {
		t.Errorf("plan without the overlap: exit code %d, want 2:\n%s", code, out)
	}
}

// TestAccDeviceJobWaitTurnedOnLater: a job scheduled without wait, then
// wait = true while the device has not run it: an in-place update that only
// waits, sending nothing, and ends once the device has run it.
func TestAccDeviceJobWaitTurnedOnLater(t *testing.T) {
	s := newSchedEnv(t)
	dev := acctest.NewDevices(t, s.Env, "wait-later")[0]
	s.write(t, fmt.Sprintf(`
resource "zdm_device_job" "j" {
  device_id = %q
  name      = "reboot"
}
`, dev))
	s.init()
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	s.Server.ResetCounters()
	if err := s.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, SilentDevices: []string{dev}}); err != nil {
		t.Fatal(err)
	}
	s.cli.Write("main.tf", acctest.RequiredProviders+s.ProviderConfig()+fmt.Sprintf(`
resource "zdm_device_job" "j" {
  device_id     = %q
  name          = "reboot"
  wait          = true
  poll_interval = "100ms"
  timeouts {
    update = "1s"
  }
}
`, dev))
	out, code := s.plan()
	if code != 2 {
		t.Fatalf("plan with wait turned on: exit code %d, want 2:\n%s", code, out)
	}
	expectOutput(t, "plan with wait turned on", out, `update in-place`, lit(`The update only waits again`))
	s.expectFail(t, "wait turned on, device silent", []string{lit(`is not done after 1s on 1 of 1 devices: ` + dev + ` (pending)`)})
	s.expectPOSTs(t, "wait turned on", 0)
	if err := s.Server.SetJobStatus(dev, "reboot", "done"); err != nil {
		t.Fatal(err)
	}
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	s.expectPOSTs(t, "wait turned on, device done", 0)
	if out, code := s.plan(); code != 0 {
		t.Errorf("plan after the wait succeeded: exit code %d, want 0:\n%s", code, out)
	}
}

// TestAccDeviceJobWaitInterrupted: a Ctrl-C during the wait stops it at
// once; the state keeps the job, and the next apply sends nothing and waits
// again.
func TestAccDeviceJobWaitInterrupted(t *testing.T) {
	s := newSchedEnv(t)
	dev := acctest.NewDevices(t, s.Env, "wait-interrupt")[0]
	if err := s.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, SilentDevices: []string{dev}}); err != nil {
		t.Fatal(err)
	}
	s.write(t, deviceJobWaitConfig(dev, "j", "1", ""))
	s.init()
	s.Server.ResetCounters()
	cmd, err := s.cli.S.Start(t.Context(), "apply", "-auto-approve", "-input=false", "-no-color")
	if err != nil {
		t.Fatal(err)
	}
	// Interrupt once the wait has polled the device twice.
	for s.Server.Counters()[jobGET] < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	res, err := cmd.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == 0 {
		t.Fatalf("interrupted apply succeeded:\n%s", res.Output)
	}
	expectOutput(t, "interrupted wait", res.Output, lit(`stopped waiting for job "reboot" (1 of 1 devices not done: `+dev+` (pending))`))
	s.expectPOSTs(t, "interrupted wait", 1)
	if st := s.stateValues(t)["zdm_device_job.j"]; st["scheduled_at"] == "" || st["status"] != "pending" {
		t.Errorf("state after the interrupted wait: %v, want the job, pending", st)
	}

	if err := s.Server.SetJobStatus(dev, "reboot", "done"); err != nil {
		t.Fatal(err)
	}
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	s.expectPOSTs(t, "apply after the interrupted wait", 0)
	if st := s.stateValues(t)["zdm_device_job.j"]; st["status"] != "done" {
		t.Errorf("status after the re-apply: %v, want done", st["status"])
	}
}

// TestAccDeviceJobWaitAdoptionRefused: when the device no longer shows the
// scheduling a failed wait left (it was scheduled again outside Terraform),
// the replacement sends nothing and fails, naming the device and what it
// shows; a change of triggers sends once (the positive control).
func TestAccDeviceJobWaitAdoptionRefused(t *testing.T) {
	s := newSchedEnv(t)
	dev := acctest.NewDevices(t, s.Env, "wait-refused")[0]
	if err := s.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, SilentDevices: []string{dev}}); err != nil {
		t.Fatal(err)
	}
	s.write(t, deviceJobWaitConfig(dev, "j", "1", `timeouts { create = "1s" }`))
	s.init()
	s.expectFail(t, "silent device", []string{lit(`is not done after 1s`)})
	acctest.ScheduleJob(t, s.Env, dev, "reboot", `{"mode":"other"}`)
	s.Server.ResetCounters()
	s.expectFail(t, "replacement of a job scheduled again elsewhere", []string{
		lit(`Cannot adopt the unfinished job "reboot" of device ` + dev), lit(`Nothing was sent`),
		lit(dev + ` (scheduled at`)})
	s.expectPOSTs(t, "replacement of a job scheduled again elsewhere", 0)
	s.expectFail(t, "second replacement", []string{lit(`Cannot adopt the unfinished job`)})
	s.expectPOSTs(t, "second replacement", 0)

	if err := s.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	s.write(t, deviceJobWaitConfig(dev, "j", "2", ""))
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	s.expectPOSTs(t, "change of triggers", 1)
}

// TestAccFleetWaitCustomSuccess: with success_statuses = ["installed"], a
// fleet-wide firmware update whose devices report "installed" ends the wait,
// and devices_not_done counts them as done (it follows success_statuses).
func TestAccFleetWaitCustomSuccess(t *testing.T) {
	e := acctest.NewEnv(t)
	fleet, _ := acctest.NewFleetWithDevices(t, e, "installers", "inst-1", "inst-2")
	if err := e.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, FOTASuccessStatus: "installed"}); err != nil {
		t.Fatal(err)
	}
	const addr = "zdm_fota.u"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{{
			Config: e.Config(fmt.Sprintf(`
resource "zdm_fota" "u" {
  workspace_id     = %q
  fleet_ids        = [%q]
  firmware_id      = "fw-inst"
  firmware_version = "2.0"
  wait             = true
  success_statuses = ["installed"]
  poll_interval    = "100ms"
}
`, e.Bootstrap.WorkspaceID, fleet)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("status_counts"),
					knownvalue.MapExact(map[string]knownvalue.Check{"installed": knownvalue.Int64Exact(2)})),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("devices_not_done"), knownvalue.ListSizeExact(0)),
			},
		}},
	})
}
