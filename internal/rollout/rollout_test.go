package rollout

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

func TestParseWaves(t *testing.T) {
	good := map[string][]int{ // waves -> reach of 200 devices
		"1%,10%,50%,100%": {2, 20, 100, 200},
		"5,50,100%":       {5, 50, 200},
		"100%":            {200},
		"0.5%,100%":       {1, 200},
		"5,10%,100%":      {5, 20, 200},
	}
	for in, want := range good {
		w, err := ParseWaves(strings.Split(in, ","))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		for i, n := range want {
			if got := w[i].Reach(200); got != n {
				t.Errorf("%s: wave %d reaches %d of 200, want %d", in, i+1, got, n)
			}
		}
	}
	bad := map[string]string{
		"":              "neither a percentage",
		"10%,50%":       `must be "100%"`,
		"50%,10%,100%":  "waves grow",
		"10,5,100%":     "waves grow",
		"0%,100%":       "above 0%",
		"101%":          "at most 100%",
		"-3,100%":       "at least 1",
		"ten,100%":      "neither a percentage",
		"100%,100%":     "waves grow",
		"10%,NaN%,100%": "above 0%",
	}
	for in, want := range bad {
		if _, err := ParseWaves(strings.Split(in, ",")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", in, err, want)
		}
	}
	if _, err := ParseWaves(nil); err == nil {
		t.Error("no waves: no error")
	}
	// 1% of a small fleet is one device; 10% of 30 is exactly 3.
	w, _ := ParseWave("1%")
	if w.Reach(10) != 1 || w.Reach(0) != 0 {
		t.Errorf("1%% reaches %d of 10 and %d of 0", w.Reach(10), w.Reach(0))
	}
	w, _ = ParseWave("10%")
	if w.Reach(30) != 3 {
		t.Errorf("10%% of 30 = %d", w.Reach(30))
	}
	if MaxFailures(0.1, 10) != 1 || MaxFailures(0, 10) != 0 || MaxFailures(0.3, 10) != 3 || MaxFailures(1, 7) != 7 {
		t.Error("MaxFailures")
	}
}

func TestOrderIsStableAndSalted(t *testing.T) {
	ids := make([]string, 50)
	for i := range ids {
		ids[i] = fmt.Sprintf("dev-%02d", i)
	}
	a := Order("ws\x00fw\x001.0\x00", ids)
	shuffled := slices.Clone(ids)
	slices.Reverse(shuffled)
	if b := Order("ws\x00fw\x001.0\x00", shuffled); !slices.Equal(a, b) {
		t.Fatal("the order depends on the input order")
	}
	if slices.Equal(a, ids) {
		t.Fatal("the order is the sorted order: not salted")
	}
	if c := Order("ws\x00fw\x001.1\x00", ids); slices.Equal(a, c) {
		t.Fatal("another firmware version gives the same order")
	}
	// Adding devices keeps the relative order of the others.
	more := Order("ws\x00fw\x001.0\x00", append(slices.Clone(ids), "dev-new-1", "dev-new-2"))
	more = slices.DeleteFunc(more, func(s string) bool { return strings.HasPrefix(s, "dev-new") })
	if !slices.Equal(a, more) {
		t.Fatal("new devices changed the relative order of the others")
	}
}

// env is a local server with a workspace of devices in two fleets whose
// devices answer the firmware updates scheduled on them (see answer).
type env struct {
	srv   *localzdm.Server
	c     *client.Client
	ws    string
	fleet string
	other string
	ids   []string
	// outside is a device of the other fleet.
	outside string
	// key is the API key of the workspace.
	key string
}

func newEnv(t *testing.T, n int) *env {
	t.Helper()
	srv := localzdm.StartTest(t)
	b, err := srv.Bootstrap("rollout")
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Config{BaseURL: srv.BaseURL(), APIKey: b.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{srv: srv, c: c, ws: b.WorkspaceID, key: b.APIKey}
	ctx := context.Background()
	fl, err := c.CreateFleet(ctx, e.ws, "target", "")
	if err != nil {
		t.Fatal(err)
	}
	other, err := c.CreateFleet(ctx, e.ws, "other", "")
	if err != nil {
		t.Fatal(err)
	}
	e.fleet, e.other = fl.ID, other.ID
	// The device of the other fleet is older than the fleet's devices.
	out, err := srv.CreateDevices(e.ws, other.ID, []string{"outside"})
	if err != nil {
		t.Fatal(err)
	}
	e.outside = out[0]
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("d%03d", i)
	}
	if e.ids, err = srv.CreateDevices(e.ws, fl.ID, names); err != nil {
		t.Fatal(err)
	}
	e.answer(t)
	return e
}

