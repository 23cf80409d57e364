package localzdm_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// Fuzz targets of the local server's request parsing: any request (method,
// path with IDs, query, JSON body) through the handlers; the storage query
// parameters against an oracle; and IDs and names sent by the client over
// loopback, which must come back unchanged. Seed corpora are in
// testdata/fuzz; plain `go test` runs them, `make fuzz` explores.

// fuzzWorld is a server with two accounts' workspaces, a fleet, a device
// with a job and a FOTA, and stored data points.
type fuzzWorld struct {
	s        *localzdm.Server
	b, other localzdm.Bootstrap
	fleetID  string
	deviceID string
	// ids replaces the placeholders of fuzzed paths and queries.
	ids *strings.Replacer
}

func newFuzzWorld(t testing.TB) *fuzzWorld {
	t.Helper()
	s, err := localzdm.New(localzdm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	w := &fuzzWorld{s: s}
	if w.b, err = s.Bootstrap("fuzz"); err != nil {
		t.Fatal(err)
	}
	if w.other, err = s.Bootstrap("other"); err != nil {
		t.Fatal(err)
	}
	var fleet struct {
		Fleet struct{ ID string } `json:"fleet"`
	}
	w.mustOK(t, http.MethodPost, "/v3/workspaces/"+w.b.WorkspaceID+"/fleets", `{"name":"east"}`, &fleet)
	w.fleetID = fleet.Fleet.ID
	ids, err := s.CreateDevices(w.b.WorkspaceID, w.fleetID, []string{"sensor"})
	if err != nil {
		t.Fatal(err)
	}
	w.deviceID = ids[0]
	w.mustOK(t, http.MethodPost, "/v3/devices/"+w.deviceID+"/jobs/reboot", `{"value":{"delay":1}}`, nil)
	w.mustOK(t, http.MethodPost, "/v3/devices/"+w.deviceID+"/fota/fw/versions/1.0", ``, nil)
	if err := s.SetStorage(w.b.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	w.ids = strings.NewReplacer("{ws}", w.b.WorkspaceID, "{other_ws}", w.other.WorkspaceID,
		"{flt}", w.fleetID, "{dev}", w.deviceID)
	return w
}

// serve sends a request to the handler of its service (the storage service
// for paths under /v3/timeseries) and returns the recorded answer.
func (w *fuzzWorld) serve(req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	if strings.HasPrefix(req.URL.Path, "/v3/timeseries") {
		w.s.StorageHandler().ServeHTTP(rec, req)
	} else {
		w.s.ManagementHandler().ServeHTTP(rec, req)
	}
	return rec
}

func (w *fuzzWorld) mustOK(t testing.TB, method, target, body string, out any) {
	t.Helper()
	req := httptest.NewRequest(method, "http://zdm.test"+target, strings.NewReader(body))
	req.Header.Set("X-API-KEY", w.b.APIKey)
	rec := w.serve(req)
	if rec.Code != http.StatusOK {
		t.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body)
	}
	if out != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			t.Fatalf("%s %s: %v", method, target, err)
		}
	}
}

// snapshot is everything the key of w.b can read, to compare before and
// after a request.
func (w *fuzzWorld) snapshot(t testing.TB) string {
	t.Helper()
	var b strings.Builder
	for _, p := range []string{
		"/v3/workspaces",
		"/v3/workspaces/" + w.b.WorkspaceID + "/fleets",
		"/v3/workspaces/" + w.b.WorkspaceID + "/devices",
		"/v3/devices/" + w.deviceID + "/jobs",
		"/v3/devices/" + w.deviceID + "/fota",
		"/v3/timeseries/" + w.b.WorkspaceID + "/data?size=175000",
	} {
		req := httptest.NewRequest(http.MethodGet, "http://zdm.test"+p, nil)
		req.Header.Set("X-API-KEY", w.b.APIKey)
		rec := w.serve(req)
		fmt.Fprintf(&b, "%s %d %s\n", p, rec.Code, rec.Body)
	}
	return b.String()
}

// errorCodes are the error codes each status may carry.
var errorCodes = map[int][]string{
	http.StatusBadRequest:            {localzdm.CodeInvalidJSON, localzdm.CodeInvalidArgument},
	http.StatusUnauthorized:          {localzdm.CodeUnauthenticated},
	http.StatusForbidden:             {localzdm.CodeForbidden, localzdm.CodeStorageDisabled},
	http.StatusNotFound:              {localzdm.CodeNotFound},
	http.StatusMethodNotAllowed:      {localzdm.CodeMethodNotAllowed},
	http.StatusRequestEntityTooLarge: {localzdm.CodeBodyTooLarge},
}

