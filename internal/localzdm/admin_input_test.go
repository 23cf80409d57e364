package localzdm_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// TestAdminInputStrict checks that the admin API refuses what it cannot
// act on as asked: unknown fields (named, with the field meant when one is
// close), out-of-range values (with the range), invalid names and
// addresses, and nothing changes.
func TestAdminInputStrict(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.createDevice("d", "")
	ws := e.b.WorkspaceID
	for _, tc := range []struct {
		name, method, path string
		body               string
		status             int
		want               string
	}{
		// Unknown fields.
		{"faults typo", "PUT", "/faults", `{"errorrate":0.5}`, 400, `unknown field "errorrate" in the request body; did you mean "error_rate"?`},
		{"faults unknown", "PUT", "/faults", `{"error_rate":0.5,"jitter":"1s"}`, 400, `unknown field "jitter" in the request body; the fields are latency, error_rate, rate_limit, retry_after, no_retry_after, drop_after_create, hang, rate_limit_headers`},
		{"account", "POST", "/accounts", `{"name":"a","owner":"b"}`, 400, `unknown field "owner" in the request body; the fields are name`},
		{"bootstrap", "POST", "/bootstrap", `{"nam":"x"}`, 400, `unknown field "nam"`},
		{"storage", "PUT", "/workspaces/" + ws + "/storage", `{"enable":true}`, 400, `unknown field "enable" in the request body; did you mean "enabled"?`},
		{"devices", "POST", "/workspaces/" + ws + "/devices", `{"names":["x"],"fleet":"f"}`, 400, `unknown field "fleet"`},
		{"data point", "POST", "/workspaces/" + ws + "/data", `{"points":[{"device_id":"` + d.ID + `","tag":"t","timestamp_device":"2024-01-01T00:00:00Z","value":1}]}`, 400, `unknown field "value" in the request body`},
		{"job status", "PUT", "/devices/" + d.ID + "/jobs/j/status", `{"state":"done"}`, 400, `unknown field "state"`},
		{"connect", "POST", "/devices/" + d.ID + "/connect", `{"ip":"10.0.0.1"}`, 400, `unknown field "ip"`},
		{"choices", "PUT", "/choices", `{"shuffle":true}`, 400, `unknown field "shuffle" in the request body; the fields are missing_fota, shuffle_lists,`},
		{"behavior", "PUT", "/behavior", `{"enable":true}`, 400, `unknown field "enable" in the request body; did you mean "enabled"?`},
		{"request fault", "POST", "/faults/requests", `{"action":"reset","paht":"/v3/*"}`, 400, `unknown field "paht"`},
		{"rename", "PUT", "/fleets/" + d.FleetID + "/name", `{"name":"x","description":"y"}`, 400, `unknown field "description"`},
		// Ranges.
		{"negative retry_after ms", "PUT", "/faults", `{"retry_after":-1000}`, 400, `"retry_after" must not be negative, got -1000 ms`},
		{"negative retry_after", "PUT", "/faults", `{"retry_after":"-2s"}`, 400, `"retry_after" must not be negative, got -2s`},
		{"huge latency ms", "PUT", "/faults", `{"latency":1e30}`, 400, `"latency" must be at most 1h0m0s, got 1000000000000000000000000000000 ms`},
		{"huge latency", "PUT", "/faults", `{"latency":"100000000000h"}`, 400, `"latency" must be at most 1h0m0s, got "100000000000h"`},
		{"long latency", "PUT", "/faults", `{"latency":"2h"}`, 400, `"latency" must be at most 1h0m0s, got 2h0m0s`},
		{"negative latency", "PUT", "/faults", `{"latency":"-1s"}`, 400, `"latency" must not be negative, got -1s`},
		{"bad latency", "PUT", "/faults", `{"latency":"soon"}`, 400, `"latency" must be a duration such as "250ms"`},
		{"error rate", "PUT", "/faults", `{"error_rate":2}`, 400, `"error_rate" must be between 0 and 1, got 2`},
		{"rate limit", "PUT", "/faults", `{"rate_limit":-1}`, 400, `"rate_limit" must be a finite number >= 0, got -1`},
		{"fault window", "POST", "/faults/requests", `{"action":"reset","for":"48h"}`, 400, `"for" must be at most 24h0m0s, got 48h0m0s`},
		{"fault delay", "POST", "/faults/requests", `{"action":"delay","delay":"90m"}`, 400, `"delay" must be at most 1h0m0s, got 1h30m0s`},
		{"behavior jitter", "PUT", "/behavior", `{"jitter":-5}`, 400, `"jitter" must not be negative, got -5 ms`},
		{"workspace list limit", "PUT", "/choices", `{"workspace_list_limit":-1}`, 400, `"workspace_list_limit" must not be negative`},
		// Types.
		{"type", "PUT", "/faults", `{"hang":"yes"}`, 400, `field "hang" must be a boolean`},
		{"behavior type", "PUT", "/behavior", `{"enabled":"yes"}`, 400, `field "enabled" must be a boolean`},
		// Addresses.
		{"device ip", "POST", "/devices/" + d.ID + "/connect", `{"device_ip":"not-an-ip"}`, 400, `"device_ip" must be an IP address such as "10.0.0.7" or "fd00::7", not "not-an-ip"`},
	} {
		t.Logf("case %s", tc.name)
		e.fails(e.admin(tc.method, tc.path, tc.body), tc.status, tc.want)
	}
	// A nested unknown field is named without the top-level fields.
	ae := e.fails(e.admin(http.MethodPost, "/workspaces/"+ws+"/data", `{"points":[{"device_id":"x","points":1}]}`), 400, `unknown field "points"`)
	if ae.Error.Message != `unknown field "points" in the request body` {
		t.Fatalf("nested unknown field: %q", ae.Error.Message)
	}
	// Nothing was applied.
	if f := e.s.CurrentFaults(); f != (localzdm.Faults{}) {
		t.Fatalf("faults after refusals = %+v", f)
	}
	if c := e.s.CurrentChoices(); c.ShuffleLists || c.WorkspaceListLimit != 0 {
		t.Fatalf("choices after refusals = %+v", c)
	}
	if b := e.s.CurrentDeviceBehavior(); b.Enabled {
		t.Fatalf("behavior after refusals = %+v", b)
	}
	if n := len(e.s.RequestFaults()); n != 0 {
		t.Fatalf("%d request faults after refusals", n)
	}
	// Positive controls: the same routes accept valid bodies.
	e.ok(e.admin(http.MethodPut, "/faults", `{"error_rate":0.5,"latency":"1h","retry_after":0}`), nil)
	if f := e.s.CurrentFaults(); f.ErrorRate != 0.5 || f.Latency != time.Hour {
		t.Fatalf("faults = %+v", f)
	}
	e.ok(e.admin(http.MethodPut, "/faults", `{}`), nil)
	for _, ip := range []string{"10.0.0.8", "fd00::7", ""} {
		e.ok(e.admin(http.MethodPost, "/devices/"+d.ID+"/connect", map[string]string{"device_ip": ip}), nil)
	}
	var le *localzdm.Error
	if err := e.s.ConnectDevice(d.ID, "not-an-ip"); !errors.As(err, &le) || le.Status != http.StatusBadRequest {
		t.Fatalf("ConnectDevice with a bad address = %v, want 400", err)
	}
}

