package scheduling

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// Scheduling safety on the real CLI: device commands are sent exactly as
// often as the configuration asks (see DESIGN.md, "Device commands are sent
// exactly as often as the configuration asks").

// schedEnv is a local server and a CLI working directory configured for it.
type schedEnv struct {
	*acctest.Env
	cli *acctest.Cli
}

func newSchedEnv(t *testing.T) *schedEnv {
	t.Helper()
	return &schedEnv{Env: acctest.New(t, acctest.ProviderServer(t)), cli: acctest.NewCLI(t)}
}

// write writes main.tf: the provider block and body.
func (s *schedEnv) write(t *testing.T, body string) {
	t.Helper()
	s.cli.Write("main.tf", acctest.RequiredProviders+s.ProviderConfig()+body)
}

// init runs terraform init.
func (s *schedEnv) init() {
	s.cli.MustRun("init", "-input=false", "-no-color")
}

// schedules is the number of scheduling requests the server received.
func (s *schedEnv) schedules() int64 {
	c := s.Server.Counters()
	return c[acctest.JobPOST] + c[acctest.FleetJobPOST] + c[acctest.FOTAPOST] + c[acctest.FleetFOTAPOST]
}

// plan runs plan -detailed-exitcode and returns its output and exit code
// (0: no changes, 1: error, 2: changes).
func (s *schedEnv) plan() (string, int) {
	return s.cli.Run("plan", "-detailed-exitcode", "-input=false", "-no-color")
}

// stateValues returns the attributes of each managed resource of the state
// by address.
func (s *schedEnv) stateValues(t *testing.T) map[string]map[string]any {
	t.Helper()
	return s.cli.StateValues()
}

// expectOutput fails unless out matches each pattern.
func expectOutput(t *testing.T, what, out string, patterns ...string) {
	t.Helper()
	for _, p := range patterns {
		if !regexp.MustCompile(p).MatchString(out) {
			t.Errorf("%s: the output does not match %q:\n%s", what, p, out)
		}
	}
}

// TestAccScheduleRecordPurged: a job and a firmware update whose records the
// service no longer returns while their devices exist keep their state
// (last-read status) with a warning, and nothing is scheduled again, on
// plan, apply and apply -refresh-only; under a catch-all 404 nothing leaves
// the state; a change of triggers schedules once (the positive control);
// once the device is proven gone, its job leaves the state.
func TestAccScheduleRecordPurged(t *testing.T) {
	s := newSchedEnv(t)
	devs := acctest.NewDevices(t, s.Env, "purge-job", "purge-fota")
	body := func(trigger string) string {
		return fmt.Sprintf(`
resource "zdm_device_job" "j" {
  device_id = %q
  name      = "reboot"
  triggers  = { run = %q }
}

resource "zdm_fota" "u" {
  device_id        = %q
  firmware_id      = "fw"
  firmware_version = "1.0"
}
`, devs[0], trigger, devs[1])
	}
	s.write(t, body("1"))
	s.init()
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	if err := s.Server.SetJobStatus(devs[0], "reboot", "done"); err != nil {
		t.Fatal(err)
	}
	s.cli.MustRun("apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color")
	if err := s.Server.PurgeJob(devs[0], "reboot"); err != nil {
		t.Fatal(err)
	}
	if err := s.Server.PurgeFOTA(devs[1]); err != nil {
		t.Fatal(err)
	}
	s.Server.ResetCounters()

	for _, missing := range []string{localzdm.MissingFOTA404, localzdm.MissingFOTANull, localzdm.MissingFOTAEmpty} {
		if err := s.Server.SetChoices(localzdm.Choices{MissingFOTA: missing}); err != nil {
			t.Fatal(err)
		}
		out, code := s.plan()
		if code != 0 {
			t.Fatalf("missing_fota=%s: plan exit code %d, want 0 (no changes):\n%s", missing, code, out)
		}
		expectOutput(t, "plan", out,
			`(?s)The job "reboot" of device `+devs[0]+` is no longer returned by the service.*last-read\s+status`,
			`(?s)The firmware update of device `+devs[1]+` is no longer returned by the service`)
	}
	out := s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	expectOutput(t, "apply", out, `0 added, 0 changed, 0 destroyed`)
	s.cli.MustRun("apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color")
	st := s.stateValues(t)
	if st["zdm_device_job.j"]["status"] != "done" || st["zdm_fota.u"]["status"] != "pending" {
		t.Errorf("state after the purge: job %v, update %v; want the last-read statuses done and pending",
			st["zdm_device_job.j"], st["zdm_fota.u"])
	}
	if n := s.schedules(); n != 0 {
		t.Errorf("%d scheduling requests after the records were purged, want 0", n)
	}

	// A service that answers 404 to everything (a catch-all) proves nothing:
	// the state stays, with an error naming base_url.
	id, err := s.Server.AddRequestFault(localzdm.RequestFault{Path: "/v3/*", Action: localzdm.FaultNotFound})
	if err != nil {
		t.Fatal(err)
	}
	out, code := s.cli.Run("apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color")
	if code == 0 {
		t.Errorf("refresh under a catch-all 404 succeeded:\n%s", out)
	}
	for _, want := range []string{"could not be shown to see that workspace", "kept in the state"} {
		if !acctest.Wrapped(want).MatchString(out) {
			t.Errorf("refresh under a catch-all 404: the output does not hold %q:\n%s", want, out)
		}
	}
	if err := s.Server.RemoveRequestFault(id); err != nil {
		t.Fatal(err)
	}
	if st := s.stateValues(t); len(st) != 2 {
		t.Errorf("state after the catch-all 404: %d resources, want 2", len(st))
	}

	// Positive control: a change of triggers schedules the job once.
	s.write(t, body("2"))
	out = s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	expectOutput(t, "apply of new triggers", out, `0 added, 1 changed, 0 destroyed`)
	if n := s.Server.Counters()[acctest.JobPOST]; n != 1 {
		t.Errorf("%d job scheduling requests after a change of triggers, want 1", n)
	}

	// The device is gone (its workspace answers): the job leaves the state.
	if err := s.Server.DeleteDevice(devs[0]); err != nil {
		t.Fatal(err)
	}
	s.cli.MustRun("apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color")
	st = s.stateValues(t)
	if _, ok := st["zdm_device_job.j"]; ok {
		t.Errorf("the job of a deleted device is still in the state: %v", st)
	}
	if _, ok := st["zdm_fota.u"]; !ok {
		t.Errorf("the firmware update of a device that exists left the state")
	}
	if n := s.Server.Counters()[acctest.JobPOST]; n != 1 {
		t.Errorf("%d job scheduling requests in all, want 1", n)
	}
}