// answer makes the devices answer the updates scheduled from now on after
// 5 to 25 ms: "done", or "failed" for the devices in failing.
func (e *env) answer(t *testing.T, failing ...string) {
	t.Helper()
	err := e.srv.SetDeviceBehavior(localzdm.DeviceBehavior{Enabled: true, Delay: 5 * time.Millisecond,
		Jitter: 20 * time.Millisecond, FailureStatus: "failed", FailDevices: failing, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
}

// silence makes the devices never answer the updates scheduled from now on.
func (e *env) silence(t *testing.T) {
	t.Helper()
	if err := e.srv.SetDeviceBehavior(localzdm.DeviceBehavior{}); err != nil {
		t.Fatal(err)
	}
}

func (e *env) spec(waves ...string) Spec {
	w, err := ParseWaves(waves)
	if err != nil {
		panic(err)
	}
	return Spec{WorkspaceID: e.ws, FleetIDs: []string{e.fleet}, Command: FOTA(fleetstatus.Firmware{ID: "fw", Version: "2.0"}),
		Waves: w, Failure: []string{"failed"}, WaveTimeout: 5 * time.Second, PollInterval: 10 * time.Millisecond,
		Parallel: 4}
}

// schedules is the number of single-device firmware schedules the server
// received.
func (e *env) schedules() int64 {
	return e.srv.Counters()["POST /v3/devices/{device_id}/fota/{firmware_id}/versions/{firmware_version}"]
}

func TestRunCompletes(t *testing.T) {
	e := newEnv(t, 20)
	var lines []string
	rec, err := Run(context.Background(), e.c, e.spec("10%", "50%", "100%"), nil, func(s string) { lines = append(lines, s) })
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != StatusCompleted || rec.WavesCompleted() != 3 {
		t.Fatalf("record = %+v", rec)
	}
	for k, want := range []int{2, 8, 10} {
		w := rec.Waves[k]
		if len(w.DeviceIDs) != want || w.Scheduled != want || w.Counts["done"] != want {
			t.Errorf("wave %d: %d devices, %d scheduled, counts %v; want %d", k+1, len(w.DeviceIDs), w.Scheduled, w.Counts, want)
		}
	}
	if got := rec.Devices(); !slices.Equal(got, slices.Sorted(slices.Values(e.ids))) {
		t.Errorf("devices = %v, want every device of the fleet and none outside", got)
	}
	if n := e.schedules(); n != 20 {
		t.Errorf("%d schedules sent, want 20", n)
	}
	// The first wave is the first two devices of the rollout's order.
	order := Order(e.spec("100%").Identity(), e.ids)
	if !slices.Equal(rec.Waves[0].DeviceIDs, slices.Sorted(slices.Values(order[:2]))) {
		t.Errorf("wave 1 = %v, want the first of the order %v", rec.Waves[0].DeviceIDs, order[:2])
	}
	if len(lines) == 0 || !strings.Contains(strings.Join(lines, "\n"), "Wave 3 of 3 (100%): complete") {
		t.Errorf("progress = %q", lines)
	}
	// Running again schedules nothing.
	again, err := Run(context.Background(), e.c, e.spec("10%", "50%", "100%"), &rec, nil)
	if err != nil || again.Status != StatusCompleted || e.schedules() != 20 {
		t.Fatalf("second run: %v, %+v, %d schedules", err, again, e.schedules())
	}
}

func TestRunGateStopsThenResumes(t *testing.T) {
	e := newEnv(t, 20)
	spec := e.spec("10%", "50%", "100%")
	spec.MaxFailureRatio = 0.25
	// A salt that orders the device of the other fleet among the first
	// three: once it moves into the fleet, its place is in wave 1 (which
	// then reaches 3 of 21), a wave already complete.
	for i := 0; ; i++ {
		spec.Salt = fmt.Sprint(i)
		if slices.Index(Order(spec.Identity(), append(slices.Clone(e.ids), e.outside)), e.outside) < 3 {
			break
		}
	}
	order := Order(spec.Identity(), e.ids)
	// Wave 2 is order[2:10]: three of its eight fail, more than 25% (2).
	e.answer(t, order[3:6]...)
	rec, err := Run(context.Background(), e.c, spec, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "Wave 2 of 3 (50%) stopped the rollout: 3 of 8 devices failed") {
		t.Fatalf("err = %v", err)
	}
	for _, id := range order[3:6] {
		if !strings.Contains(err.Error(), id+" (failed)") {
			t.Errorf("error does not name %s (failed): %v", id, err)
		}
	}
	if rec.Status != StatusStopped || rec.WavesCompleted() != 1 || len(rec.Waves[1].DeviceIDs) != 8 || len(rec.Waves[2].DeviceIDs) != 0 {
		t.Fatalf("record = %+v", rec)
	}
	if n := e.schedules(); n != 10 {
		t.Fatalf("%d schedules, want 10 (waves 1 and 2)", n)
	}
	// Re-running without a fix stops again at wave 2 and schedules nothing.
	if _, err := Run(context.Background(), e.c, spec, &rec, nil); err == nil || e.schedules() != 10 {
		t.Fatalf("rerun: %v, %d schedules", err, e.schedules())
	}
	// The device created before the rollout moves into the fleet meanwhile:
	// it joined later; its place is in wave 1, complete: it goes to the
	// last wave instead of being skipped.
	moved := e.outside
	if _, err := e.c.UpdateDevice(context.Background(), e.ws, moved, "outside", e.fleet); err != nil {
		t.Fatal(err)
	}
	// The failed devices are fixed (they install the firmware after all):
	// the run resumes at wave 2 and schedules the rest.
	for _, id := range order[3:6] {
		if err := e.srv.SetFOTAStatus(id, "done"); err != nil {
			t.Fatal(err)
		}
	}
	resumed, err := Run(context.Background(), e.c, spec, &rec, nil)
	if err != nil || resumed.Status != StatusCompleted {
		t.Fatalf("resume: %v %+v", err, resumed)
	}
	if n := e.schedules(); n != 21 {
		t.Errorf("%d schedules after the resume, want 21 (20 and the moved device): no device twice", n)
	}
	if !slices.Contains(resumed.Devices(), moved) || len(resumed.Devices()) != 21 {
		t.Errorf("devices = %d, moved device %s included: %v", len(resumed.Devices()), moved, slices.Contains(resumed.Devices(), moved))
	}
	if !slices.Equal(resumed.Waves[0].DeviceIDs, rec.Waves[0].DeviceIDs) || resumed.Waves[0].Scheduled != 2 {
		t.Errorf("wave 1 changed: %+v, was %+v", resumed.Waves[0], rec.Waves[0])
	}
	if !slices.Contains(resumed.Waves[2].DeviceIDs, moved) {
		t.Errorf("the moved device is not in the last wave: %+v", resumed.Waves)
	}
	if resumed.Waves[1].Scheduled+resumed.Waves[2].Scheduled != 19 {
		t.Errorf("scheduled per wave = %d, %d, %d", resumed.Waves[0].Scheduled, resumed.Waves[1].Scheduled, resumed.Waves[2].Scheduled)
	}
}

func TestRunWithoutRecordSchedulesNoDeviceTwice(t *testing.T) {
	e := newEnv(t, 20)
	spec := e.spec("10%", "50%", "100%")
	order := Order(spec.Identity(), e.ids)
	e.answer(t, order[4])
	rec, err := Run(context.Background(), e.c, spec, nil, nil)
	if err == nil || rec.WavesCompleted() != 1 {
		t.Fatalf("first run: %v, %+v", err, rec)
	}
	if err := e.srv.SetFOTAStatus(order[4], "done"); err != nil {
		t.Fatal(err)
	}
	// The record is lost (a replaced resource, the action): the devices
	// that have the firmware are found and not scheduled again, and fall
	// into the same waves.
	resumed, err := Run(context.Background(), e.c, spec, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := e.schedules(); n != 20 {
		t.Errorf("%d schedules, want 20", n)
	}
	if !slices.Equal(resumed.Waves[1].DeviceIDs, rec.Waves[1].DeviceIDs) || resumed.Waves[1].Scheduled != 0 || resumed.Waves[2].Scheduled != 10 {
		t.Errorf("resumed waves = %+v, first run %+v", resumed.Waves, rec.Waves)
	}
}

func TestRunTimesOutAndLateDevicesGoLast(t *testing.T) {
	e := newEnv(t, 10)
	e.silence(t)
	spec := e.spec("20%", "100%")
	spec.WaveTimeout = 100 * time.Millisecond
	rec, err := Run(context.Background(), e.c, spec, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "Wave 1 of 2 (20%) is not done after wave_timeout 100ms: 2 of 2 devices not done") ||
		!strings.Contains(err.Error(), "(pending)") {
		t.Fatalf("err = %v", err)
	}
	if rec.Waves[0].Counts["pending"] != 2 {
		t.Errorf("counts = %v", rec.Waves[0].Counts)
	}
	// Devices created after the start go to the last wave, not the first:
	// the next run schedules nothing in wave 1.
	time.Sleep(5 * time.Millisecond)
	late, err := e.srv.CreateDevices(e.ws, e.fleet, []string{"late-1", "late-2", "late-3", "late-4"})
	if err != nil {
		t.Fatal(err)
	}
	// Wave 1's devices answer late; the next waves answer.
	for _, id := range rec.Waves[0].DeviceIDs {
		if err := e.srv.SetFOTAStatus(id, "done"); err != nil {
			t.Fatal(err)
		}
	}
	e.answer(t)
	done, err := Run(context.Background(), e.c, spec, &rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Waves[0].DeviceIDs) != 2 || len(done.Waves[1].DeviceIDs) != 12 {
		t.Errorf("waves = %+v", done.Waves)
	}
	for _, id := range late {
		if !slices.Contains(done.Waves[1].DeviceIDs, id) {
			t.Errorf("late device %s not in the last wave", id)
		}
	}
	if n := e.schedules(); n != 14 {
		t.Errorf("%d schedules, want 14", n)
	}
}

func TestRunStopsWhenCancelled(t *testing.T) {
	e := newEnv(t, 6)
	e.silence(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	spec := e.spec("50%", "100%")
	spec.WaveTimeout = time.Hour
	rec, err := Run(ctx, e.c, spec, nil, nil)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if rec.Status != StatusStopped || len(rec.Waves[0].DeviceIDs) != 3 {
		t.Errorf("record = %+v: the scheduled devices must be recorded", rec)
	}
}

// TestRunAmbiguousSchedules: every schedule acts, then the connection drops
// before the answer. Each device is read back and taken as scheduled; none
// is sent twice.
func TestRunAmbiguousSchedules(t *testing.T) {
	e := newEnv(t, 8)
	e.srv.SetFaults(localzdm.Faults{DropAfterCreate: true})
	// The fault makes a schedule ambiguous (positive control, on a device
	// outside the rollout's fleet).
	outside, err := e.srv.CreateDevices(e.ws, e.other, []string{"control"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.ScheduleFOTA(context.Background(), outside[0], "fw", "0.1"); !errors.Is(err, client.ErrAmbiguous) {
		t.Fatalf("schedule under DropAfterCreate: err = %v, want ErrAmbiguous", err)
	}
	e.srv.ResetCounters()
	rec, err := Run(context.Background(), e.c, e.spec("50%", "100%"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != StatusCompleted || rec.Waves[0].Scheduled != 4 || rec.Waves[1].Scheduled != 4 {
		t.Fatalf("record = %+v", rec)
	}
	if n := e.schedules(); n != 8 {
		t.Errorf("%d schedules, want 8: an ambiguous schedule must not be sent again", n)
	}
}

// TestRunHeldSchedule: the service holds each schedule longer than the
// client's request timeout, then acts. The first read-back finds nothing
// yet; reading again until the request may have landed finds the firmware:
// the rollout completes and no device is sent the firmware twice. (Reading
// back once, the rollout failed and told to apply again, which sent it a
// second time.)
func TestRunHeldSchedule(t *testing.T) {
	e := newEnv(t, 2)
	c, err := client.New(client.Config{BaseURL: e.srv.BaseURL(), APIKey: e.key, RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.AddRequestFault(localzdm.RequestFault{Method: "POST",
		Path:   "/v3/devices/{device_id}/fota/{firmware_id}/versions/{firmware_version}",
		Action: "delay", Delay: 3 * time.Second}); err != nil {
		t.Fatal(err)
	}
	e.srv.ResetCounters()
	rec, err := Run(context.Background(), c, e.spec("100%"), nil, nil)
	if err != nil {
		t.Fatalf("rollout: %v", err)
	}
	if rec.Status != StatusCompleted || rec.Waves[0].Scheduled != 2 {
		t.Fatalf("record = %+v", rec)
	}
	if n := e.schedules(); n != 2 {
		t.Errorf("%d schedules for 2 devices, want 2", n)
	}
}

// jobSpec is a rollout of the job "reboot" with value to the test fleet.
func (e *env) jobSpec(value string, waves ...string) Spec {
	s := e.spec(waves...)
	s.Command, s.Failure = Job("reboot", []byte(value)), nil
	return s
}

// jobSchedules is the number of single-device job schedules the server
// received.
func (e *env) jobSchedules() int64 {
	return e.srv.Counters()["POST /v3/devices/{device_id}/jobs/{job_name}"]
}

func TestIdentityOfCommands(t *testing.T) {
	fw := Identity("ws", FOTA(fleetstatus.Firmware{ID: "fw", Version: "1.0"}), "s")
	if fw != "ws\x00fw\x001.0\x00s" {
		t.Errorf("FOTA identity = %q: the order of firmware rollouts must not change", fw)
	}
	a := Identity("ws", Job("reboot", []byte(`{"a": 1}`)), "s")
	if b := Identity("ws", Job("reboot", []byte(`{"a":1}`)), "s"); a != b {
		t.Errorf("white space changes the job identity: %q, %q", a, b)
	}
	if b := Identity("ws", Job("reboot", []byte(`{"a":2}`)), "s"); a == b {
		t.Error("another value gives the same job identity")
	}
	if b := Identity("ws", Job("reset", []byte(`{"a":1}`)), "s"); a == b {
		t.Error("another job name gives the same job identity")
	}
}

func TestJobCommandMatches(t *testing.T) {
	j, ok := Job("reboot", []byte(`{"a": 1.0, "b": "x"}`)).(jobCommand)
	if !ok {
		t.Fatal("Job is not a jobCommand")
	}
	for _, tc := range []struct {
		value string
		found bool
		has   bool
	}{
		{`{"b":"x","a":1}`, true, true},
		{`null`, true, true}, // not echoed: cannot be told apart
		{``, true, true},
		{`{"a":2,"b":"x"}`, true, false},
		{`{"a":1,"b":"x"}`, false, false},
	} {
		d := fleetstatus.Device{ID: "d", Found: tc.found, Status: "pending", Value: []byte(tc.value)}
		if got := j.has(d); got != tc.has {
			t.Errorf("has(%s, found %v) = %v, want %v", tc.value, tc.found, got, tc.has)
		}
		if replaced := j.replaced(d) != ""; replaced != (tc.found && !tc.has) {
			t.Errorf("replaced(%s, found %v) = %v", tc.value, tc.found, replaced)
		}
	}
	if empty, ok := Job("reboot", nil).(jobCommand); !ok || empty.value != "{}" {
		t.Errorf("value of a job without value = %q, want {}", empty.value)
	}
}

// TestRunJobWaves: a job rolls out in waves in the rollout's order with its
// value; a device that already has the job with the same value is not sent
// it, one with another value is; a second run sends nothing.
func TestRunJobWaves(t *testing.T) {
	e := newEnv(t, 20)
	spec := e.jobSpec(`{"reason": "upgrade"}`, "10%", "50%", "100%")
	order := Order(spec.Identity(), e.ids)
	ctx := context.Background()
	// order[15] has the job already (same value, written differently);
	// order[16] has it with another value.
	if _, err := e.c.ScheduleJob(ctx, order[15], "reboot", []byte(`{"reason":"upgrade"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.ScheduleJob(ctx, order[16], "reboot", []byte(`{"reason":"other"}`)); err != nil {
		t.Fatal(err)
	}
	e.srv.ResetCounters()
	var lines []string
	rec, err := Run(ctx, e.c, spec, nil, func(s string) { lines = append(lines, s) })
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != StatusCompleted || rec.WavesCompleted() != 3 {
		t.Fatalf("record = %+v", rec)
	}
	for k, want := range []struct{ devices, scheduled int }{{2, 2}, {8, 8}, {10, 9}} {
		w := rec.Waves[k]
		if len(w.DeviceIDs) != want.devices || w.Scheduled != want.scheduled || w.Counts["done"] != want.devices {
			t.Errorf("wave %d: %d devices, %d scheduled, counts %v; want %+v", k+1, len(w.DeviceIDs), w.Scheduled, w.Counts, want)
		}
	}
	if !slices.Equal(rec.Waves[0].DeviceIDs, slices.Sorted(slices.Values(order[:2]))) {
		t.Errorf("wave 1 = %v, want the first of the order %v", rec.Waves[0].DeviceIDs, order[:2])
	}
	if n := e.jobSchedules(); n != 19 {
		t.Errorf("%d job schedules, want 19 (every device but the one that had the job)", n)
	}
	for _, id := range []string{order[0], order[16]} {
		j, err := e.c.GetJob(ctx, id, "reboot")
		if err != nil || string(j.Value) != `{"reason":"upgrade"}` {
			t.Errorf("job of %s = %+v, %v", id, j, err)
		}
	}
	if !strings.Contains(strings.Join(lines, "\n"), `Rollout of job "reboot": 20 devices in 3 waves`) {
		t.Errorf("progress = %q", lines)
	}
	again, err := Run(ctx, e.c, spec, &rec, nil)
	if err != nil || again.Status != StatusCompleted || e.jobSchedules() != 19 {
		t.Fatalf("second run: %v, %+v, %d schedules", err, again, e.jobSchedules())
	}
}

// TestRunJobTimeoutGate: jobs report only pending and done, so devices not
// done at wave_timeout count as failed. Within max_failure_ratio the wave
// passes and the rollout goes on; beyond it the rollout stops, and a
// resume sends nothing twice.
func TestRunJobTimeoutGate(t *testing.T) {
	e := newEnv(t, 10)
	spec := e.jobSpec(`{}`, "50%", "100%")
	spec.WaveTimeout = 300 * time.Millisecond
	order := Order(spec.Identity(), e.ids)
	// One device of wave 1 and two of wave 2 never finish the job.
	e.answer(t, order[0], order[5], order[6])
	spec.MaxFailureRatio = 0.2 // 1 of 5 allowed
	var lines []string
	rec, err := Run(context.Background(), e.c, spec, nil, func(s string) { lines = append(lines, s) })
	if err == nil || !strings.Contains(err.Error(), "Wave 2 of 2 (100%) stopped the rollout: 2 of 5 devices are not done after wave_timeout 300ms and count as failed, more than max_failure_ratio 0.2 allows (1)") {
		t.Fatalf("err = %v", err)
	}
	for _, id := range order[5:7] {
		if !strings.Contains(err.Error(), id+" (pending)") {
			t.Errorf("error does not name %s (pending): %v", id, err)
		}
	}
	if rec.Status != StatusStopped || rec.WavesCompleted() != 1 || rec.Waves[0].Counts["pending"] != 1 || rec.Waves[0].Counts["done"] != 4 {
		t.Fatalf("record = %+v", rec)
	}
	if !strings.Contains(strings.Join(lines, "\n"), "Wave 1 of 2 (50%): complete, 4 of 5 devices done; 1 not done after wave_timeout 300ms count as failed") {
		t.Errorf("progress = %q", lines)
	}
	if n := e.jobSchedules(); n != 10 {
		t.Fatalf("%d job schedules, want 10", n)
	}
	// With the default ratio, the stopped wave stops again; nothing is sent.
	strict := spec
	strict.MaxFailureRatio = 0
	if _, err := Run(context.Background(), e.c, strict, &rec, nil); err == nil || e.jobSchedules() != 10 {
		t.Fatalf("rerun: %v, %d schedules", err, e.jobSchedules())
	}
	// The devices finish: the resume completes the rollout, sending nothing.
	for _, id := range order[5:7] {
		if err := e.srv.SetJobStatus(id, "reboot", "done"); err != nil {
			t.Fatal(err)
		}
	}
	done, err := Run(context.Background(), e.c, strict, &rec, nil)
	if err != nil || done.Status != StatusCompleted || e.jobSchedules() != 10 {
		t.Fatalf("resume: %v, %+v, %d schedules", err, done, e.jobSchedules())
	}
}

// TestRunJobReplaced: a device whose job is scheduled again with another
// value while the wave waits has failed, at once.
func TestRunJobReplaced(t *testing.T) {
	e := newEnv(t, 4)
	e.silence(t)
	spec := e.jobSpec(`{"v":1}`, "100%")
	spec.WaveTimeout = time.Minute
	order := Order(spec.Identity(), e.ids)
	go func() {
		for e.jobSchedules() < 4 {
			time.Sleep(5 * time.Millisecond)
		}
		_, _ = e.c.ScheduleJob(context.Background(), order[1], "reboot", []byte(`{"v":2}`))
	}()
	start := time.Now()
	rec, err := Run(context.Background(), e.c, spec, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "1 of 4 devices failed") || !strings.Contains(err.Error(), order[1]+" (replaced by another value)") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 30*time.Second || rec.Waves[0].Counts["replaced"] != 1 {
		t.Errorf("record = %+v after %s", rec, time.Since(start))
	}
	got, err := fleetstatus.ReadIDs(context.Background(), e.c, e.ids, spec.Command.Kind(), 4)
	if err != nil {
		t.Fatal(err)
	}
	if c := WaveCounts(rec, spec.Command, got); c[0]["replaced"] != 1 || c[0]["pending"] != 3 {
		t.Errorf("wave counts = %v", c)
	}
}

// TestRunJobAmbiguousSchedules: every job schedule acts, then the
// connection drops before the answer. Each device is read back and taken
// as scheduled; none is sent twice.
func TestRunJobAmbiguousSchedules(t *testing.T) {
	e := newEnv(t, 6)
	e.srv.SetFaults(localzdm.Faults{DropAfterCreate: true})
	// Positive control: the fault makes a job schedule ambiguous.
	outside, err := e.srv.CreateDevices(e.ws, e.other, []string{"control"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.ScheduleJob(context.Background(), outside[0], "reboot", []byte(`{}`)); !errors.Is(err, client.ErrAmbiguous) {
		t.Fatalf("schedule under DropAfterCreate: err = %v, want ErrAmbiguous", err)
	}
	e.srv.ResetCounters()
	rec, err := Run(context.Background(), e.c, e.jobSpec(`{"a":1}`, "50%", "100%"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != StatusCompleted || rec.Waves[0].Scheduled != 3 || rec.Waves[1].Scheduled != 3 {
		t.Fatalf("record = %+v", rec)
	}
	if n := e.jobSchedules(); n != 6 {
		t.Errorf("%d job schedules, want 6: an ambiguous schedule must not be sent again", n)
	}
}

// TestRunJobStopsWhenCancelled: a job rollout canceled while its devices
// have not run the job records what it sent; the next run with that record
// sends nothing twice.
func TestRunJobStopsWhenCancelled(t *testing.T) {
	e := newEnv(t, 6)
	e.silence(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	spec := e.jobSpec(`{}`, "50%", "100%")
	spec.WaveTimeout = time.Hour
	rec, err := Run(ctx, e.c, spec, nil, nil)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if rec.Status != StatusStopped || len(rec.Waves[0].DeviceIDs) != 3 || e.jobSchedules() != 3 {
		t.Fatalf("record = %+v, %d schedules: the scheduled devices must be recorded", rec, e.jobSchedules())
	}
	e.answer(t)
	for _, id := range rec.Waves[0].DeviceIDs {
		if err := e.srv.SetJobStatus(id, "reboot", "done"); err != nil {
			t.Fatal(err)
		}
	}
	done, err := Run(context.Background(), e.c, spec, &rec, nil)
	if err != nil || done.Status != StatusCompleted || e.jobSchedules() != 6 {
		t.Fatalf("resume: %v, %+v, %d schedules, want 6", err, done, e.jobSchedules())
	}
}
