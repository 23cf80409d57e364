package localzdm_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// at returns t0 + seconds, formatted RFC 3339.
func at(seconds float64) string {
	return t0.Add(time.Duration(seconds * float64(time.Second))).Format(time.RFC3339Nano)
}

// storageEnv is a workspace with storage enabled, two devices and ten points
// per device: device a at t0+0..9 s with tag "temp", device b at t0+0.5..9.5 s
// with tag "hum".
type storageEnv struct {
	*env
	devA, devB device
}

func newStorageEnv(t *testing.T) *storageEnv {
	t.Helper()
	e := newEnv(t)
	if err := e.s.SetStorage(e.b.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	se := &storageEnv{env: e, devA: e.createDevice("a", ""), devB: e.createDevice("b", e.createFleet("f").ID)}
	var pts []localzdm.DataPoint
	for i := range 10 {
		pts = append(pts,
			localzdm.DataPoint{DeviceID: se.devA.ID, Tag: "temp", TimestampDevice: at(float64(i)), Payload: json.RawMessage(fmt.Sprintf(`{"v":%d}`, i))},
			localzdm.DataPoint{DeviceID: se.devB.ID, Tag: "hum", TimestampDevice: at(float64(i) + 0.5), Payload: json.RawMessage(fmt.Sprintf(`{"h":%d}`, i))},
		)
	}
	n, err := e.s.Publish(e.b.WorkspaceID, pts)
	if err != nil || n != 20 {
		t.Fatalf("Publish = %d, %v", n, err)
	}
	return se
}

func (se *storageEnv) query(q string) []dataPoint {
	se.t.Helper()
	var out struct{ Result []dataPoint }
	se.ok(se.storage("/timeseries/"+se.b.WorkspaceID+"/data"+q), &out)
	if out.Result == nil {
		se.t.Fatalf("result is null, want an array")
	}
	return out.Result
}

// times lists the offsets from t0 in seconds of the points.
func times(t *testing.T, pts []dataPoint) []float64 {
	t.Helper()
	out := make([]float64, len(pts))
	for i, p := range pts {
		ts, err := time.Parse(time.RFC3339Nano, p.TimestampDevice)
		if err != nil {
			t.Fatalf("timestamp_device %q: %v", p.TimestampDevice, err)
		}
		out[i] = ts.Sub(t0).Seconds()
	}
	return out
}

func TestStorageQueries(t *testing.T) {
	t.Parallel()
	se := newStorageEnv(t)
	esc := url.QueryEscape
	desc := []float64{9.5, 9, 8.5, 8, 7.5, 7, 6.5, 6, 5.5, 5, 4.5, 4, 3.5, 3, 2.5, 2, 1.5, 1, 0.5, 0}
	cases := []struct {
		name, query string
		want        []float64
	}{
		{"defaults: all, descending", "", desc},
		{"ascending", "?sort=timestamp_device", reversed(desc)},
		{"explicit descending", "?sort=-timestamp_device", desc},
		{"from=1 size=1 is the second item", "?from=1&size=1", []float64{9}},
		{"from=1 size=1 ascending", "?from=1&size=1&sort=timestamp_device", []float64{0.5}},
		{"page 2 of 3", "?from=2&size=3&sort=timestamp_device", []float64{3, 3.5, 4}},
		{"last partial page", "?from=6&size=3&sort=timestamp_device", []float64{9, 9.5}},
		{"page past the end", "?from=7&size=3", []float64{}},
		{"far page", "?from=9223372036854775807&size=175000", []float64{}},
		{"size 0", "?size=0", []float64{}},
		{"max size", "?size=175000&sort=timestamp_device", reversed(desc)},
		{"start inclusive end exclusive", "?start=" + esc(at(3)) + "&end=" + esc(at(5)) + "&sort=timestamp_device", []float64{3, 3.5, 4, 4.5}},
		{"start only", "?start=" + esc(at(8.5)), []float64{9.5, 9, 8.5}},
		{"end only", "?end=" + esc(at(1)), []float64{0.5, 0}},
		{"fractional start", "?start=" + esc(at(2.25)) + "&end=" + esc(at(3.5)), []float64{3, 2.5}},
		{"start with offset", "?start=" + esc("2024-01-01T02:00:08+02:00"), []float64{9.5, 9, 8.5, 8}},
		{"start == end", "?start=" + esc(at(3)) + "&end=" + esc(at(3)), []float64{}},
		{"start > end", "?start=" + esc(at(5)) + "&end=" + esc(at(3)), []float64{}},
		{"range and page", "?start=" + esc(at(2)) + "&end=" + esc(at(6)) + "&from=1&size=2&sort=timestamp_device", []float64{3, 3.5}},
		{"device", "?device=" + se.devA.ID + "&size=3", []float64{9, 8, 7}},
		{"devices", "?device=" + se.devA.ID + "&device=" + se.devB.ID + "&size=3", []float64{9.5, 9, 8.5}},
		{"tag", "?tag=hum&sort=timestamp_device&size=2&from=1", []float64{2.5, 3.5}},
		{"tags", "?tag=hum&tag=temp&size=2", []float64{9.5, 9}},
		{"device and tag", "?device=" + se.devA.ID + "&tag=hum", []float64{}},
		{"unknown device", "?device=dev-nope", []float64{}},
		{"filter range and page", "?device=" + se.devB.ID + "&start=" + esc(at(1)) + "&end=" + esc(at(5)) + "&from=1&size=2", []float64{2.5, 1.5}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			se := *se
			e := *se.env
			e.t = t
			se.env = &e
			if got := times(t, se.query(tc.query)); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}

	// Default size is 100.
	var more []localzdm.DataPoint
	for i := range 150 {
		more = append(more, localzdm.DataPoint{DeviceID: se.devA.ID, Tag: "bulk", TimestampDevice: at(100 + float64(i))})
	}
	if _, err := se.s.Publish(se.b.WorkspaceID, more); err != nil {
		t.Fatal(err)
	}
	if got := se.query(""); len(got) != 100 || got[0].Tag != "bulk" || got[0].TimestampDevice != at(249) {
		t.Fatalf("default page: %d items, first %+v", len(got), got[0])
	}
}

func reversed(s []float64) []float64 {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

func TestStorageFields(t *testing.T) {
	t.Parallel()
	se := newStorageEnv(t)
	got := se.query("?size=1&tag=hum")
	p := got[0]
	if p.DeviceID != se.devB.ID || p.FleetID != se.devB.FleetID || p.Tag != "hum" || p.TimestampDevice != "2024-01-01T00:00:09.5Z" || string(p.Payload) != `{"h":9}` {
		t.Fatalf("point = %+v (%s)", p, p.Payload)
	}
	if _, err := time.Parse(time.RFC3339, p.TimestampIn); err != nil {
		t.Fatalf("timestamp_in %q: %v", p.TimestampIn, err)
	}
	// Published times are stored in UTC; timestamp_in can be given.
	n, err := se.s.Publish(se.b.WorkspaceID, []localzdm.DataPoint{{
		DeviceID: se.devA.ID, Tag: "tz", TimestampDevice: "2024-01-01T03:00:00+02:00", TimestampIn: "2024-01-01T01:00:01Z",
		Payload: json.RawMessage(`[1, "two",  null]`),
	}, {DeviceID: se.devA.ID, Tag: "nopayload", TimestampDevice: at(0)}})
	if err != nil || n != 2 {
		t.Fatalf("Publish = %d, %v", n, err)
	}
	p = se.query("?tag=tz")[0]
	if p.TimestampDevice != "2024-01-01T01:00:00Z" || p.TimestampIn != "2024-01-01T01:00:01Z" || string(p.Payload) != `[1,"two",null]` {
		t.Fatalf("point = %+v (%s)", p, p.Payload)
	}
	if p := se.query("?tag=nopayload")[0]; string(p.Payload) != "null" {
		t.Fatalf("payload without payload = %s", p.Payload)
	}
}

// TestStorageSortsInstants checks the order compares instants: as strings,
// "…01.5Z" sorts before "…01Z", and an offset time sorts by its offset.
func TestStorageSortsInstants(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := e.s.SetStorage(e.b.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	d := e.createDevice("d", "")
	for _, ts := range []string{"2024-01-01T00:00:01.5Z", "2024-01-01T00:00:01Z", "2024-01-01T01:00:00.25+01:00", "2024-01-01T00:00:00.1Z"} {
		if _, err := e.s.Publish(e.b.WorkspaceID, []localzdm.DataPoint{{DeviceID: d.ID, Tag: "t", TimestampDevice: ts}}); err != nil {
			t.Fatal(err)
		}
	}
	var out struct{ Result []dataPoint }
	e.ok(e.storage("/timeseries/"+e.b.WorkspaceID+"/data?sort=timestamp_device"), &out)
	var got []string
	for _, p := range out.Result {
		got = append(got, p.TimestampDevice)
	}
	want := []string{"2024-01-01T00:00:00.1Z", "2024-01-01T00:00:00.25Z", "2024-01-01T00:00:01Z", "2024-01-01T00:00:01.5Z"}
	if !slices.Equal(got, want) {
		t.Fatalf("ascending = %v, want %v", got, want)
	}
	e.ok(e.storage("/timeseries/"+e.b.WorkspaceID+"/data"), &out)
	got = got[:0]
	for _, p := range out.Result {
		got = append(got, p.TimestampDevice)
	}
	slices.Reverse(want)
	if !slices.Equal(got, want) {
		t.Fatalf("descending = %v, want %v", got, want)
	}
}

func TestStorageDedupe(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := e.s.SetStorage(e.b.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	a, b := e.createDevice("a", ""), e.createDevice("b", "")
	pt := func(dev, tag, ts, payload string) localzdm.DataPoint {
		return localzdm.DataPoint{DeviceID: dev, Tag: tag, TimestampDevice: ts, Payload: json.RawMessage(payload)}
	}
	steps := []struct {
		name   string
		points []localzdm.DataPoint
		want   int
	}{
		{"first", []localzdm.DataPoint{pt(a.ID, "t", "2024-01-01T00:00:00Z", `1`)}, 1},
		{"same triple", []localzdm.DataPoint{pt(a.ID, "t", "2024-01-01T00:00:00Z", `2`)}, 0},
		{"same instant, other spelling", []localzdm.DataPoint{
			pt(a.ID, "t", "2024-01-01T00:00:00.000Z", `3`), pt(a.ID, "t", "2024-01-01T01:00:00+01:00", `4`),
		}, 0},
		{"other tag, other device, other time", []localzdm.DataPoint{
			pt(a.ID, "u", "2024-01-01T00:00:00Z", `5`), pt(b.ID, "t", "2024-01-01T00:00:00Z", `6`), pt(a.ID, "t", "2024-01-01T00:00:00.001Z", `7`),
		}, 3},
		{"duplicates inside a batch", []localzdm.DataPoint{
			pt(b.ID, "x", "2024-01-02T00:00:00Z", `8`), pt(b.ID, "x", "2024-01-02T00:00:00Z", `9`),
		}, 1},
	}
	for _, st := range steps {
		n, err := e.s.Publish(e.b.WorkspaceID, st.points)
		if err != nil || n != st.want {
			t.Fatalf("%s: Publish = %d, %v; want %d", st.name, n, err, st.want)
		}
	}
	var out struct{ Result []dataPoint }
	e.ok(e.storage("/timeseries/"+e.b.WorkspaceID+"/data?size=100&sort=timestamp_device"), &out)
	if len(out.Result) != 5 {
		t.Fatalf("stored %d points, want 5: %+v", len(out.Result), out.Result)
	}
	for _, p := range out.Result {
		if p.DeviceID == a.ID && p.Tag == "t" && p.TimestampDevice == "2024-01-01T00:00:00Z" && string(p.Payload) != "1" {
			t.Fatalf("the first published point must win: %+v", p)
		}
	}
	// The admin HTTP route reports accepted and received counts.
	var res struct{ Accepted, Received int }
	e.ok(e.admin(http.MethodPost, "/workspaces/"+e.b.WorkspaceID+"/data", map[string]any{"points": []localzdm.DataPoint{
		pt(a.ID, "t", "2024-01-01T00:00:00Z", `1`), pt(a.ID, "t", "2024-03-01T00:00:00Z", `1`),
	}}), &res)
	if res.Accepted != 1 || res.Received != 2 {
		t.Fatalf("admin publish = %+v", res)
	}
}

func TestStorageErrors(t *testing.T) {
	t.Parallel()
	se := newStorageEnv(t)
	path := "/timeseries/" + se.b.WorkspaceID + "/data"
	cases := []struct {
		query, want string
	}{
		{"?size=175001", "at most 175000"},
		{"?size=-1", "negative"},
		{"?from=-1", "negative"},
		{"?size=abc", "integer"},
		{"?size=", "integer"},
		{"?from=1.5", "integer"},
		{"?from=99999999999999999999", "integer"},
		{"?size=1&size=2", "at most once"},
		{"?sort=timestamp", `"sort"`},
		{"?sort=%2Btimestamp_device", `"sort"`},
		{"?start=yesterday", `"start"`},
		{"?start=2024-01-01", `"start"`},
		{"?end=2024-01-01T00:00:00", `"end"`},
		{"?end=", `"end"`},
		{"?device=", `"device"`},
		{"?tag=&tag=x", `"tag"`},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			e := *se.env
			e.t = t
			e.fails(e.storage(path+tc.query), http.StatusBadRequest, tc.want)
		})
	}

	// Storage must be enabled; scope and keys are checked as on the
	// management service.
	other, err := se.s.CreateWorkspace(se.b.AccountID, "other")
	if err != nil {
		t.Fatal(err)
	}
	otherURL := se.s.StorageURL() + "/v3/timeseries/" + other.WorkspaceID + "/data"
	ae := se.fails(se.do(http.MethodGet, otherURL, other.APIKey, nil), http.StatusForbidden, "not enabled")
	if ae.Error.Code != localzdm.CodeStorageDisabled {
		t.Fatalf("code = %q", ae.Error.Code)
	}
	if err := se.s.SetStorage(other.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	se.ok(se.do(http.MethodGet, otherURL, other.APIKey, nil), nil)
	se.fails(se.do(http.MethodGet, otherURL, se.b.APIKey, nil), http.StatusForbidden, other.WorkspaceID)
	if err := se.s.SetStorage(other.WorkspaceID, false); err != nil {
		t.Fatal(err)
	}
	se.fails(se.do(http.MethodGet, otherURL, other.APIKey, nil), http.StatusForbidden, "not enabled")

	// Publish validates the whole batch first: nothing is stored on error.
	good := localzdm.DataPoint{DeviceID: se.devA.ID, Tag: "new", TimestampDevice: at(1000)}
	foreignDev, err := se.s.CreateDevices(other.WorkspaceID, "", []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		name string
		p    localzdm.DataPoint
		want string
	}{
		{"unknown device", localzdm.DataPoint{DeviceID: "dev-nope", Tag: "t", TimestampDevice: at(1)}, "points[1].device_id"},
		{"foreign device", localzdm.DataPoint{DeviceID: foreignDev[0], Tag: "t", TimestampDevice: at(1)}, "points[1].device_id"},
		{"blank tag", localzdm.DataPoint{DeviceID: se.devA.ID, Tag: " ", TimestampDevice: at(1)}, "points[1].tag"},
		{"bad time", localzdm.DataPoint{DeviceID: se.devA.ID, Tag: "t", TimestampDevice: "2024-13-01T00:00:00Z"}, "points[1].timestamp_device"},
		{"bad timestamp_in", localzdm.DataPoint{DeviceID: se.devA.ID, Tag: "t", TimestampDevice: at(1), TimestampIn: "now"}, "points[1].timestamp_in"},
	}
	for _, tc := range bad {
		r := se.admin(http.MethodPost, "/workspaces/"+se.b.WorkspaceID+"/data", map[string]any{"points": []any{good, tc.p}})
		se.fails(r, http.StatusBadRequest, tc.want)
	}
	if _, err := se.s.Publish(se.b.WorkspaceID, []localzdm.DataPoint{good, {DeviceID: se.devA.ID, Tag: "t", TimestampDevice: at(1), Payload: json.RawMessage(`{x}`)}}); err == nil ||
		!strings.Contains(err.Error(), "points[1].payload") {
		t.Fatalf("Publish with a bad payload: %v", err)
	}
	se.fails(se.admin(http.MethodPost, "/workspaces/"+se.b.WorkspaceID+"/data", `{"points":[{"device_id":1}]}`), http.StatusBadRequest, "device_id")
	se.fails(se.admin(http.MethodPost, "/workspaces/"+se.b.WorkspaceID+"/data", `{"points":[`), http.StatusBadRequest, "malformed JSON")
	if got := se.query("?tag=new"); len(got) != 0 {
		t.Fatalf("a failed batch stored %d points", len(got))
	}
	if _, err := se.s.Publish("wks-nope", []localzdm.DataPoint{good}); err == nil {
		t.Fatal("Publish to an unknown workspace succeeded")
	}
}

// TestStorageLargePage serves a full page of 175,000 points.
func TestStorageLargePage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := e.s.SetStorage(e.b.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	ids, err := e.s.CreateDevices(e.b.WorkspaceID, "", []string{"a", "b", "c", "d", "e"})
	if err != nil {
		t.Fatal(err)
	}
	const total = localzdm.MaxPageSize
	pts := make([]localzdm.DataPoint, 0, total)
	for i := range total {
		pts = append(pts, localzdm.DataPoint{
			DeviceID: ids[i%len(ids)], Tag: "t",
			TimestampDevice: t0.Add(time.Duration(total-i) * time.Millisecond).Format(time.RFC3339Nano),
			Payload:         json.RawMessage(`{"v":` + strconv.Itoa(i) + `}`),
		})
	}
	// Published in batches, out of order, to exercise the merge.
	for start := 0; start < total; start += 25000 {
		if n, err := e.s.Publish(e.b.WorkspaceID, pts[start:start+25000]); err != nil || n != 25000 {
			t.Fatalf("Publish = %d, %v", n, err)
		}
	}
	res, err := e.hc.Do(mustRequest(t, http.MethodGet, e.s.StorageURL()+"/v3/timeseries/"+e.b.WorkspaceID+"/data?sort=timestamp_device&size=175000", e.b.APIKey))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	// Items are split on their first member instead of being decoded:
	// encoding/json over 35 MB is slow under the race detector. The
	// payloads hold no "{" so the split is exact; a sample is decoded.
	const head, sep = `{"result":[{"timestamp_device":"`, `},{"timestamp_device":"`
	if !bytes.HasPrefix(body, []byte(head)) || !bytes.HasSuffix(body, []byte("}]}\n")) {
		t.Fatalf("unexpected body framing: %.100s ... %.100s", body, body[max(0, len(body)-100):])
	}
	items := bytes.Split(body[len(head):], []byte(sep))
	if len(items) != total {
		t.Fatalf("got %d points, want %d", len(items), total)
	}
	var prev time.Time
	for i, it := range items {
		end := bytes.IndexByte(it, '"')
		if end < 0 {
			t.Fatalf("point %d: %s", i, it)
		}
		ts, err := time.Parse(time.RFC3339Nano, string(it[:end]))
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && !ts.After(prev) {
			t.Fatalf("point %d at %s not after %s", i, ts, prev)
		}
		prev = ts
	}
	var sample struct{ Result []dataPoint }
	first := append(append([]byte{}, body[:len(head)]...), items[0]...)
	if err := json.Unmarshal(append(first, "}]}"...), &sample); err != nil || len(sample.Result) != 1 || sample.Result[0].Tag != "t" {
		t.Fatalf("first item does not decode: %v %+v", err, sample)
	}
}

func mustRequest(t *testing.T, method, url, key string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-KEY", key)
	return req
}