// TestAccScheduleAllFleetsMigration: a fleet job and a fleet-wide firmware
// update written before all_fleets existed (no fleet_ids: every fleet) plan
// an in-place change when all_fleets = true is added, and the apply sends
// nothing again. The state of that time is made by removing all_fleets
// from a pushed state.
func TestAccScheduleAllFleetsMigration(t *testing.T) {
	s := newSchedEnv(t)
	acctest.NewFleetWithDevices(t, s.Env, "east", "east-1", "east-2")
	ws := s.Bootstrap.WorkspaceID
	s.write(t, fmt.Sprintf(`
resource "zdm_fleet_job" "j" {
  workspace_id = %q
  all_fleets   = true
  name         = "sync_clock"
}

resource "zdm_fota" "u" {
  workspace_id     = %q
  all_fleets       = true
  firmware_id      = "fw"
  firmware_version = "1.0"
}
`, ws, ws))
	s.init()
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	if n := s.schedules(); n != 2 {
		t.Fatalf("%d scheduling requests for the first apply, want 2", n)
	}

	// The state as written before all_fleets existed.
	var full map[string]any
	if err := json.Unmarshal([]byte(s.cli.MustRun("state", "pull")), &full); err != nil {
		t.Fatal(err)
	}
	removed := 0
	resources, _ := full["resources"].([]any)
	for _, r := range resources {
		rm, _ := r.(map[string]any)
		instances, _ := rm["instances"].([]any)
		for _, inst := range instances {
			im, _ := inst.(map[string]any)
			if attrs, ok := im["attributes"].(map[string]any); ok {
				delete(attrs, "all_fleets")
				removed++
			}
		}
	}
	serial, _ := full["serial"].(float64)
	full["serial"] = serial + 1
	if removed != 2 {
		t.Fatalf("removed all_fleets from %d resources of the state, want 2", removed)
	}
	raw, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	s.cli.Write("old.tfstate", string(raw))
	s.cli.MustRun("state", "push", "old.tfstate")
	s.Server.ResetCounters()

	out, code := s.plan()
	if code != 2 {
		t.Fatalf("plan exit code %d, want 2 (all_fleets changes in place):\n%s", code, out)
	}
	expectOutput(t, "plan", out, `(?s)\+ all_fleets\s+= true`, `0 to add, 2 to change, 0 to destroy`)
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	if n := s.schedules(); n != 0 {
		t.Errorf("%d scheduling requests after adding all_fleets = true, want 0", n)
	}
	if out, code := s.plan(); code != 0 {
		t.Errorf("plan after the migration: exit code %d, want 0:\n%s", code, out)
	}
}

