package localzdm_test

import (
	"bytes"
	"errors"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

func TestAdminAccountsWorkspacesKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var acc struct {
		AccountID string `json:"account_id"`
	}
	e.ok(e.admin(http.MethodPost, "/accounts", map[string]string{"name": "acme"}), &acc)
	var b localzdm.Bootstrap
	e.ok(e.admin(http.MethodPost, "/workspaces", map[string]string{"account_id": acc.AccountID, "name": "prod"}), &b)
	if b.AccountID != acc.AccountID || b.WorkspaceID == "" || b.WorkspaceName != "prod" || b.APIKey == "" {
		t.Fatalf("bootstrap = %+v", b)
	}
	var list struct{ Workspaces []workspace }
	e.ok(e.do(http.MethodGet, e.s.BaseURL()+"/v3/workspaces", b.APIKey, nil), &list)
	if len(list.Workspaces) != 1 || list.Workspaces[0].ID != b.WorkspaceID || list.Workspaces[0].AccountID != acc.AccountID {
		t.Fatalf("workspaces of the new account = %+v", list.Workspaces)
	}
	var key struct {
		APIKey string `json:"api_key"`
	}
	e.ok(e.admin(http.MethodPost, "/workspaces/"+b.WorkspaceID+"/keys", nil), &key)
	if key.APIKey == "" || key.APIKey == b.APIKey {
		t.Fatalf("new key = %q", key.APIKey)
	}
	e.ok(e.do(http.MethodGet, e.s.BaseURL()+"/v3/workspaces/"+b.WorkspaceID+"/fleets", key.APIKey, nil), nil)

	var boot localzdm.Bootstrap
	e.ok(e.admin(http.MethodPost, "/bootstrap", nil), &boot)
	if boot.WorkspaceName != localzdm.DefaultBootstrapName || boot.APIKey == "" {
		t.Fatalf("bootstrap without name = %+v", boot)
	}
	e.ok(e.admin(http.MethodPost, "/bootstrap", map[string]string{"name": "named"}), &boot)
	if boot.WorkspaceName != "named" {
		t.Fatalf("bootstrap with name = %+v", boot)
	}

	e.fails(e.admin(http.MethodPost, "/accounts", map[string]string{"name": " "}), http.StatusBadRequest, `"name"`)
	e.fails(e.admin(http.MethodPost, "/accounts", "{"), http.StatusBadRequest, "malformed JSON")
	e.fails(e.admin(http.MethodPost, "/workspaces", map[string]string{"account_id": "acc-nope", "name": "x"}), http.StatusNotFound, "acc-nope")
	e.fails(e.admin(http.MethodPost, "/workspaces/wks-nope/keys", nil), http.StatusNotFound, "wks-nope")
	e.fails(e.admin(http.MethodGet, "/nope", nil), http.StatusNotFound, "no route")
	r := e.admin(http.MethodGet, "/accounts", nil)
	e.fails(r, http.StatusMethodNotAllowed, "POST")
	if r.header.Get("Allow") != "POST" {
		t.Fatalf("Allow = %q", r.header.Get("Allow"))
	}
	var health map[string]string
	e.ok(e.admin(http.MethodGet, "/health", nil), &health)
	if health["status"] != "ok" || health["base_url"] != e.s.BaseURL() || health["storage_url"] != e.s.StorageURL() {
		t.Fatalf("health = %v", health)
	}
	if got := e.s.TotalRequests(); got != 2 {
		t.Fatalf("TotalRequests = %d, want 2: admin requests are not counted", got)
	}
}

