package localzdm_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// setBehavior sets the device behavior through the admin API (viaHTTP) or
// the Go API.
func (e *env) setBehavior(viaHTTP bool, b localzdm.DeviceBehavior) {
	e.t.Helper()
	if viaHTTP {
		e.ok(e.admin(http.MethodPut, "/behavior", b), nil)
		return
	}
	if err := e.s.SetDeviceBehavior(b); err != nil {
		e.t.Fatalf("SetDeviceBehavior: %v", err)
	}
}

func (e *env) jobStatus(deviceID, name string) string {
	e.t.Helper()
	var out struct{ Job job }
	e.ok(e.api(http.MethodGet, "/devices/"+deviceID+"/jobs/"+name, nil), &out)
	return out.Job.Status
}

func (e *env) fotaStatus(deviceID string) string {
	e.t.Helper()
	var out struct{ FOTA fotaStatus }
	e.ok(e.api(http.MethodGet, "/devices/"+deviceID+"/fota", nil), &out)
	return out.FOTA.Status
}

// waitAnswered waits until the devices gave every planned answer.
func (e *env) waitAnswered() {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for e.s.PendingAnswers() > 0 {
		if time.Now().After(deadline) {
			e.t.Fatalf("%d device answers still planned", e.s.PendingAnswers())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBehaviorAnswersAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.createDevice("d", "")
	// Control: by default devices never answer.
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/j0", nil), nil)
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/fota/fw/versions/0", nil), nil)
	if e.jobStatus(d.ID, "j0") != "pending" || e.fotaStatus(d.ID) != "pending" {
		t.Fatal("devices answered without a behavior")
	}
	for i, viaHTTP := range []bool{false, true} {
		success := []string{"done", "installed"}[i]
		e.setBehavior(viaHTTP, localzdm.DeviceBehavior{Enabled: true, FOTASuccessStatus: map[bool]string{true: "installed"}[viaHTTP]})
		name := fmt.Sprintf("j%d", i+1)
		var sched struct{ Job job }
		e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/"+name, nil), &sched)
		if sched.Job.Status != "pending" {
			t.Fatalf("scheduling answered %q, want pending", sched.Job.Status)
		}
		if got := e.jobStatus(d.ID, name); got != "done" {
			t.Fatalf("job status after scheduling = %q, want done at once", got)
		}
		var fs struct{ FOTA fotaStatus }
		e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/fota/fw/versions/"+name, nil), &fs)
		if fs.FOTA.Status != "pending" {
			t.Fatalf("FOTA scheduling answered %q", fs.FOTA.Status)
		}
		if got := e.fotaStatus(d.ID); got != success {
			t.Fatalf("FOTA status = %q, want %q", got, success)
		}
	}
	// The job scheduled while devices did not answer was answered when the
	// behavior was turned on.
	if got := e.jobStatus(d.ID, "j0"); got != "done" {
		t.Fatalf("a job scheduled before the behavior: %q, want done", got)
	}
	var cur map[string]any
	e.ok(e.admin(http.MethodGet, "/behavior", nil), &cur)
	if cur["enabled"] != true || cur["fota_success_status"] != "installed" || cur["failure_status"] != "failed" || cur["pending_answers"] != 0.0 {
		t.Fatalf("GET /admin/behavior = %v", cur)
	}
}

func TestBehaviorDelay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.createDevice("d", "")
	// An answer due in ten minutes is planned, not given.
	e.setBehavior(true, localzdm.DeviceBehavior{Enabled: true, Delay: 10 * time.Minute})
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/slow", nil), nil)
	if got := e.jobStatus(d.ID, "slow"); got != "pending" || e.s.PendingAnswers() != 1 {
		t.Fatalf("status %q with %d answers planned, want pending and 1", got, e.s.PendingAnswers())
	}
	// A short delay: the device answers later, by itself.
	e.setBehavior(false, localzdm.DeviceBehavior{Enabled: true, Delay: 50 * time.Millisecond, Jitter: 20 * time.Millisecond})
	e.ok(e.api(http.MethodPost, "/workspace/"+e.b.WorkspaceID+"/jobs/fast?fleet="+d.FleetID, nil), nil)
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/fota/fw/versions/2", nil), nil)
	deadline := time.Now().Add(20 * time.Second)
	for e.jobStatus(d.ID, "fast") != "done" || e.fotaStatus(d.ID) != "done" {
		if time.Now().After(deadline) {
			t.Fatal("the delayed answers never came")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The slow job, still pending, was planned anew under the short delay.
	e.waitAnswered()
	if got := e.jobStatus(d.ID, "slow"); got != "done" {
		t.Fatalf("slow job %q after the delay was shortened, want done", got)
	}
	// Reset drops the planned answers.
	e.setBehavior(false, localzdm.DeviceBehavior{Enabled: true, Delay: 10 * time.Minute})
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/slow2", nil), nil)
	if n := e.s.PendingAnswers(); n != 1 {
		t.Fatalf("%d answers planned before Reset, want 1", n)
	}
	e.s.Reset()
	if n := e.s.PendingAnswers(); n != 0 {
		t.Fatalf("%d answers planned after Reset", n)
	}
	if b := e.s.CurrentDeviceBehavior(); b.Enabled {
		t.Fatalf("behavior after Reset = %+v", b)
	}
}

// behaviorFleet creates 20 devices named d00..d19 and returns their IDs.
func behaviorFleet(t *testing.T, e *env) []string {
	t.Helper()
	var out struct {
		DeviceIDs []string `json:"device_ids"`
	}
	var names []string
	for i := range 20 {
		names = append(names, fmt.Sprintf("d%02d", i))
	}
	e.ok(e.admin(http.MethodPost, "/workspaces/"+e.b.WorkspaceID+"/devices", map[string]any{"names": names}), &out)
	return out.DeviceIDs
}

// fleetOutcome schedules a fleet-wide job and FOTA on every fleet and
// returns the statuses by device name: "job/fota".
func fleetOutcome(t *testing.T, e *env, ids []string, name string) map[string]string {
	t.Helper()
	e.ok(e.api(http.MethodPost, "/workspace/"+e.b.WorkspaceID+"/jobs/"+name, nil), nil)
	e.ok(e.api(http.MethodPost, "/workspaces/"+e.b.WorkspaceID+"/fota/fw/versions/"+name, nil), nil)
	e.waitAnswered()
	out := map[string]string{}
	for i, id := range ids {
		out[fmt.Sprintf("d%02d", i)] = e.jobStatus(id, name) + "/" + e.fotaStatus(id)
	}
	return out
}

func countValues(m map[string]string) map[string]int {
	out := map[string]int{}
	for _, v := range m {
		out[v]++
	}
	return out
}

func TestBehaviorFractions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ids := behaviorFleet(t, e)
	b := localzdm.DeviceBehavior{
		Enabled: true, Delay: 5 * time.Millisecond, FailureFraction: 0.25, SilentFraction: 0.1,
		FailureStatus: "bricked", JobFailureStatus: "failed", Seed: 7,
	}
	e.setBehavior(true, b)
	got := fleetOutcome(t, e, ids, "a")
	want := map[string]int{"done/done": 13, "failed/bricked": 5, "pending/pending": 2}
	if c := countValues(got); !maps.Equal(c, want) {
		t.Fatalf("outcomes %v, want exactly %v: %v", c, want, got)
	}
	// Single-device schedulings give each device the same outcome.
	for i, id := range ids {
		e.ok(e.api(http.MethodPost, "/devices/"+id+"/jobs/b", nil), nil)
		e.ok(e.api(http.MethodPost, "/devices/"+id+"/fota/fw/versions/b", nil), nil)
		e.waitAnswered()
		name := fmt.Sprintf("d%02d", i)
		if s := e.jobStatus(id, "b") + "/" + e.fotaStatus(id); s != got[name] {
			t.Fatalf("%s: single scheduling %s, fleet-wide %s", name, s, got[name])
		}
	}
	// Without a job failure status, failing devices leave jobs pending.
	b.JobFailureStatus = ""
	e.setBehavior(false, b)
	got2 := fleetOutcome(t, e, ids, "c")
	for name, s := range got {
		want := s
		if s == "failed/bricked" {
			want = "pending/bricked"
		}
		if got2[name] != want {
			t.Fatalf("%s: %s, want %s", name, got2[name], want)
		}
	}
}

func TestBehaviorSeed(t *testing.T) {
	t.Parallel()
	outcome := func(seed uint64) map[string]string {
		e := newEnv(t)
		ids := behaviorFleet(t, e)
		e.setBehavior(false, localzdm.DeviceBehavior{Enabled: true, FailureFraction: 0.3, SilentFraction: 0.2, JobFailureStatus: "failed", Seed: seed})
		return fleetOutcome(t, e, ids, "x")
	}
	a, b, c := outcome(11), outcome(11), outcome(12)
	if !maps.Equal(a, b) {
		t.Fatalf("seed 11 gave different outcomes:\n%v\n%v", a, b)
	}
	if maps.Equal(a, c) {
		t.Fatalf("seeds 11 and 12 gave the same outcomes %v", a)
	}
	if !maps.Equal(countValues(a), countValues(c)) {
		t.Fatalf("seeds changed the counts: %v %v", countValues(a), countValues(c))
	}
}

func TestBehaviorListedDevices(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ids := behaviorFleet(t, e)
	e.setBehavior(true, localzdm.DeviceBehavior{
		Enabled: true, FailDevices: []string{ids[3], "d07"}, SilentDevices: []string{"d11"},
		FOTASuccessStatus: "success", JobFailureStatus: "error",
	})
	got := fleetOutcome(t, e, ids, "l")
	for name, s := range got {
		want := "done/success"
		switch name {
		case "d03", "d07":
			want = "error/failed"
		case "d11":
			want = "pending/pending"
		}
		if s != want {
			t.Fatalf("%s: %s, want %s (all: %v)", name, s, want, got)
		}
	}
}

func TestBehaviorRescheduleAndHandSet(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.createDevice("a", ""), e.createDevice("b", "")
	e.setBehavior(false, localzdm.DeviceBehavior{Enabled: true, Delay: 100 * time.Millisecond, FailDevices: []string{"a", "b"}, JobFailureStatus: "failed"})
	for _, d := range []device{a, b} {
		e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/j", nil), nil)
		e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/fota/fw/versions/1", nil), nil)
	}
	// Device a is rescheduled (same behavior): the answer planned for the
	// first scheduling does not touch the second one, which gets its own.
	e.ok(e.api(http.MethodPost, "/devices/"+a.ID+"/jobs/j", nil), nil)
	e.ok(e.api(http.MethodPost, "/devices/"+a.ID+"/fota/fw/versions/2", nil), nil)
	if n := e.s.PendingAnswers(); n != 6 {
		t.Fatalf("%d answers planned, want 6 (2 stale, 4 current)", n)
	}
	// A silent behavior for a: the pending work of both devices is planned
	// anew under it: a stays silent, b now succeeds at once.
	e.setBehavior(false, localzdm.DeviceBehavior{Enabled: true, SilentDevices: []string{"a"}})
	e.waitAnswered()
	if j, f := e.jobStatus(a.ID, "j"), e.fotaStatus(a.ID); j != "pending" || f != "pending" {
		t.Fatalf("silent device a: job %q, FOTA %q, want both pending", j, f)
	}
	if j, f := e.jobStatus(b.ID, "j"), e.fotaStatus(b.ID); j != "done" || f != "done" {
		t.Fatalf("device b: job %q, FOTA %q, want both done under the new behavior", j, f)
	}
	// The manual admin status setters still work.
	e.ok(e.admin(http.MethodPut, "/devices/"+a.ID+"/jobs/j/status", map[string]string{"status": "done"}), nil)
	e.ok(e.admin(http.MethodPut, "/devices/"+a.ID+"/fota/status", map[string]string{"status": "rolled-back"}), nil)
	if j, f := e.jobStatus(a.ID, "j"), e.fotaStatus(a.ID); j != "done" || f != "rolled-back" {
		t.Fatalf("after setting by hand: job %q, FOTA %q", j, f)
	}
}

func TestBehaviorInvalid(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		b    localzdm.DeviceBehavior
		want string
	}{
		{localzdm.DeviceBehavior{Delay: -time.Second}, `"delay" must not be negative, got -1s`},
		{localzdm.DeviceBehavior{Delay: 2 * time.Hour}, `"delay" must be at most 1h0m0s, got 2h0m0s`},
		{localzdm.DeviceBehavior{Jitter: -time.Millisecond}, `"jitter" must not be negative, got -1ms`},
		{localzdm.DeviceBehavior{FailureFraction: 1.5}, `"failure_fraction" must be between 0 and 1`},
		{localzdm.DeviceBehavior{SilentFraction: -0.1}, `"silent_fraction" must be between 0 and 1`},
		{localzdm.DeviceBehavior{FailureFraction: 0.6, SilentFraction: 0.6}, `add up to at most 1`},
		{localzdm.DeviceBehavior{FailureStatus: "Failed"}, `"failure_status" must be a lower-case word`},
		{localzdm.DeviceBehavior{FOTASuccessStatus: "ok!"}, `"fota_success_status" must be a lower-case word`},
		{localzdm.DeviceBehavior{JobFailureStatus: "done"}, `"job_failure_status" must be a lower-case word of at most 32 characters other than "done"`},
		{localzdm.DeviceBehavior{FailDevices: []string{""}}, `"fail_devices[0]" must not be empty`},
		{localzdm.DeviceBehavior{SilentDevices: []string{"a", ""}}, `"silent_devices[1]" must not be empty`},
	} {
		err := e.s.SetDeviceBehavior(tc.b)
		var le *localzdm.Error
		if !errors.As(err, &le) || le.Status != http.StatusBadRequest || !strings.Contains(le.Message, tc.want) {
			t.Fatalf("SetDeviceBehavior(%+v) = %v, want 400 %s", tc.b, err, tc.want)
		}
		e.fails(e.admin(http.MethodPut, "/behavior", tc.b), http.StatusBadRequest, tc.want)
		if _, err := localzdm.New(localzdm.Options{DeviceBehavior: tc.b}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("New with %+v = %v", tc.b, err)
		}
	}
	// A job status beyond the specification cannot go into a state file.
	stateful := localzdm.StartTestWithOptions(t, localzdm.Options{StateFile: t.TempDir() + "/state.json"})
	if err := stateful.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, JobFailureStatus: "failed"}); err == nil ||
		!strings.Contains(err.Error(), "cannot be used with a state file") {
		t.Fatalf("job failure status with a state file: %v", err)
	}
	if err := stateful.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, FailureFraction: 1}); err != nil {
		t.Fatalf("behavior without a job failure status, with a state file: %v", err)
	}
	// Durations may be numbers of milliseconds in the admin API.
	var got struct {
		Delay  string `json:"delay"`
		Jitter string `json:"jitter"`
	}
	e.ok(e.admin(http.MethodPut, "/behavior", json.RawMessage(`{"enabled":true,"delay":1500,"jitter":"2s"}`)), &got)
	if got.Delay != "1.5s" || got.Jitter != "2s" {
		t.Fatalf("behavior = %+v", got)
	}
}

// TestBehaviorAnswersPendingAfterRestart: a job left pending in the state
// file by a server whose devices did not answer is answered by the next
// server, whose devices do. Control: a restart without a behavior leaves it
// pending.
func TestBehaviorAnswersPendingAfterRestart(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "state.json")
	s1 := localzdm.StartTestWithOptions(t, localzdm.Options{StateFile: file})
	e := attachEnv(t, s1)
	d := e.createDevice("d", "")
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/j", nil), nil)
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	for _, on := range []bool{false, true} {
		s := localzdm.StartTestWithOptions(t, localzdm.Options{StateFile: file, DeviceBehavior: localzdm.DeviceBehavior{Enabled: on}})
		e := &env{t: t, s: s, b: e.b, hc: e.hc} // the same key, restored
		want := map[bool]string{false: "pending", true: "done"}[on]
		if got := e.jobStatus(d.ID, "j"); got != want {
			t.Fatalf("devices answer %v: job %q after the restart, want %q", on, got, want)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
