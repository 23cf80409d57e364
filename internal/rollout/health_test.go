package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

func TestHealthCondition(t *testing.T) {
	path, err := ParseField("status.items.1.ok")
	if err != nil {
		t.Fatal(err)
	}
	h := Health{Tag: "boot_ok", Field: path, Equals: "true"}
	cases := map[string]string{ // payload -> why not ("" when it meets)
		`{"status":{"items":[{},{"ok":true}]}}`:  "",
		`{"status":{"items":[{},{"ok":false}]}}`: "boot_ok point with payload.status.items.1.ok = false, not true",
		`{"status":{"items":[{"ok":true}]}}`:     "boot_ok point without payload.status.items.1.ok",
		`{"status":{}}`:                          "boot_ok point without payload.status.items.1.ok",
		`"text"`:                                 "boot_ok point without payload.status.items.1.ok",
		`null`:                                   "boot_ok point without payload.status.items.1.ok",
	}
	for payload, want := range cases {
		ok, why := h.meets(json.RawMessage(payload))
		if ok != (want == "") || why != want {
			t.Errorf("%s: meets = %v %q, want %q", payload, ok, why, want)
		}
	}
	// Numbers compare as values; no condition accepts any payload.
	h = Health{Tag: "t", Field: []string{"v"}, Equals: "1.0"}
	if ok, _ := h.meets(json.RawMessage(`{"v":1}`)); !ok {
		t.Error("1 does not equal 1.0")
	}
	if ok, _ := (Health{Tag: "t"}).meets(json.RawMessage(`{"v":false}`)); !ok {
		t.Error("no condition refused a point")
	}
	for _, bad := range []string{"", "a..b", ".a", "a. "} {
		if _, err := ParseField(bad); err == nil {
			t.Errorf("ParseField(%q): no error", bad)
		}
	}
}

func TestVerdicts(t *testing.T) {
	t0 := time.Date(2026, 3, 29, 0, 30, 0, 0, time.UTC)
	at := func(d time.Duration) string { return t0.Add(d).Format(time.RFC3339Nano) }
	path, _ := ParseField("ok")
	h := Health{Tag: "boot_ok", Field: path, Equals: "true", Within: time.Minute}
	windows := map[string]healthWindow{}
	for _, id := range []string{"good", "bad", "early", "late", "none", "waiting", "firstbad", "othertag"} {
		windows[id] = healthWindow{From: t0, Until: t0.Add(time.Minute)}
	}
	windows["waiting"] = healthWindow{From: t0, Until: t0.Add(time.Hour)}
	points := []client.DataPoint{
		{DeviceID: "good", Tag: "boot_ok", TimestampDevice: at(10 * time.Second), Payload: json.RawMessage(`{"ok":true}`)},
		{DeviceID: "bad", Tag: "boot_ok", TimestampDevice: at(0), Payload: json.RawMessage(`{"ok":false}`)},
		// Before the window (before the success): does not count.
		{DeviceID: "early", Tag: "boot_ok", TimestampDevice: at(-time.Second), Payload: json.RawMessage(`{"ok":true}`)},
		// At the end of the window: too late (the window excludes its end).
		{DeviceID: "late", Tag: "boot_ok", TimestampDevice: at(time.Minute), Payload: json.RawMessage(`{"ok":true}`)},
		// The first point in the window decides, whatever the order read.
		{DeviceID: "firstbad", Tag: "boot_ok", TimestampDevice: at(20 * time.Second), Payload: json.RawMessage(`{"ok":true}`)},
		{DeviceID: "firstbad", Tag: "boot_ok", TimestampDevice: at(5 * time.Second), Payload: json.RawMessage(`{"ok":0}`)},
		{DeviceID: "othertag", Tag: "other", TimestampDevice: at(time.Second), Payload: json.RawMessage(`{"ok":true}`)},
		// A device not asked about is ignored.
		{DeviceID: "stranger", Tag: "boot_ok", TimestampDevice: at(time.Second), Payload: json.RawMessage(`{"ok":true}`)},
	}
	got := verdicts(h, windows, points, t0.Add(time.Minute), 0)
	want := map[string]verdict{
		"good":     {decided: true, healthy: true},
		"bad":      {decided: true, why: "boot_ok point with payload.ok = false, not true"},
		"early":    {decided: true, why: "no boot_ok point within 1m0s of success"},
		"late":     {decided: true, why: "no boot_ok point within 1m0s of success"},
		"none":     {decided: true, why: "no boot_ok point within 1m0s of success"},
		"waiting":  {},
		"firstbad": {decided: true, why: "boot_ok point with payload.ok = 0, not true"},
		"othertag": {decided: true, why: "no boot_ok point within 1m0s of success"},
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: verdict %+v, want %+v", id, got[id], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("verdicts = %+v", got)
	}
	// Before the window closes, a device without a point is not decided.
	if v := verdicts(h, windows, nil, t0.Add(59*time.Second), 0)["none"]; v.decided {
		t.Errorf("decided before the window closed: %+v", v)
	}
	// Nor before the time a point published in time needs to be stored.
	if v := verdicts(h, windows, nil, t0.Add(61*time.Second), 5*time.Second)["none"]; v.decided {
		t.Errorf("decided before the point could be stored: %+v", v)
	}
}