type errorAnswer struct {
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// checkAnswer checks what every answer of the API must be: JSON, a known
// status, and for errors the error shape with a code that fits the status.
func checkAnswer(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	body := rec.Body.Bytes()
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("status %d with Content-Type %q: %s", rec.Code, ct, body)
	}
	if !json.Valid(body) || !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		t.Fatalf("status %d: the answer is not a JSON object: %q", rec.Code, body)
	}
	if rec.Code == http.StatusOK {
		return
	}
	codes, ok := errorCodes[rec.Code]
	if !ok {
		t.Fatalf("unexpected status %d: %s", rec.Code, body)
	}
	var e errorAnswer
	if err := json.Unmarshal(body, &e); err != nil || e.Error == nil || e.Error.Message == "" {
		t.Fatalf("status %d: not an error answer: %s", rec.Code, body)
	}
	if !slices.Contains(codes, e.Error.Code) {
		t.Fatalf("status %d with code %q: %s", rec.Code, e.Error.Code, body)
	}
	if rec.Code == http.StatusMethodNotAllowed && rec.Header().Get("Allow") == "" {
		t.Fatalf("405 without Allow header")
	}
}

// fuzzMethods are the methods the fuzzer picks from (by index), with the
// unusual ones the server must refuse cleanly.
var fuzzMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete,
	http.MethodPatch, http.MethodHead, http.MethodOptions, "PROPFIND"}

// FuzzAPIRequest sends any request to the API: a method, a path and query
// under /v3 (with placeholders {ws}, {other_ws}, {flt}, {dev} for real IDs),
// a key choice and a body. Every answer is JSON with a known status and,
// for errors, the error shape; nothing answers 5xx; a refused request, or a
// GET, changes nothing.
func FuzzAPIRequest(f *testing.F) {
	seeds := []struct {
		method uint8
		target string
		key    uint8
		body   string
	}{
		{0, "workspaces", 0, ""},
		{0, "workspaces/{ws}/devices/{dev}", 0, ""},
		{1, "workspaces/{ws}/devices", 0, `{"name":"d","fleet_id":"{flt}"}`},
		{1, "workspaces/{ws}/devices", 0, `{"name":"  "}`},
		{1, "workspaces/{ws}/devices", 0, `{"name":7}`},
		{1, "workspaces/{ws}/fleets", 0, `{"name":"f","description":null}`},
		{2, "workspaces/{ws}/devices/{dev}", 0, `{"name":"renamed","fleet_id":"nope"}`},
		{1, "devices/{dev}/jobs/a%2Fb", 0, `{"value":[1]}`},
		{1, "workspace/{ws}/jobs/update?fleet={flt}&fleet=", 0, `{}`},
		{1, "workspaces/{ws}/fota/fw/versions/2.0?fleet=flt-x", 0, ``},
		{0, "devices/{dev}/jobs?status=pending&status=done", 0, ""},
		{0, "workspaces/{other_ws}/devices", 0, ""},
		{0, "timeseries/{ws}/data?start=2025-01-01T00:00:00Z&size=2&sort=timestamp_device", 0, ""},
		{0, "timeseries/{ws}/data?from=-1", 0, ""},
		{3, "workspaces/{ws}/fleets/%2E%2E", 0, ""},
		{0, "workspaces", 1, ""},
		{1, "workspaces", 2, `{"name":"w"}`},
		{1, "workspaces", 3, `{"name":"w"}`},
		{1, "workspaces/{ws}/devices", 0, "{\"name\":\"\xff\"}"},
		{1, "workspaces/{ws}/devices", 0, `{"name":"a"} {"name":"b"}`},
	}
	for _, s := range seeds {
		f.Add(s.method, s.target, s.key, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, method uint8, target string, key uint8, body []byte) {
		w := newFuzzWorld(t)
		target = w.ids.Replace(target)
		body = []byte(w.ids.Replace(string(body)))
		u, err := url.Parse("http://zdm.test/v3/" + target)
		if err != nil || u.Host != "zdm.test" {
			return
		}
		m := fuzzMethods[int(method)%len(fuzzMethods)]
		req, err := http.NewRequestWithContext(context.Background(), m, u.String(), bytes.NewReader(body))
		if err != nil {
			return
		}
		req.RemoteAddr = "127.0.0.1:5555"
		switch key % 4 {
		case 0:
			req.Header.Set("X-API-KEY", w.b.APIKey)
		case 2:
			req.Header.Set("X-API-KEY", "zdmk_not_a_key")
		case 3:
			req.Header.Set("X-API-KEY", w.other.APIKey)
		}
		before := w.snapshot(t)
		rec := w.serve(req)
		if m != http.MethodHead {
			checkAnswer(t, rec)
		}
		if rec.Code != http.StatusOK || m == http.MethodGet || m == http.MethodHead {
			if after := w.snapshot(t); after != before {
				t.Fatalf("%s %s answered %d and changed the state:\nbefore:\n%s\nafter:\n%s", m, u, rec.Code, before, after)
			}
		}
	})
}

