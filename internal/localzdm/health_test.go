package localzdm_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// enableStorage turns the storage service on through the admin API.
func (e *env) enableStorage() {
	e.t.Helper()
	e.ok(e.admin(http.MethodPut, "/workspaces/"+e.b.WorkspaceID+"/storage", map[string]bool{"enabled": true}), nil)
}

// points reads the data points of a device through the storage service,
// oldest first.
func (e *env) points(deviceID string) []dataPoint {
	e.t.Helper()
	var out struct{ Result []dataPoint }
	e.ok(e.storage("/timeseries/"+e.b.WorkspaceID+"/data?sort=timestamp_device&size=1000&device="+deviceID), &out)
	return out.Result
}

// wsPoints reads every data point of the workspace by device ID.
func (e *env) wsPoints() map[string][]dataPoint {
	e.t.Helper()
	var out struct{ Result []dataPoint }
	e.ok(e.storage("/timeseries/"+e.b.WorkspaceID+"/data?sort=timestamp_device&size=1000"), &out)
	by := map[string][]dataPoint{}
	for _, p := range out.Result {
		by[p.DeviceID] = append(by[p.DeviceID], p)
	}
	return by
}

func parseTime(t *testing.T, v string) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		t.Fatalf("time %q: %v", v, err)
	}
	return ts
}

// checkPoint asserts a point's tag and payload and that it is later than
// after.
func checkPoint(t *testing.T, p dataPoint, tag, payload string, after time.Time) {
	t.Helper()
	if p.Tag != tag || string(p.Payload) != payload {
		t.Fatalf("point %s %s, want %s %s", p.Tag, p.Payload, tag, payload)
	}
	if ts := parseTime(t, p.TimestampDevice); !ts.After(after) {
		t.Fatalf("point at %s, want after %s", p.TimestampDevice, after.Format(time.RFC3339Nano))
	}
}

// TestHealthJobAndFOTA: a device that completes a job, then a firmware
// update, publishes one health point for each, read back through the
// storage service.
func TestHealthJobAndFOTA(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.enableStorage()
	d := e.createDevice("d", "")
	e.setBehavior(true, localzdm.DeviceBehavior{Enabled: true, PublishHealth: true})

	var js struct{ Job job }
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/reboot", map[string]any{"value": map[string]any{}}), &js)
	if got := e.jobStatus(d.ID, "reboot"); got != "done" {
		t.Fatalf("job %q, want done", got)
	}
	pts := e.points(d.ID)
	if len(pts) != 1 {
		t.Fatalf("%d points after a job, want 1: %+v", len(pts), pts)
	}
	checkPoint(t, pts[0], "boot_ok", `{"job":"reboot","ok":true}`, parseTime(t, js.Job.ScheduledAt))
	if pts[0].FleetID != d.FleetID || pts[0].TimestampIn != pts[0].TimestampDevice {
		t.Fatalf("point %+v: want fleet %s, ingested at its device time", pts[0], d.FleetID)
	}

	// A firmware update answered later, by the device.
	e.setBehavior(false, localzdm.DeviceBehavior{Enabled: true, PublishHealth: true, Delay: 50 * time.Millisecond})
	var fs struct{ FOTA fotaStatus }
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/fota/fw-1/versions/2.0", nil), &fs)
	e.waitAnswered()
	if got := e.fotaStatus(d.ID); got != "done" {
		t.Fatalf("FOTA %q, want done", got)
	}
	pts = e.points(d.ID)
	if len(pts) != 2 {
		t.Fatalf("%d points after a job and a FOTA, want 2: %+v", len(pts), pts)
	}
	checkPoint(t, pts[1], "boot_ok", `{"firmware_id":"fw-1","firmware_version":"2.0","ok":true}`,
		parseTime(t, fs.FOTA.ScheduledAt).Add(50*time.Millisecond))

	// A tag and payload of one's own; a key the payload sets is kept.
	e.ok(e.admin(http.MethodPut, "/behavior", json.RawMessage(`{"enabled":true,"publish_health":true,
		"health_tag":"up","health_payload":{"job":"mine","v":2}}`)), nil)
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/j2", nil), &js)
	pts = e.points(d.ID)
	if len(pts) != 3 {
		t.Fatalf("%d points, want 3: %+v", len(pts), pts)
	}
	checkPoint(t, pts[2], "up", `{"job":"mine","v":2}`, parseTime(t, js.Job.ScheduledAt))

	// Without publish_health (the default), completions publish nothing.
	e.setBehavior(true, localzdm.DeviceBehavior{Enabled: true})
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/j3", nil), nil)
	if got := e.jobStatus(d.ID, "j3"); got != "done" || len(e.points(d.ID)) != 3 {
		t.Fatalf("job %q with %d points, want done and still 3", got, len(e.points(d.ID)))
	}
}