func TestWindow(t *testing.T) {
	t0 := time.Date(2026, 10, 25, 1, 0, 0, 0, time.UTC)
	now := func() time.Time { return t0.Add(time.Hour) }
	m := time.Minute
	cases := []struct {
		seen      fleetstatus.Seen
		scheduled time.Time
		want      healthWindow
	}{
		// Seen not done, then done: from the last read not done.
		{fleetstatus.Seen{Pending: t0.Add(2 * m), Done: t0.Add(3 * m)}, t0.Add(m),
			healthWindow{t0.Add(2 * m), t0.Add(8 * m)}},
		// Done at the first read: from when the command was scheduled
		// (also before the wave's start: a run resuming without a record).
		{fleetstatus.Seen{Done: t0.Add(3 * m)}, t0.Add(-30 * m),
			healthWindow{t0.Add(-30 * m), t0.Add(8 * m)}},
		// Nothing known: from the wave's start, until within from now.
		{fleetstatus.Seen{}, time.Time{}, healthWindow{t0, t0.Add(65 * m)}},
	}
	for i, c := range cases {
		if got := window(c.seen, c.scheduled, t0, 5*m, now); got != c.want {
			t.Errorf("case %d: window %v, want %v", i, got, c.want)
		}
	}
}

func TestDeviceChunksKeepQueriesShort(t *testing.T) {
	var ids []string
	for i := range 500 {
		ids = append(ids, fmt.Sprintf("dev-%036d", i)) // 40 characters
	}
	ids = append(ids, strings.Repeat("x/", 1500)) // longer than a chunk alone
	chunks := deviceChunks(ids)
	var all []string
	for _, ch := range chunks {
		v := url.Values{"device": ch}
		if n := len(v.Encode()); n > maxDeviceQuery && len(ch) > 1 {
			t.Errorf("chunk of %d devices is %d characters of query", len(ch), n)
		}
		all = append(all, ch...)
	}
	if !slices.Equal(all, ids) {
		t.Error("chunks do not hold every device once, in order")
	}
	if len(chunks) < 12 || len(chunks) > 14 {
		t.Errorf("%d chunks for 500 devices of 40 characters, want 13 or so (48 characters each in 2,000, and the long one alone)", len(chunks))
	}
	if deviceChunks(nil) != nil {
		t.Error("chunks of no devices")
	}
}

// fakeStorage answers storage queries from points, as the service does
// (filters, ascending or descending time, pages), and records the queries.
type fakeStorage struct {
	mu      sync.Mutex
	points  []client.DataPoint
	queries []client.DataQuery
	err     error
}

func (f *fakeStorage) publish(p ...client.DataPoint) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.points = append(f.points, p...)
}

func (f *fakeStorage) GetData(_ context.Context, _ string, q client.DataQuery) ([]client.DataPoint, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, q)
	if f.err != nil {
		return nil, f.err
	}
	start, _ := time.Parse(time.RFC3339Nano, q.Start)
	var match []client.DataPoint
	for _, p := range f.points {
		ts, _ := time.Parse(time.RFC3339Nano, p.TimestampDevice)
		if (len(q.Devices) == 0 || slices.Contains(q.Devices, p.DeviceID)) &&
			(len(q.Tags) == 0 || slices.Contains(q.Tags, p.Tag)) && !ts.Before(start) {
			match = append(match, p)
		}
	}
	slices.SortStableFunc(match, func(a, b client.DataPoint) int {
		return strings.Compare(a.TimestampDevice, b.TimestampDevice)
	})
	from, size := *q.From, *q.Size
	lo, hi := min(from*size, len(match)), min((from+1)*size, len(match))
	return slices.Clone(match[lo:hi]), nil
}