// fuzzPoints are the stored points of FuzzDataQuery: ties of time across
// devices and tags, fractional seconds, and a time zone offset.
func fuzzPoints(dev1, dev2 string) []localzdm.DataPoint {
	var pts []localzdm.DataPoint
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 24 {
		ts := base.Add(time.Duration(i/3) * 1500 * time.Millisecond)
		dev := []string{dev1, dev2}[i%2]
		tag := []string{"temp", "hum", "a/b"}[i%3]
		stamp := ts.Format(time.RFC3339Nano)
		if i%5 == 0 {
			stamp = ts.In(time.FixedZone("", 2*3600)).Format(time.RFC3339Nano)
		}
		pts = append(pts, localzdm.DataPoint{DeviceID: dev, Tag: tag, TimestampDevice: stamp,
			Payload: json.RawMessage(`{"i":` + strconv.Itoa(i) + `}`)})
	}
	return pts
}

type fuzzPoint struct {
	TimestampDevice string `json:"timestamp_device"`
	DeviceID        string `json:"device_id"`
	Tag             string `json:"tag"`
	raw             string
}

func decodePoints(t *testing.T, body []byte) []fuzzPoint {
	t.Helper()
	var out struct {
		Result []json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Result == nil {
		t.Fatalf("not a result list: %v: %s", err, body)
	}
	pts := make([]fuzzPoint, len(out.Result))
	for i, raw := range out.Result {
		if err := json.Unmarshal(raw, &pts[i]); err != nil {
			t.Fatal(err)
		}
		pts[i].raw = string(raw)
	}
	return pts
}

func instant(t *testing.T, s string) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("stored time %q: %v", s, err)
	}
	return ts
}

// comparePoints orders points by instant, then device ID, then tag.
func comparePoints(t *testing.T) func(a, b fuzzPoint) int {
	return func(a, b fuzzPoint) int {
		if c := instant(t, a.TimestampDevice).Compare(instant(t, b.TimestampDevice)); c != 0 {
			return c
		}
		return cmp.Or(strings.Compare(a.DeviceID, b.DeviceID), strings.Compare(a.Tag, b.Tag))
	}
}

// dataQuery is the test's own reading of the storage query rules (the API
// specification plus the documented choices of the local server).
type dataQuery struct {
	start, end    *time.Time
	from, size    int
	ascending     bool
	devices, tags []string
}

func parseQueryOracle(q url.Values) (*dataQuery, error) {
	dq := dataQuery{size: localzdm.DefaultPageSize}
	for _, name := range []string{"start", "end", "from", "size", "sort"} {
		if len(q[name]) > 1 {
			return nil, fmt.Errorf("%s repeated", name)
		}
	}
	for _, name := range []string{"start", "end"} {
		if vs, ok := q[name]; ok {
			ts, err := time.Parse(time.RFC3339Nano, vs[0])
			if err != nil {
				return nil, err
			}
			if name == "start" {
				dq.start = &ts
			} else {
				dq.end = &ts
			}
		}
	}
	for _, p := range []struct {
		name string
		dst  *int
		max  int
	}{{"from", &dq.from, -1}, {"size", &dq.size, localzdm.MaxPageSize}} {
		if vs, ok := q[p.name]; ok {
			n, err := strconv.Atoi(vs[0])
			if err != nil || n < 0 || (p.max >= 0 && n > p.max) {
				return nil, fmt.Errorf("bad %s", p.name)
			}
			*p.dst = n
		}
	}
	if vs, ok := q["sort"]; ok {
		switch vs[0] {
		case localzdm.SortAscending:
			dq.ascending = true
		case localzdm.SortDescending:
		default:
			return nil, errors.New("bad sort")
		}
	}
	dq.devices, dq.tags = q["device"], q["tag"]
	if slices.Contains(dq.devices, "") || slices.Contains(dq.tags, "") {
		return nil, errors.New("empty filter")
	}
	return &dq, nil
}