// valueCases are job values whose numbers the service rounds to float64.
var valueCases = []string{
	`jsonencode({ ratio = 1/3 })`,
	`jsonencode({ sum = 0.1 + 0.2 })`,
	`jsonencode({ pi = 3.14159265358979323846 })`,
	`jsonencode({ tiny = 1e-400 })`,
	`jsonencode({ big = 12345678901234567890, neg = -98765432109876543210 })`,
	`"{\"digits\": 0.12345678901234567890, \"n\": [1.00000000000000000001, 2]}"`,
}

// TestAccScheduleValuesConverge: job values with numbers beyond float64
// precision keep their configured text in the state, plan nothing after
// the apply, and are scheduled exactly once, on both job resources; then
// every echo the service may choose (missing, null, keys reordered) plans
// nothing either.
func TestAccScheduleValuesConverge(t *testing.T) {
	s := newSchedEnv(t)
	fleet, devs := acctest.NewFleetWithDevices(t, s.Env, "values", "v-0", "v-1", "v-2", "v-3", "v-4", "v-5")
	var body strings.Builder
	for i, v := range valueCases {
		fmt.Fprintf(&body, `
resource "zdm_device_job" "d%d" {
  device_id = %q
  name      = "configure"
  value     = %s
}

resource "zdm_fleet_job" "f%d" {
  workspace_id = %q
  fleet_ids    = [%q]
  name         = "fleet-%d"
  value        = %s
}

output "v%d" {
  value = %s
}
`, i, devs[i], v, i, s.Bootstrap.WorkspaceID, fleet, i, v, i, v)
	}
	s.write(t, body.String())
	s.init()
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	c := s.Server.Counters()
	if c[acctest.JobPOST] != int64(len(valueCases)) || c[acctest.FleetJobPOST] != int64(len(valueCases)) {
		t.Fatalf("scheduling requests: %d device jobs and %d fleet jobs, want %d each", c[acctest.JobPOST], c[acctest.FleetJobPOST], len(valueCases))
	}
	st := s.stateValues(t)
	var outputs map[string]struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal([]byte(s.cli.MustRun("output", "-json")), &outputs); err != nil {
		t.Fatal(err)
	}
	for i := range valueCases {
		for addr, name := range map[string]string{fmt.Sprintf("zdm_device_job.d%d", i): "configure", fmt.Sprintf("zdm_fleet_job.f%d", i): fmt.Sprintf("fleet-%d", i)} {
			j, err := acctest.APIClient(t, s.Env).GetJob(t.Context(), devs[i], name)
			if err != nil {
				t.Fatal(err)
			}
			v, _ := st[addr]["value"].(string)
			if want := outputs[fmt.Sprintf("v%d", i)].Value; v != want {
				t.Errorf("%s: the state holds %s, want the configured text %s (the service has %s)", addr, v, want, j.Value)
			}
			if !jsonvalue.Equal(v, string(j.Value)) {
				t.Errorf("%s: the state's %s and the service's %s differ", addr, v, j.Value)
			}
		}
	}
	s.Server.ResetCounters()
	for _, echo := range []string{localzdm.JobValueEcho, localzdm.JobValueOmit, localzdm.JobValueNull, localzdm.JobValueReorder} {
		if err := s.Server.SetChoices(localzdm.Choices{JobValue: echo}); err != nil {
			t.Fatal(err)
		}
		if out, code := s.plan(); code != 0 {
			t.Errorf("job_value=%s: plan exit code %d, want 0 (no changes):\n%s", echo, code, out)
		}
		out := s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
		expectOutput(t, "apply with job_value="+echo, out, `0 added, 0 changed, 0 destroyed`)
	}
	if n := s.schedules(); n != 0 {
		t.Errorf("%d scheduling requests after the first apply, want 0", n)
	}
}

// addFault adds a request fault and fails the test on error.
func (s *schedEnv) addFault(t *testing.T, f localzdm.RequestFault) {
	t.Helper()
	if _, err := s.Server.AddRequestFault(f); err != nil {
		t.Fatal(err)
	}
}