func TestReadPointsReadsEveryPageOfEveryChunk(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := &fakeStorage{}
	var ids []string
	for i := range 120 {
		ids = append(ids, fmt.Sprintf("dev-%036d", i))
	}
	// 2,500 points of the tag, some before the start, and others of another
	// tag.
	for i := range 2600 {
		f.publish(client.DataPoint{DeviceID: ids[i%len(ids)], Tag: "boot_ok",
			TimestampDevice: t0.Add(time.Duration(i-100) * time.Second).Format(time.RFC3339)})
	}
	f.publish(client.DataPoint{DeviceID: ids[0], Tag: "other", TimestampDevice: t0.Format(time.RFC3339)})
	got, err := readPoints(context.Background(), f, "ws", "boot_ok", ids, t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2500 {
		t.Errorf("read %d points, want 2500", len(got))
	}
	chunks := deviceChunks(ids)
	if len(chunks) < 2 {
		t.Fatalf("%d chunks: the test wants several", len(chunks))
	}
	// Each chunk: full pages, then one short page.
	pages := 0
	for _, ch := range chunks {
		n := 2500 * len(ch) / len(ids)
		pages += n/healthPageSize + 1
	}
	if len(f.queries) != pages {
		t.Errorf("%d queries, want %d (every page of every chunk, and no more)", len(f.queries), pages)
	}
	for _, q := range f.queries {
		if q.Start != t0.Format(time.RFC3339Nano) || !slices.Equal(q.Tags, []string{"boot_ok"}) ||
			q.Sort != "timestamp_device" || len(q.Devices) == 0 || *q.Size != healthPageSize {
			t.Fatalf("query %+v", q)
		}
	}
}

func TestCheckHealth(t *testing.T) {
	t0 := time.Now()
	f := &fakeStorage{}
	path, _ := ParseField("ok")
	spec := Spec{WorkspaceID: "ws", PollInterval: 10 * time.Millisecond,
		Health: &Health{Tag: "boot_ok", Field: path, Equals: "true", Within: 200 * time.Millisecond}}
	windows := map[string]healthWindow{}
	for _, id := range []string{"a", "b", "c", "d"} {
		windows[id] = healthWindow{From: t0, Until: t0.Add(200 * time.Millisecond)}
	}
	pt := func(id, payload string, d time.Duration) client.DataPoint {
		return client.DataPoint{DeviceID: id, Tag: "boot_ok", TimestampDevice: t0.Add(d).Format(time.RFC3339Nano),
			Payload: json.RawMessage(payload)}
	}
	f.publish(pt("a", `{"ok":true}`, 10*time.Millisecond))
	go func() {
		time.Sleep(50 * time.Millisecond)
		f.publish(pt("b", `{"ok":true}`, 50*time.Millisecond), pt("c", `{"ok":false}`, 50*time.Millisecond))
	}()
	// d never publishes: with room for two unhealthy devices, every device
	// gets a verdict once d's window closes.
	res, err := checkHealth(context.Background(), f, spec, windows, 0, 2, 0, time.Now, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Healthy, []string{"a", "b"}) || !slices.Equal(res.Unhealthy, []string{"c", "d"}) ||
		len(res.Undecided) != 0 {
		t.Fatalf("result %+v", res)
	}
	if time.Since(t0) < 200*time.Millisecond {
		t.Error("d was judged before its window closed")
	}
	// A device already failed leaves no room: the first unhealthy device
	// stops the check at once, the others undecided.
	t1 := time.Now()
	windows = map[string]healthWindow{"c": {From: t0, Until: t1.Add(time.Hour)}, "e": {From: t0, Until: t1.Add(time.Hour)}}
	res, err = checkHealth(context.Background(), f, spec, windows, 1, 1, 0, time.Now, func(string) {})
	if err != nil || !slices.Equal(res.Unhealthy, []string{"c"}) || !slices.Equal(res.Undecided, []string{"e"}) {
		t.Fatalf("result %+v, %v", res, err)
	}
	if time.Since(t1) > 5*time.Second {
		t.Error("did not stop at once")
	}
	// A storage error stops the check, naming health_check; a 403 says
	// the storage service is not enabled.
	f.err = &client.APIError{StatusCode: 403}
	_, err = checkHealth(context.Background(), f, spec, windows, 0, 1, 0, time.Now, func(string) {})
	var se *StorageError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "health_check") || !strings.Contains(err.Error(), "not enabled") {
		t.Fatalf("err = %v", err)
	}
}