// TestHealthAnswersUnderNewBehavior: work scheduled before health was
// turned on is answered under the new behavior, and a job and a firmware
// update answered at one instant keep a point each (distinct times).
func TestHealthAnswersUnderNewBehavior(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.enableStorage()
	d := e.createDevice("d", "")
	e.setBehavior(true, localzdm.DeviceBehavior{Enabled: true, Delay: 10 * time.Minute})
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/j", nil), nil)
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/fota/fw/versions/1", nil), nil)
	if n := len(e.points(d.ID)); n != 0 || e.s.PendingAnswers() != 2 {
		t.Fatalf("%d points and %d answers planned, want 0 and 2", n, e.s.PendingAnswers())
	}
	changed := time.Now()
	e.setBehavior(true, localzdm.DeviceBehavior{Enabled: true, PublishHealth: true})
	pts := e.points(d.ID)
	if len(pts) != 2 {
		t.Fatalf("%d points, want 2: %+v", len(pts), pts)
	}
	tags := map[string]bool{}
	for _, p := range pts {
		checkPoint(t, p, "boot_ok", string(p.Payload), changed)
		tags[string(p.Payload)] = true
	}
	if !tags[`{"job":"j","ok":true}`] || !tags[`{"firmware_id":"fw","firmware_version":"1","ok":true}`] {
		t.Fatalf("payloads %v", tags)
	}
	if pts[0].TimestampDevice == pts[1].TimestampDevice {
		t.Fatalf("both points at %s", pts[0].TimestampDevice)
	}
}

// healthOutcome schedules a fleet-wide job and returns, by device name,
// the tag of each device's points ("-" for none).
func healthOutcome(t *testing.T, seed uint64) map[string]string {
	t.Helper()
	e := newEnv(t)
	e.enableStorage()
	ids := behaviorFleet(t, e)
	e.setBehavior(true, localzdm.DeviceBehavior{
		Enabled: true, PublishHealth: true, HealthSilentFraction: 0.25, HealthErrorFraction: 0.1, Seed: seed,
		FailDevices: []string{"d19"},
	})
	e.ok(e.api(http.MethodPost, "/workspace/"+e.b.WorkspaceID+"/jobs/up", nil), nil)
	e.ok(e.api(http.MethodPost, "/workspaces/"+e.b.WorkspaceID+"/fota/fw/versions/3", nil), nil)
	e.waitAnswered()
	by := e.wsPoints()
	out := map[string]string{}
	for i, id := range ids {
		name := fmt.Sprintf("d%02d", i)
		var tags []string
		for _, p := range by[id] {
			tags = append(tags, p.Tag)
			switch p.Tag {
			case "boot_ok", "boot_error":
				ok := map[string]string{"boot_ok": "true", "boot_error": "false"}[p.Tag]
				if !strings.HasSuffix(string(p.Payload), `"ok":`+ok+`}`) {
					t.Fatalf("%s: %s payload %s", name, p.Tag, p.Payload)
				}
			default:
				t.Fatalf("%s: tag %s", name, p.Tag)
			}
		}
		switch {
		case len(tags) == 0:
			out[name] = "-"
		case len(tags) == 2 && tags[0] == tags[1]:
			out[name] = tags[0]
		default:
			t.Fatalf("%s: points %v, want one per completion with one tag", name, tags)
		}
	}
	return out
}