// TestPathNamesRefused checks that job names and firmware IDs and versions
// that are blank or path steps are refused, by the API and the admin API.
func TestPathNamesRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.createDevice("d", "")
	for _, tc := range []struct {
		path, want string
	}{
		{"/devices/" + d.ID + "/jobs/%2E%2E", `job name ".." is not allowed: "." and ".." are path steps, not names`},
		{"/devices/" + d.ID + "/jobs/%2E", `job name "." is not allowed`},
		{"/devices/" + d.ID + "/jobs/%20%09", `job name must not be empty or blank, got " \t"`},
		{"/workspace/" + e.b.WorkspaceID + "/jobs/%2E%2E", `job name ".." is not allowed`},
		{"/devices/" + d.ID + "/fota/fw/versions/%20", `firmware_version must not be empty or blank, got " "`},
		{"/devices/" + d.ID + "/fota/%2E%2E/versions/1", `firmware_id ".." is not allowed`},
		{"/workspaces/" + e.b.WorkspaceID + "/fota/fw/versions/%20", `firmware_version must not be empty or blank`},
	} {
		e.fails(e.api(http.MethodPost, tc.path, nil), http.StatusBadRequest, tc.want)
	}
	// Nothing was scheduled; a plain name still works.
	var jobs struct{ Jobs []job }
	e.ok(e.api(http.MethodGet, "/devices/"+d.ID+"/jobs", nil), &jobs)
	if len(jobs.Jobs) != 0 {
		t.Fatalf("jobs after refusals = %+v", jobs.Jobs)
	}
	e.fails(e.api(http.MethodGet, "/devices/"+d.ID+"/fota", nil), http.StatusNotFound, "no FOTA")
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/..x", nil), nil)
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/fota/fw/versions/1.0", nil), nil)
}

// countingReader yields n bytes of filler and counts what was read.
type countingReader struct {
	n, read atomic.Int64
}

func (r *countingReader) Read(p []byte) (int, error) {
	left := r.n.Load() - r.read.Load()
	if left <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), left)
	for i := range p[:k] {
		p[i] = ' '
	}
	r.read.Add(k)
	return int(k), nil
}

// TestAdminBodyLimits checks that admin bodies are bounded while they are
// read: 1 MiB for every route but data publishing (64 MiB), answered 413
// with a message naming the limit and the route.
func TestAdminBodyLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	over := `{"error_rate":0.5}` + strings.Repeat(" ", 1<<20)
	e.fails(e.admin(http.MethodPut, "/faults", over), http.StatusRequestEntityTooLarge,
		"request body is larger than 1 MiB, the limit for PUT /admin/faults: send a smaller body")
	if f := e.s.CurrentFaults(); f.ErrorRate != 0 {
		t.Fatalf("an oversized body was applied: %+v", f)
	}
	// Just under the limit is accepted.
	e.ok(e.admin(http.MethodPut, "/faults", `{"error_rate":0.5}`+strings.Repeat(" ", 1<<20-100)), nil)
	// Publishing accepts larger bodies.
	e.ok(e.admin(http.MethodPost, "/workspaces/"+e.b.WorkspaceID+"/data", `{"points":[]}`+strings.Repeat(" ", 4<<20)), nil)

	// A huge body is not read whole: the server stops reading near the
	// limit and answers 413.
	body := &countingReader{}
	body.n.Store(512 << 20)
	req, err := http.NewRequest(http.MethodPost, e.s.AdminURL()+"/workspaces/"+e.b.WorkspaceID+"/data", body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = -1
	res, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err == nil {
		msg, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge || !bytes.Contains(msg, []byte("larger than 64 MiB")) {
			t.Fatalf("512 MiB body: %d %s", res.StatusCode, msg)
		}
	}
	if read := body.read.Load(); read >= 256<<20 {
		t.Fatalf("the server read %d MiB of a 512 MiB body; want it to stop near the 64 MiB limit", read>>20)
	}
}