// TestAccScheduleAmbiguous: scheduling requests whose answer is lost are
// read back and adopted only when the service shows this request's
// scheduling, so that each command reaches the devices exactly as often as
// the configuration asks:
//
//   - a device job and a firmware update whose answers are dropped after the
//     service acted, on devices that complete at once: adopted in any
//     status, sent once;
//   - a fleet job and a fleet-wide update with dropped answers: every device
//     read back, adopted, sent once;
//   - a job that failed, retried by a change of triggers whose request is
//     reset before it reaches the service: the read-back shows only the old
//     scheduling (failed), so nothing is adopted, the apply fails saying the
//     job may not have reached the device, and the state keeps the old
//     triggers; the next apply sends it once.
func TestAccScheduleAmbiguous(t *testing.T) {
	s := newSchedEnv(t)
	fleet, devs := acctest.NewFleetWithDevices(t, s.Env, "amb", "amb-0", "amb-1", "amb-2")
	solo := acctest.NewDevices(t, s.Env, "amb-bad", "amb-solo")
	bad := solo[0]
	if err := s.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, FailDevices: []string{bad},
		JobFailureStatus: "failed"}); err != nil {
		t.Fatal(err)
	}
	ws := s.Bootstrap.WorkspaceID
	body := func(trigger string) string {
		return fmt.Sprintf(`
resource "zdm_device_job" "fast" {
  device_id = %q
  name      = "reboot"
  value     = jsonencode({ delay_s = 1 })
}

resource "zdm_fota" "fast" {
  device_id        = %q
  firmware_id      = "fw"
  firmware_version = "1.0"
}

resource "zdm_fleet_job" "all" {
  workspace_id = %q
  fleet_ids    = [%q]
  name         = "sync"
}

resource "zdm_fota" "fleet" {
  workspace_id     = %q
  fleet_ids        = [%q]
  firmware_id      = "fw-fleet"
  firmware_version = "2.0"
}

resource "zdm_device_job" "bad" {
  device_id = %q
  name      = "calibrate"
  triggers  = { attempt = %q }
}
`, devs[0], solo[1], ws, fleet, ws, fleet, bad, trigger)
	}
	s.write(t, body("1"))
	s.init()
	for _, path := range []string{
		"/v3/devices/" + devs[0] + "/jobs/reboot",
		"/v3/devices/" + solo[1] + "/fota/fw/versions/1.0",
		"/v3/workspace/" + ws + "/jobs/sync",
		"/v3/workspaces/" + ws + "/fota/fw-fleet/versions/2.0",
	} {
		s.addFault(t, localzdm.RequestFault{Method: "POST", Path: path, Action: localzdm.FaultDropAnswer, Count: 1})
	}
	out := s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	expectOutput(t, "apply with dropped answers", out,
		`(?s)Adopted a job after an interrupted request.*status done.*sent once`,
		`(?s)Adopted a firmware update after an interrupted request.*sent once`,
		`(?s)Adopted a fleet-wide scheduling after an interrupted request.*on 3 devices`,
		`5 added, 0 changed, 0 destroyed`)
	c := s.Server.Counters()
	if c[acctest.JobPOST] != 2 || c[acctest.FOTAPOST] != 1 || c[acctest.FleetJobPOST] != 1 || c[acctest.FleetFOTAPOST] != 1 {
		t.Errorf("scheduling requests: %d device jobs, %d updates, %d fleet jobs, %d fleet updates; want 2, 1, 1, 1",
			c[acctest.JobPOST], c[acctest.FOTAPOST], c[acctest.FleetJobPOST], c[acctest.FleetFOTAPOST])
	}
	st := s.stateValues(t)
	if devices, _ := st["zdm_fleet_job.all"]["devices"].([]any); len(devices) != 3 {
		t.Errorf("zdm_fleet_job.all devices = %v, want the 3 devices of the fleet", st["zdm_fleet_job.all"]["devices"])
	}
	if out, code := s.plan(); code != 0 {
		t.Errorf("plan after the adoptions: exit code %d, want 0:\n%s", code, out)
	}

	// The job failed on its device; a new trigger asks for it again, and the
	// request is reset before it reaches the service.
	old, err := acctest.APIClient(t, s.Env).GetJob(t.Context(), bad, "calibrate")
	if err != nil || old.Status != "failed" {
		t.Fatalf("job on the failing device: %+v, %v; want failed", old, err)
	}
	s.Server.ResetCounters()
	s.addFault(t, localzdm.RequestFault{Method: "POST", Path: "/v3/devices/" + bad + "/jobs/calibrate",
		Action: localzdm.FaultReset, Count: 1})
	s.write(t, body("2"))
	out, code := s.cli.Run("apply", "-auto-approve", "-input=false", "-no-color")
	if code == 0 {
		t.Fatalf("apply with a reset request succeeded:\n%s", out)
	}
	expectOutput(t, "apply with a reset request", out,
		`(?s)Cannot schedule again job "calibrate"`, `(?s)scheduling of\s.*status\s+failed`,
		`(?s)may not have\s+reached the service`, `(?s)Do not send it again before checking`)
	if strings.Contains(out, "Adopted") {
		t.Errorf("the previous scheduling was adopted for the new request:\n%s", out)
	}
	if j, _ := acctest.APIClient(t, s.Env).GetJob(t.Context(), bad, "calibrate"); j == nil || j.ScheduledAt != old.ScheduledAt {
		t.Errorf("the reset request acted: job %+v, want the old scheduling %s", j, old.ScheduledAt)
	}
	st = s.stateValues(t)
	if trig, _ := st["zdm_device_job.bad"]["triggers"].(map[string]any); trig["attempt"] != "1" {
		t.Errorf("state triggers after the failed apply = %v, want the old ones", trig)
	}
	// The user checked: the job was not sent. Applying again sends it once.
	out = s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	expectOutput(t, "apply after the reset", out, `0 added, 1 changed, 0 destroyed`)
	if n := s.Server.Counters()[acctest.JobPOST]; n != 2 {
		t.Errorf("%d job requests for the retry (one reset, one sent), want 2", n)
	}
	if j, _ := acctest.APIClient(t, s.Env).GetJob(t.Context(), bad, "calibrate"); j == nil || j.ScheduledAt == old.ScheduledAt {
		t.Errorf("the retry did not schedule the job: %+v", j)
	}
	if out, code := s.plan(); code != 0 {
		t.Errorf("final plan: exit code %d, want 0:\n%s", code, out)
	}
}