// selects applies the query to all points (sorted ascending) and returns
// the page.
func (dq *dataQuery) selects(t *testing.T, all []fuzzPoint) []fuzzPoint {
	var match []fuzzPoint
	for _, p := range all {
		ts := instant(t, p.TimestampDevice)
		if (dq.start != nil && ts.Before(*dq.start)) || (dq.end != nil && !ts.Before(*dq.end)) ||
			(dq.devices != nil && !slices.Contains(dq.devices, p.DeviceID)) ||
			(dq.tags != nil && !slices.Contains(dq.tags, p.Tag)) {
			continue
		}
		match = append(match, p)
	}
	if !dq.ascending {
		slices.Reverse(match)
	}
	if dq.size == 0 || dq.from > len(match)/dq.size {
		return []fuzzPoint{}
	}
	lo := dq.from * dq.size
	return match[lo:min(len(match), lo+dq.size)]
}

// FuzzDataQuery sends any query string to the storage service (with
// placeholders {dev}, {dev2} for device IDs) and checks the answer against
// the test's own reading of the rules: the same queries are refused (400,
// invalid_argument), and an accepted one returns exactly the page the rules
// select from the stored points, in order.
func FuzzDataQuery(f *testing.F) {
	for _, q := range []string{
		"",
		"size=5",
		"from=2&size=3&sort=timestamp_device",
		"start=2025-01-01T00:00:03Z&end=2025-01-01T00:00:09.5Z",
		"start=2025-01-01T02:00:03%2B02:00&sort=-timestamp_device",
		"device={dev}&tag=temp&tag=a%2Fb",
		"device={dev2}&device={dev}&size=0",
		"from=9223372036854775807&size=175000",
		"size=175001",
		"from=-1",
		"size=1&size=2",
		"sort=asc",
		"tag=",
		"start=yesterday",
		"start=2025-01-01T00:00:09Z&end=2025-01-01T00:00:03Z",
		"end=2025-01-01T00:00:04.5Z&from=1&size=2&unknown=x",
		"size=+3",
		"size=03&from=0x1",
	} {
		f.Add(q)
	}
	w := newFuzzWorld(f)
	ids, err := w.s.CreateDevices(w.b.WorkspaceID, "", []string{"second"})
	if err != nil {
		f.Fatal(err)
	}
	dev2 := ids[0]
	if _, err := w.s.Publish(w.b.WorkspaceID, fuzzPoints(w.deviceID, dev2)); err != nil {
		f.Fatal(err)
	}
	ids2 := strings.NewReplacer("{dev2}", dev2, "{dev}", w.deviceID)
	get := func(t *testing.T, rawQuery string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "http://zdm.test/v3/timeseries/"+w.b.WorkspaceID+"/data", nil)
		req.URL.RawQuery = rawQuery
		req.Header.Set("X-API-KEY", w.b.APIKey)
		rec := w.serve(req)
		checkAnswer(t, rec)
		return rec
	}
	var all []fuzzPoint
	f.Fuzz(func(t *testing.T, rawQuery string) {
		if all == nil {
			all = decodePoints(t, get(t, "sort=timestamp_device&size=175000").Body.Bytes())
			if len(all) != 24 || !slices.IsSortedFunc(all, comparePoints(t)) {
				t.Fatalf("stored points: %d, sorted %t", len(all), slices.IsSortedFunc(all, comparePoints(t)))
			}
		}
		rawQuery = ids2.Replace(rawQuery)
		rec := get(t, rawQuery)
		q, _ := url.ParseQuery(rawQuery) // the server reads r.URL.Query(), which drops bad pairs alike
		dq, oracleErr := parseQueryOracle(q)
		switch {
		case rec.Code == http.StatusBadRequest && oracleErr == nil:
			t.Fatalf("query %q refused but valid: %s", rawQuery, rec.Body)
		case rec.Code == http.StatusOK && oracleErr != nil:
			t.Fatalf("query %q accepted but invalid (%v)", rawQuery, oracleErr)
		case rec.Code != http.StatusOK:
			if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), `query parameter \"`) {
				t.Fatalf("query %q: %d %s", rawQuery, rec.Code, rec.Body)
			}
			return
		}
		got := decodePoints(t, rec.Body.Bytes())
		want := dq.selects(t, all)
		if !slices.EqualFunc(got, want, func(a, b fuzzPoint) bool { return a.raw == b.raw }) {
			t.Fatalf("query %q: got %d points %v, want %d %v", rawQuery, len(got), got, len(want), want)
		}
	})
}