// healthEnv is env with storage enabled and a client that reads it.
func healthEnv(t *testing.T, n int) *env {
	t.Helper()
	e := newEnv(t, n)
	if err := e.srv.SetStorage(e.ws, true); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Config{BaseURL: e.srv.BaseURL(), StorageURL: e.srv.StorageURL(), APIKey: e.key})
	if err != nil {
		t.Fatal(err)
	}
	e.c = c
	return e
}

// publishWhenDone publishes a "boot_ok" point {"ok": true} for each device
// once its firmware update is done, except the devices in silent, until the
// test ends.
func publishWhenDone(t *testing.T, e *env, silent ...string) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	wg.Go(func() {
		sent := map[string]bool{}
		for ctx.Err() == nil {
			for _, id := range e.ids {
				if sent[id] || slices.Contains(silent, id) {
					continue
				}
				if f, err := e.c.GetFOTA(ctx, id); err == nil && f.Status == "done" {
					_, _ = e.srv.Publish(e.ws, []localzdm.DataPoint{{DeviceID: id, Tag: "boot_ok",
						TimestampDevice: time.Now().UTC().Format(time.RFC3339Nano), Payload: json.RawMessage(`{"ok":true}`)}})
					sent[id] = true
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func TestRunHealthGate(t *testing.T) {
	e := healthEnv(t, 10)
	spec := e.spec("20%", "100%")
	spec.Health = &Health{Tag: "boot_ok", Field: []string{"ok"}, Equals: "true", Within: 2 * time.Second}
	// The gate decides once every device of a wave reported, so that the
	// stop names both silent devices whatever the timing (with fewer
	// reports it may stop on the first one, as it should).
	spec.MinReported = len(e.ids)
	order := Order(spec.Identity(), e.ids)
	// Two devices of the second wave never publish.
	silent := []string{order[2], order[5]}
	publishWhenDone(t, e, silent...)
	rec, err := Run(context.Background(), e.c, spec, nil, nil)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, id := range silent {
		if !strings.Contains(msg, id+" (no boot_ok point within 2s of success)") {
			t.Errorf("error does not name %s: %s", id, msg)
		}
	}
	if !strings.Contains(msg, "Wave 2 of 2 (100%) stopped the rollout: 2 of 8 devices are unhealthy") {
		t.Errorf("error = %s", msg)
	}
	if rec.WavesCompleted() != 1 || *rec.Waves[0].Health != (HealthCounts{Healthy: 2}) ||
		*rec.Waves[1].Health != (HealthCounts{Healthy: 6, Unhealthy: 2}) || rec.Waves[1].StartedAt.IsZero() {
		t.Errorf("record %+v %+v %+v", rec, rec.Waves[0].Health, rec.Waves[1].Health)
	}
	if n := e.schedules(); n != 10 {
		t.Errorf("%d schedules, want 10", n)
	}
	// A run with room for the two passes, sending nothing again; their
	// points are still missing, so they count unhealthy.
	spec.MaxFailureRatio = 0.25
	rec, err = Run(context.Background(), e.c, spec, &rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != StatusCompleted || *rec.Waves[1].Health != (HealthCounts{Healthy: 6, Unhealthy: 2}) {
		t.Errorf("record %+v %+v", rec, rec.Waves[1].Health)
	}
	if n := e.schedules(); n != 10 {
		t.Errorf("%d schedules after the resume, want still 10", n)
	}
	// Without the record (a replacement after a failed create), the
	// points published since each device's scheduling still count.
	rec, err = Run(context.Background(), e.c, spec, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *rec.Waves[0].Health != (HealthCounts{Healthy: 2}) || *rec.Waves[1].Health != (HealthCounts{Healthy: 6, Unhealthy: 2}) {
		t.Errorf("record %+v %+v", rec.Waves[0].Health, rec.Waves[1].Health)
	}
	if n := e.schedules(); n != 10 {
		t.Errorf("%d schedules after a run without record, want still 10", n)
	}
}

func TestRunHealthGateStorageDisabled(t *testing.T) {
	e := healthEnv(t, 4)
	if err := e.srv.SetStorage(e.ws, false); err != nil {
		t.Fatal(err)
	}
	spec := e.spec("100%")
	spec.Health = &Health{Tag: "boot_ok", Within: time.Second}
	rec, err := Run(context.Background(), e.c, spec, nil, nil)
	var se *StorageError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "not enabled") {
		t.Fatalf("err = %v", err)
	}
	// What was scheduled is recorded.
	if rec.Status != StatusStopped || len(rec.Waves[0].DeviceIDs) != 4 || rec.Waves[0].Complete {
		t.Errorf("record %+v", rec)
	}
}