// TestAccScheduleInterrupted: one SIGINT while 8 device jobs, a fleet job
// and a fleet-wide firmware update are being scheduled (300 ms of server
// latency). Every scheduling request already sent is finished and saved in
// the state; none is sent again by the next apply, which sends only those
// that had not started. In all, the service receives exactly one
// scheduling request per resource.
func TestAccScheduleInterrupted(t *testing.T) {
	s := newSchedEnv(t)
	fleet, devs := acctest.NewFleetWithDevices(t, s.Env, "int", "int-0", "int-1", "int-2", "int-3", "int-4", "int-5", "int-6", "int-7")
	ws := s.Bootstrap.WorkspaceID
	s.write(t, fmt.Sprintf(`
variable "devices" {
  type    = list(string)
  default = [%s]
}

resource "zdm_device_job" "j" {
  count     = 8
  device_id = var.devices[count.index]
  name      = "reboot"
}

resource "zdm_fleet_job" "f" {
  workspace_id = %q
  fleet_ids    = [%q]
  name         = "sync"
}

resource "zdm_fota" "u" {
  workspace_id     = %q
  fleet_ids        = [%q]
  firmware_id      = "fw"
  firmware_version = "3.0"
}
`, strings.Join(objects.QuoteAll(devs), ", "), ws, fleet, ws, fleet))
	s.init()
	s.Server.SetFaults(localzdm.Faults{Latency: 300 * time.Millisecond})
	s.Server.ResetCounters()
	cmd, err := s.cli.S.Start(t.Context(), "apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=4")
	if err != nil {
		t.Fatal(err)
	}
	for s.schedules() < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Signal(os.Interrupt); err != nil {
		t.Fatalf("signal the CLI: %v", err)
	}
	res, err := cmd.Wait()
	if err != nil {
		t.Fatal(err)
	}
	first := s.Server.Counters()
	sentFirst := first[acctest.JobPOST] + first[acctest.FleetJobPOST] + first[acctest.FleetFOTAPOST]
	inState := len(s.stateValues(t))
	t.Logf("interrupted apply: exit %d, %d scheduling requests, %d resources in the state", res.ExitCode, sentFirst, inState)
	if int64(inState) != sentFirst {
		t.Errorf("%d scheduling requests reached the service, but %d resources are in the state:\n%s", sentFirst, inState, res.Output)
	}
	if sentFirst >= 10 {
		t.Errorf("the interrupt came after every request was sent (%d): the test proves nothing", sentFirst)
	}

	s.Server.SetFaults(localzdm.Faults{})
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	c := s.Server.Counters()
	if c[acctest.JobPOST] != 8 || c[acctest.FleetJobPOST] != 1 || c[acctest.FleetFOTAPOST] != 1 {
		t.Errorf("scheduling requests in all: %d device jobs, %d fleet jobs, %d fleet updates; want exactly 8, 1, 1",
			c[acctest.JobPOST], c[acctest.FleetJobPOST], c[acctest.FleetFOTAPOST])
	}
	if out, code := s.plan(); code != 0 {
		t.Errorf("plan after the re-apply: exit code %d, want 0:\n%s", code, out)
	}
}

