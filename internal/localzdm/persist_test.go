package localzdm_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// snapshotAPI reads everything a key can see through the API.
func snapshotAPI(e *env, deviceIDs []string) map[string]string {
	e.t.Helper()
	out := map[string]string{}
	ws := "/workspaces/" + e.b.WorkspaceID
	paths := []string{"/workspaces", ws, ws + "/fleets", ws + "/devices"}
	for _, id := range deviceIDs {
		paths = append(paths, ws+"/devices/"+id, "/devices/"+id+"/jobs", "/devices/"+id+"/fota")
	}
	for _, p := range paths {
		r := e.api(http.MethodGet, p, nil)
		out[p] = r.String()
	}
	out["data"] = e.storage("/timeseries/" + e.b.WorkspaceID + "/data?size=1000").String()
	return out
}

func TestPersistence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "state.json")

	s1, err := localzdm.New(localzdm.Options{StateFile: file})
	if err != nil {
		t.Fatal(err)
	}
	if err := s1.Start("127.0.0.1:0", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	e := attachEnv(t, s1)
	boot, err := s1.EnsureBootstrap(localzdm.Bootstrap{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s1.SetStorage(e.b.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	f := e.createFleet("f")
	d1, d2 := e.createDevice("one", f.ID), e.createDevice("two", "")
	e.ok(e.api(http.MethodPut, "/workspaces/"+e.b.WorkspaceID+"/devices/"+d2.ID, map[string]string{"name": "two!", "fleet_id": f.ID}), nil)
	e.ok(e.api(http.MethodPost, "/devices/"+d1.ID+"/jobs/j", map[string]any{"value": map[string]int{"a": 1}}), nil)
	if err := s1.SetJobStatus(d1.ID, "j", "done"); err != nil {
		t.Fatal(err)
	}
	e.ok(e.api(http.MethodPost, "/workspaces/"+e.b.WorkspaceID+"/fota/fw/versions/9", nil), nil)
	gone := e.createDevice("gone", "")
	if err := s1.DeleteDevice(gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s1.Publish(e.b.WorkspaceID, []localzdm.DataPoint{
		{DeviceID: d1.ID, Tag: "t", TimestampDevice: "2024-01-01T00:00:00.5Z", Payload: json.RawMessage(`{"x":1}`)},
		{DeviceID: d2.ID, Tag: "u", TimestampDevice: "2024-01-01T00:00:00Z"},
	}); err != nil {
		t.Fatal(err)
	}
	key2, err := s1.CreateKey(e.b.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	if err := s1.SetWebhook(e.b.WorkspaceID, "http://127.0.0.1:1/hook"); err != nil {
		t.Fatal(err)
	}
	ids := []string{d1.ID, d2.ID}
	before := snapshotAPI(e, ids)
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Name() != "state.json" || entries[1].Name() != "state.json.lock" {
		t.Fatalf("state directory holds %v; want only state.json and its lock file (no temp or journal files)", entries)
	}
	data, err := os.ReadFile(filepath.Clean(file))
	if err != nil || !json.Valid(data) {
		t.Fatalf("state file is not JSON: %v", err)
	}

	s2 := localzdm.StartTestWithOptions(t, localzdm.Options{StateFile: file})
	e2 := &env{t: t, s: s2, b: e.b, hc: e.hc}
	after := snapshotAPI(e2, ids)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s after restart:\n got %s\nwant %s", k, after[k], v)
		}
	}
	if !strings.Contains(after["/devices/"+d1.ID+"/jobs"], `"status":"done"`) || !strings.Contains(after["data"], `"x":1`) {
		t.Fatalf("restored state lacks the job or the data: %v", after)
	}
	e2.fails(e2.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/devices/"+gone.ID, nil), http.StatusNotFound, gone.ID)
	e2.ok(e2.do(http.MethodGet, s2.BaseURL()+"/v3/workspaces", key2, nil), nil)
	if b, err := s2.EnsureBootstrap(localzdm.Bootstrap{}); err != nil || b != boot {
		t.Fatalf("bootstrap after restart = %+v, %v; want %+v", b, err, boot)
	}
	// Dedupe survives the restart; new writes keep working.
	if n, err := s2.Publish(e.b.WorkspaceID, []localzdm.DataPoint{{DeviceID: d1.ID, Tag: "t", TimestampDevice: "2024-01-01T00:00:00.500Z"}}); err != nil || n != 0 {
		t.Fatalf("republished duplicate: %d, %v", n, err)
	}
	d3 := e2.createDevice("three", "")
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	s3 := localzdm.StartTestWithOptions(t, localzdm.Options{StateFile: file})
	e3 := &env{t: t, s: s3, b: e.b, hc: e.hc}
	e3.ok(e3.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/devices/"+d3.ID, nil), nil)

	// Reset empties the file too.
	s3.Reset()
	if err := s3.Close(); err != nil {
		t.Fatal(err)
	}
	s4 := localzdm.StartTestWithOptions(t, localzdm.Options{StateFile: file})
	e4 := &env{t: t, s: s4, b: e.b, hc: e.hc}
	e4.fails(e4.api(http.MethodGet, "/workspaces", nil), http.StatusUnauthorized, "API key")
}

func TestPersistenceBadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"garbage":     "{not json",
		"version":     `{"version":99}`,
		"dangling":    `{"version":1,"workspaces":[{"id":"w","account_id":"missing"}]}`,
		"bad key":     `{"version":1,"keys":[{"key":"k","workspace_id":"nope"}]}`,
		"bad point":   `{"version":1,"data":{"w":[{"timestamp_device":"nope"}]}}`,
		"no default":  `{"version":1,"accounts":[{"id":"a","workspaces":["w"]}],"workspaces":[{"id":"w","account_id":"a"}]}`,
		"dup account": `{"version":1,"accounts":[{"id":"a"},{"id":"a"}]}`,
	} {
		file := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if s, err := localzdm.New(localzdm.Options{StateFile: file}); err == nil {
			_ = s.Close()
			t.Errorf("%s: New accepted %s", name, content)
		}
	}
	// A missing file starts empty and is created on Close.
	file := filepath.Join(dir, "new.json")
	s, err := localzdm.New(localzdm.Options{StateFile: file})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Bootstrap("x"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("state file not written: %v", err)
	}
	// An unwritable location is reported by New.
	if s, err := localzdm.New(localzdm.Options{StateFile: filepath.Join(dir, "missing-dir", "state.json")}); err == nil {
		_ = s.Close()
		t.Fatal("New accepted a state file in a missing directory")
	}
}