func TestAdminStorageDevicesStatuses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ws := e.b.WorkspaceID
	data := "/timeseries/" + ws + "/data"
	e.fails(e.storage(data), http.StatusForbidden, "not enabled")
	e.ok(e.admin(http.MethodPut, "/workspaces/"+ws+"/storage", map[string]bool{"enabled": true}), nil)
	e.ok(e.storage(data), nil)
	e.ok(e.admin(http.MethodPut, "/workspaces/"+ws+"/storage", map[string]bool{"enabled": false}), nil)
	e.fails(e.storage(data), http.StatusForbidden, "not enabled")
	e.fails(e.admin(http.MethodPut, "/workspaces/"+ws+"/storage", map[string]string{}), http.StatusBadRequest, `"enabled"`)
	e.fails(e.admin(http.MethodPut, "/workspaces/wks-x/storage", map[string]bool{"enabled": true}), http.StatusNotFound, "wks-x")

	f := e.createFleet("bulk")
	var created struct {
		DeviceIDs []string `json:"device_ids"`
	}
	e.ok(e.admin(http.MethodPost, "/workspaces/"+ws+"/devices", map[string]any{"fleet_id": f.ID, "names": []string{"a", "b"}}), &created)
	e.ok(e.admin(http.MethodPost, "/workspaces/"+ws+"/devices", map[string]any{"names": []string{"c"}}), nil)
	e.fails(e.admin(http.MethodPost, "/workspaces/"+ws+"/devices", map[string]any{"names": []string{"ok", ""}}), http.StatusBadRequest, "names[1]")
	e.fails(e.admin(http.MethodPost, "/workspaces/"+ws+"/devices", map[string]any{"fleet_id": "flt-x", "names": []string{"z"}}), http.StatusBadRequest, "flt-x")
	var list struct{ Devices []device }
	e.ok(e.api(http.MethodGet, "/workspaces/"+ws+"/devices", nil), &list)
	if len(list.Devices) != 3 || list.Devices[0].ID != created.DeviceIDs[0] || list.Devices[0].FleetName != "bulk" || list.Devices[2].FleetName != "default" {
		t.Fatalf("devices = %+v", list.Devices)
	}
	dev := created.DeviceIDs[0]

	// Jobs move to done.
	e.ok(e.api(http.MethodPost, "/devices/"+dev+"/jobs/j1", nil), nil)
	e.ok(e.admin(http.MethodPut, "/devices/"+dev+"/jobs/j1/status", map[string]string{"status": "done"}), nil)
	var j struct{ Job job }
	e.ok(e.api(http.MethodGet, "/devices/"+dev+"/jobs/j1", nil), &j)
	if j.Job.Status != "done" {
		t.Fatalf("job = %+v", j.Job)
	}
	e.fails(e.admin(http.MethodPut, "/devices/"+dev+"/jobs/j1/status", map[string]string{"status": "running"}), http.StatusBadRequest, `"status"`)
	e.fails(e.admin(http.MethodPut, "/devices/"+dev+"/jobs/nope/status", map[string]string{"status": "done"}), http.StatusNotFound, "nope")

	// FOTA status.
	e.fails(e.admin(http.MethodPut, "/devices/"+dev+"/fota/status", map[string]string{"status": "done"}), http.StatusNotFound, "no FOTA")
	e.ok(e.api(http.MethodPost, "/devices/"+dev+"/fota/fw/versions/1", nil), nil)
	e.ok(e.admin(http.MethodPut, "/devices/"+dev+"/fota/status", map[string]string{"status": "failed"}), nil)
	var fs struct{ Fota fotaStatus }
	e.ok(e.api(http.MethodGet, "/devices/"+dev+"/fota", nil), &fs)
	if fs.Fota.Status != "failed" {
		t.Fatalf("fota = %+v", fs.Fota)
	}
	e.fails(e.admin(http.MethodPut, "/devices/"+dev+"/fota/status", map[string]string{"status": "Not A Word"}), http.StatusBadRequest, `"status"`)

	// Drift: deleted objects disappear from the API.
	e.ok(e.admin(http.MethodDelete, "/devices/"+dev, nil), nil)
	e.fails(e.api(http.MethodGet, "/workspaces/"+ws+"/devices/"+dev, nil), http.StatusNotFound, dev)
	e.fails(e.api(http.MethodGet, "/devices/"+dev+"/jobs", nil), http.StatusNotFound, dev)
	e.fails(e.admin(http.MethodDelete, "/devices/"+dev, nil), http.StatusNotFound, dev)
	e.fails(e.admin(http.MethodDelete, "/fleets/"+f.ID, nil), http.StatusConflict, "still holds 1 devices")
	e.fails(e.admin(http.MethodDelete, "/fleets/"+e.defaultFleet().ID, nil), http.StatusConflict, "default fleet")
	empty := e.createFleet("empty")
	e.ok(e.admin(http.MethodDelete, "/fleets/"+empty.ID, nil), nil)
	e.fails(e.api(http.MethodGet, "/workspaces/"+ws+"/fleets/"+empty.ID, nil), http.StatusNotFound, empty.ID)

	sib, err := e.s.CreateWorkspace(e.b.AccountID, "sib")
	if err != nil {
		t.Fatal(err)
	}
	e.ok(e.admin(http.MethodDelete, "/workspaces/"+sib.WorkspaceID, nil), nil)
	e.fails(e.api(http.MethodGet, "/workspaces/"+sib.WorkspaceID, nil), http.StatusNotFound, sib.WorkspaceID)
	e.fails(e.do(http.MethodGet, e.s.BaseURL()+"/v3/workspaces", sib.APIKey, nil), http.StatusUnauthorized, "API key")
	e.fails(e.admin(http.MethodDelete, "/workspaces/"+sib.WorkspaceID, nil), http.StatusNotFound, sib.WorkspaceID)
}