// TestHealthShares: exactly round(share × n) devices stay silent or
// publish the error tag, the same devices for the same seed and names;
// a failing device publishes nothing.
func TestHealthShares(t *testing.T) {
	t.Parallel()
	a, b, c := healthOutcome(t, 5), healthOutcome(t, 5), healthOutcome(t, 6)
	if !maps.Equal(a, b) {
		t.Fatalf("seed 5 gave different devices:\n%v\n%v", a, b)
	}
	if maps.Equal(a, c) {
		t.Fatalf("seeds 5 and 6 gave the same devices: %v", a)
	}
	for _, o := range []map[string]string{a, c} {
		if o["d19"] != "-" {
			t.Fatalf("failing device d19 published %s", o["d19"])
		}
	}
	// Of 20 devices, round(0.25 × 20) = 5 publish nothing and
	// round(0.1 × 20) = 2 the error tag; d19, failing, publishes nothing
	// too. The names are those of the seeded order of seed 5.
	count := func(o map[string]string, v string) []string {
		var names []string
		for n, t := range o {
			if t == v {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		return names
	}
	errs, silent := count(a, "boot_error"), count(a, "-")
	wantErrs, wantSilent := []string{"d05", "d12"}, []string{"d07", "d09", "d14", "d15", "d17", "d19"}
	if !slices.Equal(errs, wantErrs) || !slices.Equal(silent, wantSilent) {
		t.Fatalf("seed 5: error devices %v, silent %v; want %v and %v", errs, silent, wantErrs, wantSilent)
	}
}

// TestHealthStorageDisabled: with storage disabled devices publish
// nothing; the same setup with storage enabled does publish (control).
func TestHealthStorageDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.createDevice("d", "")
	e.setBehavior(true, localzdm.DeviceBehavior{Enabled: true, PublishHealth: true})
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/off", nil), nil)
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/fota/fw/versions/1", nil), nil)
	if j, f := e.jobStatus(d.ID, "off"), e.fotaStatus(d.ID); j != "done" || f != "done" {
		t.Fatalf("job %q, FOTA %q, want done", j, f)
	}
	e.fails(e.storage("/timeseries/"+e.b.WorkspaceID+"/data"), http.StatusForbidden, "not enabled")
	e.enableStorage()
	if pts := e.points(d.ID); len(pts) != 0 {
		t.Fatalf("points published while storage was disabled: %+v", pts)
	}
	// Control: storage enabled, the same device and behavior.
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/on", nil), nil)
	pts := e.points(d.ID)
	if len(pts) != 1 || string(pts[0].Payload) != `{"job":"on","ok":true}` {
		t.Fatalf("points with storage enabled: %+v, want the one of job on", pts)
	}
}

// TestHealthInvalid: invalid health settings are refused (400 naming the
// field) and change nothing; GET /admin/behavior shows the defaults.
func TestHealthInvalid(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	long := strings.Repeat("t", 256)
	for _, tc := range []struct{ body, want string }{
		{`{"health_silent_fraction":1.5}`, `"health_silent_fraction" must be between 0 and 1, got 1.5`},
		{`{"health_error_fraction":-0.1}`, `"health_error_fraction" must be between 0 and 1, got -0.1`},
		{`{"health_silent_fraction":0.6,"health_error_fraction":0.5}`, `"health_silent_fraction" and "health_error_fraction" must add up to at most 1`},
		{`{"health_tag":""}`, `"health_tag" must not be empty`},
		{`{"health_error_tag":""}`, `"health_error_tag" must not be empty`},
		{`{"health_tag":"  "}`, `"health_tag" is required (not blank)`},
		{`{"health_error_tag":"` + long + `"}`, `"health_error_tag" is longer than 255 characters`},
		{`{"health_payload":[1]}`, `"health_payload" must be a JSON object`},
		{`{"health_payload":"ok"}`, `"health_payload" must be a JSON object`},
		{`{"health_error_payload":3}`, `"health_error_payload" must be a JSON object`},
		{`{"health_tags":"x"}`, `health_tag`},
	} {
		e.fails(e.admin(http.MethodPut, "/behavior", json.RawMessage(tc.body)), http.StatusBadRequest, tc.want)
	}
	for _, tc := range []struct {
		b    localzdm.DeviceBehavior
		want string
	}{
		{localzdm.DeviceBehavior{HealthErrorFraction: 2}, `"health_error_fraction" must be between 0 and 1`},
		{localzdm.DeviceBehavior{HealthTag: " "}, `"health_tag" is required (not blank)`},
		{localzdm.DeviceBehavior{HealthPayload: json.RawMessage(`[]`)}, `"health_payload" must be a JSON object`},
		{localzdm.DeviceBehavior{HealthErrorPayload: json.RawMessage(`{`)}, `"health_error_payload" must be a JSON object`},
	} {
		if err := e.s.SetDeviceBehavior(tc.b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("SetDeviceBehavior(%+v) = %v, want %s", tc.b, err, tc.want)
		}
	}
	var cur map[string]any
	e.ok(e.admin(http.MethodGet, "/behavior", nil), &cur)
	want := map[string]any{
		"publish_health": false, "health_tag": "boot_ok", "health_error_tag": "boot_error",
		"health_payload": map[string]any{"ok": true}, "health_error_payload": map[string]any{"ok": false},
		"health_silent_fraction": 0.0, "health_error_fraction": 0.0,
	}
	for k, v := range want {
		if fmt.Sprint(cur[k]) != fmt.Sprint(v) {
			t.Fatalf("GET /admin/behavior %s = %v, want %v (all: %v)", k, cur[k], v, cur)
		}
	}
}

// TestHealthWebhookAndRestart: a health point is forwarded to the webhook
// after the job's status change, like a published point, and it is kept
// in the state file across a restart.
func TestHealthWebhookAndRestart(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "state.json")
	s := localzdm.StartTestWithOptions(t, localzdm.Options{StateFile: file,
		DeviceBehavior: localzdm.DeviceBehavior{Enabled: true, PublishHealth: true}})
	e := attachEnv(t, s)
	e.enableStorage()
	rc := newReceiver(t, false)
	if err := s.SetWebhook(e.b.WorkspaceID, rc.srv.URL); err != nil {
		t.Fatal(err)
	}
	d := e.createDevice("d", "")
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/reboot", nil), nil)
	flush(t, s)
	batches, _ := rc.snapshot()
	var kinds []string
	for _, b := range batches {
		kinds = append(kinds, b.kind)
		if b.kind == localzdm.BatchTypeData {
			var it dataItem
			if len(b.Result) != 1 || json.Unmarshal(b.Result[0], &it) != nil ||
				it.Tag != "boot_ok" || string(it.Payload) != `{"job":"reboot","ok":true}` || it.DeviceID != d.ID {
				t.Fatalf("data batch %s", b.Result)
			}
		}
	}
	// Scheduled (c2d), done (d2c), then the point and its "data" event.
	want := []string{localzdm.BatchTypeEvents, localzdm.BatchTypeEvents, localzdm.BatchTypeData, localzdm.BatchTypeEvents}
	if !slices.Equal(kinds, want) {
		t.Fatalf("batches %v, want %v", kinds, want)
	}
	before := e.points(d.ID)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := localzdm.StartTestWithOptions(t, localzdm.Options{StateFile: file})
	e2 := &env{t: t, s: s2, b: e.b, hc: e.hc}
	if after := e2.points(d.ID); len(before) != 1 || fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("points after the restart %+v, before %+v", after, before)
	}
}