// FuzzClientIDs sends names, IDs and job names through the client to a
// server over loopback: the escaped path segments and JSON bodies must
// arrive unchanged. A name that the server accepts is read back as sent; an
// unknown device ID is named, exactly, in the 404 message; a job scheduled
// under any name is read back under that name.
func FuzzClientIDs(f *testing.F) {
	for _, s := range [][3]string{
		{"sensor-1", "dev-1", "reboot"},
		{"a/b", "../x", "a/b"},
		{"..", ".", ".."},
		{"100% \"quoted\" \\ name", "id with spaces?&=#", "job?x=1#frag"},
		{"tab\tnew\nline", "%2F", "%"},
		{"日本語の名前", "ÿ", "ünïcödé"},
		{"  ", "", ""},
		{"\u2028\ufeff", "\x00", "\x7f"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	s, err := localzdm.New(localzdm.Options{})
	if err != nil {
		f.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0", "127.0.0.1:0"); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = s.Close() })
	b, err := s.Bootstrap("fuzz")
	if err != nil {
		f.Fatal(err)
	}
	c, err := client.New(client.Config{BaseURL: s.BaseURL(), APIKey: b.APIKey, MaxRetries: -1})
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	host, err := c.CreateDevice(ctx, b.WorkspaceID, "host", "")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name, id, jobName string) {
		// Names: accepted when not blank, at most 255 characters (valid
		// UTF-8: the client would replace invalid bytes).
		if utf8.ValidString(name) {
			d, err := c.CreateDevice(ctx, b.WorkspaceID, name, "")
			valid := strings.TrimSpace(name) != "" && utf8.RuneCountInString(name) <= 255
			switch {
			case valid && err != nil:
				t.Fatalf("CreateDevice(%q): %v", name, err)
			case !valid && !client.IsStatus(err, http.StatusBadRequest):
				t.Fatalf("CreateDevice(%q) = %v, want 400", name, err)
			case valid:
				got, err := c.GetDevice(ctx, b.WorkspaceID, d.ID)
				if err != nil || got.Name != name || d.Name != name {
					t.Fatalf("device named %q read back as %q / %+v: %v", name, d.Name, got, err)
				}
			}
		}

		// IDs: an unknown device is a 404 that names it.
		if id != "" && id != host.ID {
			_, err := c.GetDevice(ctx, b.WorkspaceID, id)
			var apiErr *client.APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
				t.Fatalf("GetDevice(%q) = %v, want 404", id, err)
			}
			// Long messages are cut by the client; check the ones it keeps
			// whole. The client folds runs of white space in a service's
			// message into one space, and %q leaves only ASCII spaces
			// unescaped: an ID of two spaces is named as one.
			want := spaceRuns.ReplaceAllString(fmt.Sprintf("device %q not found", id), " ")
			if len(want) < 400 && !strings.Contains(apiErr.Message, want) {
				t.Fatalf("GetDevice(%q): message %q does not name the ID as %s", id, apiErr.Message, want)
			}
		}

		// Job names: any non-empty name round-trips; one that is not valid
		// UTF-8 (it could not), too long, blank, "." or ".." (path steps)
		// is refused.
		validJob := utf8.ValidString(jobName) && utf8.RuneCountInString(jobName) <= 255 &&
			strings.TrimSpace(jobName) != "" && jobName != "." && jobName != ".."
		if jobName != "" && !validJob {
			if _, err := c.ScheduleJob(ctx, host.ID, jobName, nil); !client.IsStatus(err, http.StatusBadRequest) {
				t.Fatalf("ScheduleJob(%q) = %v, want 400", jobName, err)
			}
		}
		if jobName != "" && validJob {
			j, err := c.ScheduleJob(ctx, host.ID, jobName, json.RawMessage(`{"n":1}`))
			if err != nil || j.Name != jobName {
				t.Fatalf("ScheduleJob(%q) = %+v, %v", jobName, j, err)
			}
			got, err := c.GetJob(ctx, host.ID, jobName)
			if err != nil || got.Name != jobName || string(got.Value) != `{"n":1}` {
				t.Fatalf("GetJob(%q) = %+v, %v", jobName, got, err)
			}
		}
	})
}

// spaceRuns are the runs of spaces the client folds into one.
var spaceRuns = regexp.MustCompile(` {2,}`)