func TestAdminCountersFaultsReset(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ws := e.b.WorkspaceID
	e.api(http.MethodGet, "/workspaces", nil)
	e.api(http.MethodGet, "/workspaces/"+ws+"/devices", nil)
	e.api(http.MethodGet, "/workspaces/"+ws+"/devices", nil)
	e.api(http.MethodPost, "/workspaces/"+ws+"/devices", map[string]string{"name": "x"})
	e.api(http.MethodDelete, "/workspaces/"+ws, nil)
	e.api(http.MethodGet, "/nope", nil)
	e.storage("/timeseries/" + ws + "/data")
	want := map[string]int64{
		"GET /v3/workspaces":                         1,
		"GET /v3/workspaces/{workspace_id}/devices":  2,
		"POST /v3/workspaces/{workspace_id}/devices": 1,
		"DELETE /v3/workspaces/{workspace_id}":       1,
		"GET (no route)":                             1,
		"GET /v3/timeseries/{workspace_id}/data":     1,
	}
	got := e.s.Counters()
	if len(got) != len(want) {
		t.Fatalf("counters = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("counters[%q] = %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
	var c struct {
		Counters map[string]int64 `json:"counters"`
		Total    int64            `json:"total"`
	}
	e.ok(e.admin(http.MethodGet, "/counters", nil), &c)
	if c.Total != 7 || c.Counters["GET /v3/workspaces/{workspace_id}/devices"] != 2 {
		t.Fatalf("admin counters = %+v", c)
	}
	e.ok(e.admin(http.MethodDelete, "/counters", nil), nil)
	if e.s.TotalRequests() != 0 || len(e.s.Counters()) != 0 {
		t.Fatalf("after reset: %d, %v", e.s.TotalRequests(), e.s.Counters())
	}

	// Faults over HTTP: durations as strings or milliseconds.
	var f localzdm.Faults
	e.ok(e.admin(http.MethodPut, "/faults", map[string]any{"latency": "15ms", "error_rate": 0.25, "rate_limit": 1000, "retry_after": 2000, "drop_after_create": true}), &f)
	want2 := localzdm.Faults{Latency: 15e6, ErrorRate: 0.25, RateLimit: 1000, RetryAfter: 2e9, DropAfterCreate: true}
	if f != want2 || e.s.CurrentFaults() != want2 {
		t.Fatalf("faults = %+v / %+v, want %+v", f, e.s.CurrentFaults(), want2)
	}
	e.ok(e.admin(http.MethodGet, "/faults", nil), &f)
	if f != want2 {
		t.Fatalf("GET faults = %+v", f)
	}
	for _, bad := range []string{`{"error_rate":2}`, `{"rate_limit":-1}`, `{"latency":"soon"}`, `{"latency":"-1s"}`, `{"hang":"yes"}`, `{"retry_after":true}`} {
		e.fails(e.admin(http.MethodPut, "/faults", bad), http.StatusBadRequest, "")
	}
	if e.s.CurrentFaults() != want2 {
		t.Fatal("a rejected fault setting changed the faults")
	}
	e.ok(e.admin(http.MethodPut, "/faults", `{}`), nil)
	if e.s.CurrentFaults() != (localzdm.Faults{}) {
		t.Fatalf("faults after {} = %+v", e.s.CurrentFaults())
	}

	// Reset forgets everything.
	e.s.SetFaults(localzdm.Faults{ErrorRate: 1})
	e.ok(e.admin(http.MethodPost, "/reset", nil), nil)
	if e.s.CurrentFaults() != (localzdm.Faults{}) || e.s.TotalRequests() != 0 {
		t.Fatal("reset kept faults or counters")
	}
	e.fails(e.api(http.MethodGet, "/workspaces", nil), http.StatusUnauthorized, "API key")
	b, err := e.s.Bootstrap("")
	if err != nil {
		t.Fatal(err)
	}
	e.b = b
	var list struct{ Workspaces []workspace }
	e.ok(e.api(http.MethodGet, "/workspaces", nil), &list)
	if len(list.Workspaces) != 1 {
		t.Fatalf("workspaces after reset = %+v", list.Workspaces)
	}
}

func TestAdminLoopbackOnly(t *testing.T) {
	t.Parallel()
	s, err := localzdm.New(localzdm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	h := s.ManagementHandler()
	for _, tc := range []struct {
		remote string
		status int
	}{
		{"127.0.0.1:5000", http.StatusOK},
		{"127.9.9.9:5000", http.StatusOK},
		{"[::1]:5000", http.StatusOK},
		{"10.1.2.3:5000", http.StatusForbidden},
		{"192.0.2.1:1234", http.StatusForbidden},
		{"[2001:db8::1]:80", http.StatusForbidden},
		{"garbage", http.StatusForbidden},
	} {
		req := httptest.NewRequest(http.MethodGet, "/admin/counters", nil)
		req.RemoteAddr = tc.remote
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Errorf("%s: status %d, want %d (%s)", tc.remote, rec.Code, tc.status, rec.Body)
		}
	}
	// The API itself works through the handlers too, from any address.
	b, err := s.Bootstrap("x")
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/v3/workspaces", nil)
	req.RemoteAddr = "10.1.2.3:5000"
	req.Header.Set("X-API-KEY", b.APIKey)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("API through the handler: %d %s", rec.Code, rec.Body)
	}
	req = httptest.NewRequest(http.MethodGet, "/v3/timeseries/"+b.WorkspaceID+"/data", nil)
	req.Header.Set("X-API-KEY", b.APIKey)
	rec = httptest.NewRecorder()
	s.StorageHandler().ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("storage through the handler: %d %s", rec.Code, rec.Body)
	}
	if s.BaseURL() != "" || s.StorageURL() != "" {
		t.Fatal("URLs set before Start")
	}
}