// TestAccScheduleAddedFleets: adding a fleet to fleet_ids of a fleet job
// and of a fleet-wide firmware update sends them to the added fleet only,
// with a plan-time warning naming it: the devices of the fleet already
// targeted keep their scheduling and do not run it again. Removing a fleet
// sends nothing; a change of triggers (the positive control) sends to every
// targeted fleet.
func TestAccScheduleAddedFleets(t *testing.T) {
	s := newSchedEnv(t)
	fleetA, devsA := acctest.NewFleetWithDevices(t, s.Env, "add-a", "add-a-0", "add-a-1")
	fleetB, devsB := acctest.NewFleetWithDevices(t, s.Env, "add-b", "add-b-0")
	ws := s.Bootstrap.WorkspaceID
	body := func(fleets, trigger string) string {
		return fmt.Sprintf(`
resource "zdm_fleet_job" "j" {
  workspace_id = %q
  fleet_ids    = [%s]
  name         = "sync"
  triggers     = { run = %q }
}

resource "zdm_fota" "u" {
  workspace_id     = %q
  fleet_ids        = [%s]
  firmware_id      = "fw"
  firmware_version = "1.0"
  triggers         = { run = %q }
}
`, ws, fleets, trigger, ws, fleets, trigger)
	}
	a, ab := strconv.Quote(fleetA), strconv.Quote(fleetA)+", "+strconv.Quote(fleetB)
	s.write(t, body(a, "1"))
	s.init()
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	before, err := acctest.APIClient(t, s.Env).GetJob(t.Context(), devsA[0], "sync")
	if err != nil {
		t.Fatal(err)
	}
	beforeFOTA, err := acctest.APIClient(t, s.Env).GetFOTA(t.Context(), devsA[0])
	if err != nil {
		t.Fatal(err)
	}
	s.Server.ResetCounters()

	s.write(t, body(ab, "1"))
	out, code := s.plan()
	if code != 2 {
		t.Fatalf("plan exit code %d, want 2:\n%s", code, out)
	}
	expectOutput(t, "plan adding a fleet", out,
		`(?s)Only added fleets get the job.*Only the added fleets `+fleetB+` get the job.*`+fleetA+` already have it`,
		`(?s)Only added fleets get the firmware update`)
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	c := s.Server.Counters()
	if c[acctest.FleetJobPOST] != 1 || c[acctest.FleetFOTAPOST] != 1 {
		t.Errorf("fleet-wide requests: %d jobs, %d updates; want 1 each (to the added fleet)", c[acctest.FleetJobPOST], c[acctest.FleetFOTAPOST])
	}
	if j, _ := acctest.APIClient(t, s.Env).GetJob(t.Context(), devsA[0], "sync"); j == nil || j.ScheduledAt != before.ScheduledAt {
		t.Errorf("the job of fleet A's device was sent again: %+v, before %s", j, before.ScheduledAt)
	}
	if f, _ := acctest.APIClient(t, s.Env).GetFOTA(t.Context(), devsA[0]); f == nil || f.ScheduledAt != beforeFOTA.ScheduledAt {
		t.Errorf("the update of fleet A's device was sent again: %+v, before %s", f, beforeFOTA.ScheduledAt)
	}
	if _, err := acctest.APIClient(t, s.Env).GetJob(t.Context(), devsB[0], "sync"); err != nil {
		t.Errorf("the added fleet's device has no job: %v", err)
	}
	st := s.stateValues(t)
	for _, addr := range []string{"zdm_fleet_job.j", "zdm_fota.u"} {
		if devices, _ := st[addr]["devices"].([]any); len(devices) != 3 {
			t.Errorf("%s devices = %v, want the 3 devices of both fleets", addr, st[addr]["devices"])
		}
	}
	if out, code := s.plan(); code != 0 {
		t.Errorf("plan after adding a fleet: exit code %d, want 0:\n%s", code, out)
	}

	// Refresh reads each device: real progress instead of a frozen status.
	if err := s.Server.SetJobStatus(devsA[0], "sync", "done"); err != nil {
		t.Fatal(err)
	}
	if err := s.Server.SetFOTAStatus(devsB[0], "failed"); err != nil {
		t.Fatal(err)
	}
	s.cli.MustRun("apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color")
	st = s.stateValues(t)
	for addr, want := range map[string]string{
		"zdm_fleet_job.j": fmt.Sprintf(`{"done":1,"pending":2} not done %d`, 2),
		"zdm_fota.u":      fmt.Sprintf(`{"failed":1,"pending":2} not done %d`, 3),
	} {
		counts, _ := json.Marshal(st[addr]["status_counts"])
		notDone, _ := st[addr]["devices_not_done"].([]any)
		if got := fmt.Sprintf("%s not done %d", counts, len(notDone)); got != want {
			t.Errorf("%s progress = %s, want %s", addr, got, want)
		}
	}

	// Removing a fleet sends nothing.
	s.Server.ResetCounters()
	s.write(t, body(a, "1"))
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	if n := s.schedules(); n != 0 {
		t.Errorf("%d scheduling requests after removing a fleet, want 0", n)
	}
	// A change of triggers sends to every targeted fleet.
	s.write(t, body(ab, "2"))
	s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	if j, _ := acctest.APIClient(t, s.Env).GetJob(t.Context(), devsA[0], "sync"); j == nil || j.ScheduledAt == before.ScheduledAt {
		t.Errorf("a change of triggers did not send the job again to fleet A: %+v", j)
	}
}