func TestEnsureBootstrap(t *testing.T) {
	t.Parallel()
	s := localzdm.StartTest(t)
	fixed := localzdm.Bootstrap{AccountID: "acc-fixed", WorkspaceID: "wks-fixed", WorkspaceName: "dev", APIKey: "key-fixed"}
	b, err := s.EnsureBootstrap(fixed)
	if err != nil || b != fixed {
		t.Fatalf("EnsureBootstrap(fixed) = %+v, %v", b, err)
	}
	if again, err := s.EnsureBootstrap(fixed); err != nil || again != fixed {
		t.Fatalf("second EnsureBootstrap(fixed) = %+v, %v", again, err)
	}
	if last, err := s.EnsureBootstrap(localzdm.Bootstrap{}); err != nil || last != fixed {
		t.Fatalf("EnsureBootstrap({}) = %+v, %v; want the previous one", last, err)
	}
	// A known key finds its workspace.
	if byKey, err := s.EnsureBootstrap(localzdm.Bootstrap{APIKey: "key-fixed"}); err != nil || byKey.WorkspaceID != "wks-fixed" {
		t.Fatalf("EnsureBootstrap(key) = %+v, %v", byKey, err)
	}
	// A new key for the existing workspace.
	if k2, err := s.EnsureBootstrap(localzdm.Bootstrap{WorkspaceID: "wks-fixed", APIKey: "key-2"}); err != nil || k2.APIKey != "key-2" || k2.AccountID != "acc-fixed" {
		t.Fatalf("EnsureBootstrap(workspace, new key) = %+v, %v", k2, err)
	}
	// Generated values.
	gen, err := s.EnsureBootstrap(localzdm.Bootstrap{WorkspaceName: "other"})
	if err != nil || gen.WorkspaceID == "" || gen.APIKey == "" || gen.AccountID == "" || gen.WorkspaceName != "other" {
		t.Fatalf("EnsureBootstrap(name) = %+v, %v", gen, err)
	}
	var le *localzdm.Error
	if _, err := s.EnsureBootstrap(localzdm.Bootstrap{WorkspaceID: "wks-fixed", AccountID: gen.AccountID}); !errors.As(err, &le) || le.Status != http.StatusConflict {
		t.Fatalf("workspace of another account: %v", err)
	}
	if _, err := s.EnsureBootstrap(localzdm.Bootstrap{APIKey: "key-fixed", WorkspaceID: gen.WorkspaceID}); !errors.As(err, &le) || le.Status != http.StatusConflict {
		t.Fatalf("key of another workspace: %v", err)
	}
	e := &env{t: t, s: s, b: fixed, hc: http.DefaultClient}
	var list struct{ Workspaces []workspace }
	e.ok(e.api(http.MethodGet, "/workspaces", nil), &list)
	if len(list.Workspaces) != 1 || list.Workspaces[0].ID != "wks-fixed" {
		t.Fatalf("workspaces = %+v", list.Workspaces)
	}
	// Go admin methods report errors with a status.
	for _, err := range []error{
		s.SetStorage("nope", true), s.DeleteDevice("nope"), s.DeleteFleet("nope"), s.DeleteWorkspace("nope"),
		s.SetJobStatus("nope", "j", "done"), s.SetFOTAStatus("nope", "done"), s.SetWebhook("nope", ""), s.ConnectDevice("nope", ""),
	} {
		if !errors.As(err, &le) || le.Status != http.StatusNotFound {
			t.Errorf("want a 404 *Error, got %v", err)
		}
	}
	if _, err := s.CreateAccount(""); !errors.As(err, &le) || le.Status != http.StatusBadRequest {
		t.Errorf("CreateAccount(\"\") = %v", err)
	}
	if _, err := s.CreateDevices("wks-fixed", "", []string{"a", " "}); err == nil {
		t.Error("CreateDevices with a blank name succeeded")
	}
	ids, err := s.CreateDevices("wks-fixed", "", []string{"a", "b"})
	if err != nil || len(ids) != 2 {
		t.Fatalf("CreateDevices = %v, %v", ids, err)
	}
	var devs struct{ Devices []device }
	e.ok(e.api(http.MethodGet, "/workspaces/wks-fixed/devices", nil), &devs)
	got := []string{}
	for _, d := range devs.Devices {
		got = append(got, d.ID)
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("devices = %v, want %v", got, ids)
	}
}

func TestAdminIdentities(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d := e.createDevice("d", "")
	path := "/workspaces/" + e.b.WorkspaceID + "/devices/" + d.ID
	e.ok(e.admin(http.MethodPut, "/devices/"+d.ID+"/identities", `{"phys_id":"esp32-01","identities":[{"dsn":"abc", "type": "x509"}]}`), nil)
	var got struct{ Device device }
	e.ok(e.api(http.MethodGet, path, nil), &got)
	if got.Device.PhysID != "esp32-01" || string(got.Device.Identities) != `[{"dsn":"abc","type":"x509"}]` {
		t.Fatalf("device = %+v (%s)", got.Device, got.Device.Identities)
	}
	e.fails(e.admin(http.MethodPut, "/devices/"+d.ID+"/identities", `{"identities":{"a":1}}`), http.StatusBadRequest, `"identities"`)
	e.fails(e.admin(http.MethodPut, "/devices/dev-x/identities", `{}`), http.StatusNotFound, "dev-x")
	if err := e.s.SetDeviceIdentities(d.ID, "", nil); err != nil {
		t.Fatal(err)
	}
	raw := e.api(http.MethodGet, path, nil)
	if !strings.Contains(string(raw.body), `"phys_id":"","identities":null`) {
		t.Fatalf("cleared identities: %s", raw.body)
	}
}

// TestRequestLog checks request logging and that it never shows the key.
func TestRequestLog(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	s := localzdm.StartTestWithOptions(t, localzdm.Options{Logger: log.New(&buf, "", 0), LogRequests: true})
	e := attachEnv(t, s)
	e.ok(e.api(http.MethodGet, "/workspaces", nil), nil)
	e.fails(e.do(http.MethodGet, s.BaseURL()+"/v3/workspaces", "zdmk_wrong", nil), http.StatusUnauthorized, "")
	e.ok(e.admin(http.MethodGet, "/health", nil), nil)
	if !strings.HasSuffix(s.AdminURL(), "/admin") {
		t.Fatalf("AdminURL = %q", s.AdminURL())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	logs := buf.String()
	for _, want := range []string{"GET /v3/workspaces -> 200", "GET /v3/workspaces -> 401", "admin GET /admin/health -> 200"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, e.b.APIKey) || strings.Contains(logs, "zdmk_wrong") {
		t.Fatalf("log shows an API key:\n%s", logs)
	}
}

// syncBuffer is a goroutine-safe log buffer.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