// TestAccScheduleActionsFailFastAndLostAnswers (Terraform 1.14 and later):
//
//   - the firmware action waits with failure_statuses: a device that fails
//     ends the wait at its first poll, long before the 10-minute timeout,
//     and the error names the failed device and the one still pending (a
//     silent device), with their statuses;
//   - a fleet-wide job action whose request is reset before it reaches the
//     service says plainly that invoking it again sends the job again, and
//     no device got it;
//   - a fleet-wide job action whose answer is dropped after the service
//     acted goes on: every device shows the job, sent once.
func TestAccScheduleActionsFailFastAndLostAnswers(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	fleet, devs := acctest.NewFleetWithDevices(t, e, "act", "act-ok", "act-bad", "act-silent")
	if err := e.Server.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, FailDevices: []string{devs[1]},
		SilentDevices: []string{devs[2]}}); err != nil {
		t.Fatal(err)
	}
	action := func(kind, body, trigger string) string {
		return e.Config(fmt.Sprintf(`
action %q "a" {
  config {
    workspace_id = %q
    fleet_ids    = [%q]
    %s
  }
}
`, kind, ws, fleet, body) + acctest.TriggeredBy("action."+kind+".a", trigger))
	}
	jobPath := "/v3/workspace/" + ws + "/jobs/sync"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		TerraformVersionChecks:   acctest.ActionVersions,
		Steps: []resource.TestStep{
			{
				Config: action("zdm_schedule_fota", `
    firmware_id      = "fw"
    firmware_version = "9.0"
    wait             = true
    failure_statuses = ["failed"]
    timeout          = "10m"
    poll_interval    = "200ms"`, "1"),
				ExpectError: regexp.MustCompile(`(?s)firmware update fw 9\.0 failed on 1 of\s+3 devices:\s+` + devs[1] +
					`\s+\(failed\).*not done on 1:\s+` + devs[2] + `\s+\(pending\)`),
			},
			{
				PreConfig: func() {
					if _, err := e.Server.AddRequestFault(localzdm.RequestFault{Method: "POST", Path: jobPath,
						Action: localzdm.FaultReset, Count: 1}); err != nil {
						t.Fatal(err)
					}
				},
				Config: action("zdm_schedule_job", `name = "sync"`, "2"),
				ExpectError: regexp.MustCompile(`(?s)none of the 3\s+devices.*Invoking\s+the\s+action\s+again\s+sends\s+the\s+job\s+"sync"\s+again` +
					`\s+to\s+every\s+device\s+of\s+the\s+fleets`),
			},
			{
				PreConfig: func() {
					for _, d := range devs {
						if _, err := acctest.APIClient(t, e).GetJob(t.Context(), d, "sync"); err == nil {
							t.Errorf("device %s got the job of a reset request", d)
						}
					}
					e.Server.ResetCounters()
					if _, err := e.Server.AddRequestFault(localzdm.RequestFault{Method: "POST", Path: jobPath,
						Action: localzdm.FaultDropAnswer, Count: 1}); err != nil {
						t.Fatal(err)
					}
				},
				Config: action("zdm_schedule_job", `name = "sync"`, "3"),
				Check: func(*terraform.State) error {
					if n := e.Server.Counters()[acctest.FleetJobPOST]; n != 1 {
						return fmt.Errorf("%d fleet job requests, want 1", n)
					}
					for _, d := range devs {
						if _, err := acctest.APIClient(t, e).GetJob(t.Context(), d, "sync"); err != nil {
							return fmt.Errorf("device %s: %w", d, err)
						}
					}
					return nil
				},
			},
		},
	})
}

// TestAccScheduleFleetGate: the service is the ledger of fleet-wide sends.
// A device moved out of a targeted fleet into a fleet that fleet_ids then
// adds does not get the job or firmware update again, and neither do the
// devices of a fleet removed from fleet_ids and added back: before the
// fleet-wide request every device of the fleets is read, and the command
// goes one request each to the devices that lack it (the positive control:
// the fleet's other device, and a device created in the re-added fleet, get
// it exactly once).
func TestAccScheduleFleetGate(t *testing.T) {
	s := newSchedEnv(t)
	fleetA, devsA := acctest.NewFleetWithDevices(t, s.Env, "gate-a", "gate-a-0", "gate-a-1")
	fleetB, devsB := acctest.NewFleetWithDevices(t, s.Env, "gate-b", "gate-b-0")
	ws := s.Bootstrap.WorkspaceID
	body := func(fleets string) string {
		return fmt.Sprintf(`
resource "zdm_fleet_job" "j" {
  workspace_id = %q
  fleet_ids    = [%s]
  name         = "sync"
}

resource "zdm_fota" "u" {
  workspace_id     = %q
  fleet_ids        = [%s]
  firmware_id      = "fw"
  firmware_version = "1.0"
}
`, ws, fleets, ws, fleets)
	}
	api := acctest.APIClient(t, s.Env)
	// scheduledAt is the scheduled_at of the job and of the update of dev
	// ("" when it has none).
	scheduledAt := func(dev string) (string, string) {
		t.Helper()
		var job, fota string
		if j, err := api.GetJob(t.Context(), dev, "sync"); err == nil {
			job = j.ScheduledAt
		}
		if f, err := api.GetFOTA(t.Context(), dev); err == nil {
			fota = f.ScheduledAt
		}
		return job, fota
	}
	// expectSends checks the scheduling requests since the last reset:
	// no fleet-wide request, and perDevice requests of each kind.
	expectSends := func(what string, perDevice int64) {
		t.Helper()
		c := s.Server.Counters()
		if c[acctest.FleetJobPOST] != 0 || c[acctest.FleetFOTAPOST] != 0 || c[acctest.JobPOST] != perDevice || c[acctest.FOTAPOST] != perDevice {
			t.Errorf("%s: fleet-wide %d jobs, %d updates, per device %d jobs, %d updates; want no fleet-wide request and %d per device of each",
				what, c[acctest.FleetJobPOST], c[acctest.FleetFOTAPOST], c[acctest.JobPOST], c[acctest.FOTAPOST], perDevice)
		}
	}
	expectDevices := func(what string, want int) {
		t.Helper()
		st := s.stateValues(t)
		for _, addr := range []string{"zdm_fleet_job.j", "zdm_fota.u"} {
			if devices, _ := st[addr]["devices"].([]any); len(devices) != want {
				t.Errorf("%s: %s devices = %v, want %d devices", what, addr, st[addr]["devices"], want)
			}
		}
	}
	apply := func() string {
		return s.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	}
	a, b, ab := strconv.Quote(fleetA), strconv.Quote(fleetB), strconv.Quote(fleetA)+", "+strconv.Quote(fleetB)
	s.write(t, body(a))
	s.init()
	apply()
	moved := devsA[0]
	movedJob, movedFOTA := scheduledAt(moved)
	stayJob, stayFOTA := scheduledAt(devsA[1])
	if movedJob == "" || movedFOTA == "" {
		t.Fatalf("the first apply did not schedule on %s: job %q, update %q", moved, movedJob, movedFOTA)
	}

	// A device of A moves to B outside Terraform; fleet_ids adds B.
	if err := s.Server.MoveDevice(moved, fleetB); err != nil {
		t.Fatal(err)
	}
	s.Server.ResetCounters()
	s.write(t, body(ab))
	out, code := s.plan()
	if code != 2 {
		t.Fatalf("plan exit code %d, want 2:\n%s", code, out)
	}
	expectOutput(t, "plan adding a fleet", out, `(?s)Only the added fleets `+fleetB+` get the job, and only their\s+devices\s+that\s+lack\s+it`)
	out = apply()
	expectOutput(t, "apply adding a fleet", out, `(?s)sent only to the devices that lack it`)
	expectSends("apply adding the fleet of the moved device", 1)
	if j, f := scheduledAt(moved); j != movedJob || f != movedFOTA {
		t.Errorf("the moved device got the command again: job %s (was %s), update %s (was %s)", j, movedJob, f, movedFOTA)
	}
	if j, f := scheduledAt(devsB[0]); j == "" || f == "" {
		t.Errorf("the added fleet's device %s lacks the command: job %q, update %q", devsB[0], j, f)
	}
	expectDevices("after adding B", 3)
	if out, code := s.plan(); code != 0 {
		t.Errorf("plan after adding a fleet: exit code %d, want 0:\n%s", code, out)
	}

	// [A, B] -> [B] -> [A, B]: the devices of A keep their command; a
	// device created in A meanwhile gets it once.
	s.write(t, body(b))
	apply()
	newDevs, err := s.Server.CreateDevices(ws, fleetA, []string{"gate-a-2"})
	if err != nil {
		t.Fatal(err)
	}
	s.Server.ResetCounters()
	s.write(t, body(ab))
	apply()
	expectSends("apply adding back a removed fleet", 1)
	if j, f := scheduledAt(devsA[1]); j != stayJob || f != stayFOTA {
		t.Errorf("the device of the re-added fleet got the command again: job %s (was %s), update %s (was %s)", j, stayJob, f, stayFOTA)
	}
	if j, f := scheduledAt(newDevs[0]); j == "" || f == "" {
		t.Errorf("the device created in the re-added fleet lacks the command: job %q, update %q", j, f)
	}
	expectDevices("after adding A back", 4)
	if out, code := s.plan(); code != 0 {
		t.Errorf("plan after adding A back: exit code %d, want 0:\n%s", code, out)
	}
}
