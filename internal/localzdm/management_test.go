package localzdm_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

func TestWorkspaces(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sibling, err := e.s.CreateWorkspace(e.b.AccountID, "sibling")
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := e.s.Bootstrap("foreign")
	if err != nil {
		t.Fatal(err)
	}

	var created struct{ Workspace workspace }
	e.ok(e.api(http.MethodPost, "/workspaces", map[string]string{"name": "new ws", "description": "about"}), &created)
	w := created.Workspace
	if w.ID == "" || w.Name != "new ws" || w.Description != "about" || w.AccountID != e.b.AccountID {
		t.Fatalf("created workspace = %+v", w)
	}
	if _, err := time.Parse(time.RFC3339, w.CreatedAt); err != nil || !strings.HasSuffix(w.CreatedAt, "Z") {
		t.Fatalf("created_at %q is not RFC 3339 UTC: %v", w.CreatedAt, err)
	}
	var noDesc struct{ Workspace workspace }
	e.ok(e.api(http.MethodPost, "/workspaces", map[string]string{"name": "bare"}), &noDesc)
	if noDesc.Workspace.Description != "" {
		t.Fatalf("description = %q, want empty", noDesc.Workspace.Description)
	}

	var list struct{ Workspaces []workspace }
	e.ok(e.api(http.MethodGet, "/workspaces", nil), &list)
	var ids []string
	for _, x := range list.Workspaces {
		ids = append(ids, x.ID)
	}
	want := []string{e.b.WorkspaceID, sibling.WorkspaceID, w.ID, noDesc.Workspace.ID}
	if !slices.Equal(ids, want) {
		t.Fatalf("list = %v, want the account's workspaces in creation order %v", ids, want)
	}

	var got struct{ Workspace workspace }
	e.ok(e.api(http.MethodGet, "/workspaces/"+w.ID, nil), &got)
	if got.Workspace != w {
		t.Fatalf("get = %+v, want %+v", got.Workspace, w)
	}
	e.ok(e.api(http.MethodGet, "/workspaces/"+sibling.WorkspaceID, nil), nil)
	e.fails(e.api(http.MethodGet, "/workspaces/"+foreign.WorkspaceID, nil), http.StatusForbidden, foreign.WorkspaceID)
	e.fails(e.api(http.MethodGet, "/workspaces/wks-nope", nil), http.StatusNotFound, "wks-nope")

	// A new workspace has a default fleet; its sub-resources need its own key.
	e.fails(e.api(http.MethodGet, "/workspaces/"+w.ID+"/fleets", nil), http.StatusForbidden, w.ID)
	key, err := e.s.CreateKey(w.ID)
	if err != nil {
		t.Fatal(err)
	}
	var fleets struct{ Fleets []fleet }
	e.ok(e.do(http.MethodGet, e.s.BaseURL()+"/v3/workspaces/"+w.ID+"/fleets", key, nil), &fleets)
	if len(fleets.Fleets) != 1 || fleets.Fleets[0].Name != "default" || fleets.Fleets[0].WorkspaceID != w.ID {
		t.Fatalf("fleets of a new workspace = %+v", fleets.Fleets)
	}
}

func TestFleets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other, err := e.s.CreateWorkspace(e.b.AccountID, "other")
	if err != nil {
		t.Fatal(err)
	}
	f := e.createFleet("f1")
	if f.ID == "" || f.Name != "f1" || f.Description != "d" || f.WorkspaceID != e.b.WorkspaceID || f.AccountID != e.b.AccountID || f.CreatedAt == "" {
		t.Fatalf("created fleet = %+v", f)
	}
	var got struct{ Fleet fleet }
	e.ok(e.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/fleets/"+f.ID, nil), &got)
	if got.Fleet != f {
		t.Fatalf("get = %+v, want %+v", got.Fleet, f)
	}
	var list struct{ Fleets []fleet }
	e.ok(e.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/fleets", nil), &list)
	if len(list.Fleets) != 2 || list.Fleets[0].Name != "default" || list.Fleets[1] != f {
		t.Fatalf("list = %+v", list.Fleets)
	}
	// Duplicate names are allowed.
	if dup := e.createFleet("f1"); dup.ID == f.ID {
		t.Fatal("duplicate name reused the ID")
	}
	otherFleets := e.do(http.MethodGet, e.s.BaseURL()+"/v3/workspaces/"+other.WorkspaceID+"/fleets", other.APIKey, nil)
	var of struct{ Fleets []fleet }
	e.ok(otherFleets, &of)
	e.fails(e.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/fleets/"+of.Fleets[0].ID, nil), http.StatusNotFound, of.Fleets[0].ID)
	e.fails(e.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/fleets/flt-nope", nil), http.StatusNotFound, "flt-nope")
}

func TestDevices(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other, err := e.s.CreateWorkspace(e.b.AccountID, "other")
	if err != nil {
		t.Fatal(err)
	}
	otherDevs, err := e.s.CreateDevices(other.WorkspaceID, "", []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	def := e.defaultFleet()
	f := e.createFleet("f1")
	ws := "/workspaces/" + e.b.WorkspaceID + "/devices"

	d := e.createDevice("d1", "")
	if d.FleetID != def.ID || d.FleetName != "default" || d.WorkspaceID != e.b.WorkspaceID ||
		d.WorkspaceName != "test" || d.AccountID != e.b.AccountID || d.Name != "d1" || d.PhysID != "" || d.CreatedAt == "" {
		t.Fatalf("device without fleet_id = %+v", d)
	}
	if string(d.Identities) != "null" {
		t.Fatalf("identities = %s, want null", d.Identities)
	}
	var emptyFleet struct{ Device device }
	e.ok(e.api(http.MethodPost, ws, map[string]string{"name": "d0", "fleet_id": ""}), &emptyFleet)
	if emptyFleet.Device.FleetID != def.ID {
		t.Fatalf("empty fleet_id went to %q, want the default fleet", emptyFleet.Device.FleetID)
	}
	d2 := e.createDevice("d2", f.ID)
	if d2.FleetID != f.ID || d2.FleetName != "f1" {
		t.Fatalf("device in fleet = %+v", d2)
	}

	var got struct{ Device device }
	e.ok(e.api(http.MethodGet, ws+"/"+d.ID, nil), &got)
	if string(got.Device.Identities) != "null" || got.Device.ID != d.ID {
		t.Fatalf("get = %+v", got.Device)
	}
	raw := e.api(http.MethodGet, ws+"/"+d.ID, nil)
	if !strings.Contains(string(raw.body), `"identities":null`) {
		t.Fatalf("identities not JSON null in %s", raw.body)
	}

	var list struct{ Devices []device }
	e.ok(e.api(http.MethodGet, ws, nil), &list)
	if len(list.Devices) != 3 || list.Devices[0].ID != d.ID || list.Devices[2].ID != d2.ID {
		t.Fatalf("list = %+v", list.Devices)
	}

	// PUT updates name and fleet and answers the new fleet_name.
	var upd struct{ Device device }
	e.ok(e.api(http.MethodPut, ws+"/"+d.ID, map[string]string{"name": "renamed", "fleet_id": f.ID}), &upd)
	if upd.Device.Name != "renamed" || upd.Device.FleetID != f.ID || upd.Device.FleetName != "f1" || upd.Device.CreatedAt != d.CreatedAt {
		t.Fatalf("update = %+v", upd.Device)
	}
	e.ok(e.api(http.MethodPut, ws+"/"+d.ID, map[string]string{"name": "again"}), &upd)
	if upd.Device.Name != "again" || upd.Device.FleetID != f.ID {
		t.Fatalf("update without fleet_id = %+v, want the fleet kept", upd.Device)
	}
	e.ok(e.api(http.MethodGet, ws+"/"+d.ID, nil), &got)
	if got.Device.Name != "again" || got.Device.FleetName != "f1" {
		t.Fatalf("get after update = %+v", got.Device)
	}
	e.ok(e.api(http.MethodPut, ws+"/"+d.ID, map[string]string{"name": "back", "fleet_id": def.ID}), &upd)
	if upd.Device.FleetName != "default" {
		t.Fatalf("move back = %+v", upd.Device)
	}

	e.fails(e.api(http.MethodGet, ws+"/dev-nope", nil), http.StatusNotFound, "dev-nope")
	e.fails(e.api(http.MethodGet, ws+"/"+otherDevs[0], nil), http.StatusNotFound, otherDevs[0])
	e.fails(e.api(http.MethodPut, ws+"/"+otherDevs[0], map[string]string{"name": "x"}), http.StatusNotFound, otherDevs[0])
}

func TestJobs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f1, f2 := e.createFleet("f1"), e.createFleet("f2")
	a, b, c := e.createDevice("a", f1.ID), e.createDevice("b", f2.ID), e.createDevice("c", "")

	var sched struct{ Job job }
	e.ok(e.api(http.MethodPost, "/devices/"+a.ID+"/jobs/reboot", map[string]any{"value": map[string]any{"delay": 5}}), &sched)
	if sched.Job.Name != "reboot" || sched.Job.Status != "pending" || string(sched.Job.Value) != `{"delay":5}` || sched.Job.Devices != nil {
		t.Fatalf("schedule = %+v (%s)", sched.Job, sched.Job.Value)
	}
	if _, err := time.Parse(time.RFC3339, sched.Job.ScheduledAt); err != nil {
		t.Fatalf("scheduled_at: %v", err)
	}
	raw := e.api(http.MethodPost, "/devices/"+a.ID+"/jobs/reboot", map[string]any{"value": map[string]any{"delay": 5}})
	if strings.Contains(string(raw.body), "devices") {
		t.Fatalf("single-device schedule carries devices: %s", raw.body)
	}
	var noBody struct{ Job job }
	e.ok(e.api(http.MethodPost, "/devices/"+a.ID+"/jobs/ping", nil), &noBody)
	if string(noBody.Job.Value) != "{}" {
		t.Fatalf("value without body = %s, want {}", noBody.Job.Value)
	}

	var got struct{ Job job }
	e.ok(e.api(http.MethodGet, "/devices/"+a.ID+"/jobs/reboot", nil), &got)
	if got.Job.Status != "pending" || string(got.Job.Value) != `{"delay":5}` {
		t.Fatalf("get = %+v", got.Job)
	}
	if err := e.s.SetJobStatus(a.ID, "reboot", localzdm.JobStatusDone); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{"ping", "reboot"}},
		{"?status=pending", []string{"ping"}},
		{"?status=done", []string{"reboot"}},
	} {
		var list struct{ Jobs []job }
		e.ok(e.api(http.MethodGet, "/devices/"+a.ID+"/jobs"+tc.query, nil), &list)
		var names []string
		for _, j := range list.Jobs {
			names = append(names, j.Name)
		}
		if !slices.Equal(names, tc.want) {
			t.Errorf("jobs%s = %v, want %v", tc.query, names, tc.want)
		}
	}
	var empty struct{ Jobs []job }
	e.ok(e.api(http.MethodGet, "/devices/"+b.ID+"/jobs", nil), &empty)
	if empty.Jobs == nil || len(empty.Jobs) != 0 {
		t.Fatalf("jobs of a device without jobs = %#v, want []", empty.Jobs)
	}
	// Rescheduling replaces the job and sets it pending again.
	e.ok(e.api(http.MethodPost, "/devices/"+a.ID+"/jobs/reboot", map[string]any{"value": map[string]any{"delay": 9}}), nil)
	e.ok(e.api(http.MethodGet, "/devices/"+a.ID+"/jobs/reboot", nil), &got)
	if got.Job.Status != "pending" || string(got.Job.Value) != `{"delay":9}` {
		t.Fatalf("rescheduled = %+v", got.Job)
	}
	e.fails(e.api(http.MethodGet, "/devices/"+a.ID+"/jobs/nope", nil), http.StatusNotFound, "nope")
	// Job names may hold any character when escaped.
	e.ok(e.api(http.MethodPost, "/devices/"+a.ID+"/jobs/"+url.PathEscape("a/b c"), nil), &got)
	if got.Job.Name != "a/b c" {
		t.Fatalf("escaped name = %q", got.Job.Name)
	}

	// Fleet-wide: singular /workspace/ path, repeatable fleet parameter.
	fleetJob := "/workspace/" + e.b.WorkspaceID + "/jobs/update"
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{a.ID, b.ID, c.ID}},
		{"?fleet=" + f1.ID, []string{a.ID}},
		{"?fleet=" + f1.ID + "&fleet=" + f2.ID, []string{a.ID, b.ID}},
		{"?fleet=" + f2.ID + "&fleet=" + f2.ID, []string{b.ID}},
	} {
		var fj struct{ Job job }
		e.ok(e.api(http.MethodPost, fleetJob+tc.query, map[string]any{"value": map[string]int{"v": 1}}), &fj)
		if fj.Job.Name != "update" || fj.Job.Status != "pending" || string(fj.Job.Value) != `{"v":1}` || !slices.Equal(fj.Job.Devices, tc.want) {
			t.Errorf("fleet job%s = %+v, want devices %v", tc.query, fj.Job, tc.want)
		}
	}
	emptyFleet := e.createFleet("empty")
	rawFleet := e.api(http.MethodPost, fleetJob+"?fleet="+emptyFleet.ID, nil)
	if rawFleet.status != http.StatusOK || !strings.Contains(string(rawFleet.body), `"devices":[]`) {
		t.Fatalf("fleet job on an empty fleet: %s", rawFleet)
	}
	e.ok(e.api(http.MethodGet, "/devices/"+b.ID+"/jobs/update", nil), &got)
	if got.Job.Status != "pending" {
		t.Fatalf("fleet job not on device: %+v", got.Job)
	}
	e.fails(e.api(http.MethodPost, fleetJob+"?fleet=flt-nope", nil), http.StatusBadRequest, "flt-nope")
	e.fails(e.api(http.MethodPost, "/workspaces/"+e.b.WorkspaceID+"/jobs/update", nil), http.StatusNotFound, "no route")
}

func TestFOTA(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f1 := e.createFleet("f1")
	a, b := e.createDevice("a", f1.ID), e.createDevice("b", "")

	e.fails(e.api(http.MethodGet, "/devices/"+a.ID+"/fota", nil), http.StatusNotFound, a.ID)
	var sched struct{ Fota fotaStatus }
	e.ok(e.api(http.MethodPost, "/devices/"+a.ID+"/fota/fw-1/versions/1.2.3", nil), &sched)
	if sched.Fota.Status != "pending" || sched.Fota.Value.FirmwareID != "fw-1" || sched.Fota.Value.FirmwareVersion != "1.2.3" || sched.Fota.ScheduledAt == "" || sched.Fota.Devices != nil {
		t.Fatalf("schedule = %+v", sched.Fota)
	}
	var got struct{ Fota fotaStatus }
	e.ok(e.api(http.MethodGet, "/devices/"+a.ID+"/fota", nil), &got)
	if got.Fota.Status != "pending" || got.Fota.Value != sched.Fota.Value {
		t.Fatalf("get = %+v", got.Fota)
	}
	if err := e.s.SetFOTAStatus(a.ID, "done"); err != nil {
		t.Fatal(err)
	}
	e.ok(e.api(http.MethodGet, "/devices/"+a.ID+"/fota", nil), &got)
	if got.Fota.Status != "done" {
		t.Fatalf("status after SetFOTAStatus = %q", got.Fota.Status)
	}
	if err := e.s.SetFOTAStatus(b.ID, "done"); err == nil {
		t.Fatal("SetFOTAStatus without FOTA succeeded")
	}

	// Fleet-wide: plural /workspaces/ path.
	path := "/workspaces/" + e.b.WorkspaceID + "/fota/fw-2/versions/2.0"
	var fleetFOTA struct{ Fota fotaStatus }
	e.ok(e.api(http.MethodPost, path+"?fleet="+f1.ID, nil), &fleetFOTA)
	if fleetFOTA.Fota.Status != "pending" || !slices.Equal(fleetFOTA.Fota.Devices, []string{a.ID}) || fleetFOTA.Fota.Value.FirmwareID != "fw-2" {
		t.Fatalf("fleet FOTA = %+v", fleetFOTA.Fota)
	}
	e.ok(e.api(http.MethodPost, path, nil), &fleetFOTA)
	if !slices.Equal(fleetFOTA.Fota.Devices, []string{a.ID, b.ID}) {
		t.Fatalf("fleet FOTA on all fleets = %+v", fleetFOTA.Fota)
	}
	e.ok(e.api(http.MethodGet, "/devices/"+b.ID+"/fota", nil), &got)
	if got.Fota.Value.FirmwareVersion != "2.0" || got.Fota.Status != "pending" {
		t.Fatalf("fleet FOTA not on device: %+v", got.Fota)
	}
	e.fails(e.api(http.MethodPost, path+"?fleet=", nil), http.StatusBadRequest, "fleet")
	e.fails(e.api(http.MethodPost, "/workspace/"+e.b.WorkspaceID+"/fota/fw-2/versions/2.0", nil), http.StatusNotFound, "no route")
}

// TestAuthAndScope checks keys and workspace scope on every endpoint.
func TestAuthAndScope(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sibling, err := e.s.CreateWorkspace(e.b.AccountID, "sibling")
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := e.s.Bootstrap("foreign")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.s.SetStorage(e.b.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	own := e.createDevice("own", "")
	sibDev, err := e.s.CreateDevices(sibling.WorkspaceID, "", []string{"sib"})
	if err != nil {
		t.Fatal(err)
	}
	ownWS, sibWS := e.b.WorkspaceID, sibling.WorkspaceID
	body := map[string]string{"name": "n"}

	type endpoint struct {
		method, path string
		body         any
		storage      bool
	}
	endpoints := []endpoint{
		{"GET", "/workspaces", nil, false},
		{"POST", "/workspaces", body, false},
		{"GET", "/workspaces/" + ownWS, nil, false},
		{"GET", "/workspaces/" + ownWS + "/fleets", nil, false},
		{"POST", "/workspaces/" + ownWS + "/fleets", body, false},
		{"GET", "/workspaces/" + ownWS + "/fleets/x", nil, false},
		{"GET", "/workspaces/" + ownWS + "/devices", nil, false},
		{"POST", "/workspaces/" + ownWS + "/devices", body, false},
		{"GET", "/workspaces/" + ownWS + "/devices/" + own.ID, nil, false},
		{"PUT", "/workspaces/" + ownWS + "/devices/" + own.ID, body, false},
		{"GET", "/devices/" + own.ID + "/jobs", nil, false},
		{"GET", "/devices/" + own.ID + "/jobs/j", nil, false},
		{"POST", "/devices/" + own.ID + "/jobs/j", nil, false},
		{"POST", "/workspace/" + ownWS + "/jobs/j", nil, false},
		{"GET", "/devices/" + own.ID + "/fota", nil, false},
		{"POST", "/devices/" + own.ID + "/fota/f/versions/1", nil, false},
		{"POST", "/workspaces/" + ownWS + "/fota/f/versions/1", nil, false},
		{"GET", "/timeseries/" + ownWS + "/data", nil, true},
	}
	before := e.s.TotalRequests()
	for _, ep := range endpoints {
		base := e.s.BaseURL()
		if ep.storage {
			base = e.s.StorageURL()
		}
		for _, key := range []string{"", "zdmk_unknown"} {
			r := e.do(ep.method, base+"/v3"+ep.path, key, ep.body)
			e.fails(r, http.StatusUnauthorized, "API key")
			if strings.Contains(string(r.body), "zdmk_unknown") {
				t.Errorf("%s %s: error echoes the key: %s", ep.method, ep.path, r.body)
			}
		}
	}
	if got := e.s.TotalRequests() - before; got != int64(2*len(endpoints)) {
		t.Errorf("counted %d requests, want %d", got, 2*len(endpoints))
	}

	// Paths naming another workspace: 403 (404 when it does not exist).
	for _, ep := range endpoints {
		if !strings.Contains(ep.path, ownWS) {
			continue
		}
		base := e.s.BaseURL()
		if ep.storage {
			base = e.s.StorageURL()
		}
		if ep.path == "/workspaces/"+ownWS {
			continue // readable across the account; see below
		}
		e.fails(e.do(ep.method, base+"/v3"+strings.Replace(ep.path, ownWS, sibWS, 1), e.b.APIKey, ep.body), http.StatusForbidden, sibWS)
		e.fails(e.do(ep.method, base+"/v3"+strings.Replace(ep.path, ownWS, foreign.WorkspaceID, 1), e.b.APIKey, ep.body), http.StatusForbidden, foreign.WorkspaceID)
		e.fails(e.do(ep.method, base+"/v3"+strings.Replace(ep.path, ownWS, "wks-missing", 1), e.b.APIKey, ep.body), http.StatusNotFound, "wks-missing")
	}
	e.ok(e.api(http.MethodGet, "/workspaces/"+sibWS, nil), nil)
	e.fails(e.api(http.MethodGet, "/workspaces/"+foreign.WorkspaceID, nil), http.StatusForbidden, "another account")

	// Device-addressed paths for a device outside the key's workspace: 404.
	for _, ep := range endpoints {
		if !strings.HasPrefix(ep.path, "/devices/") {
			continue
		}
		e.fails(e.api(ep.method, strings.Replace(ep.path, own.ID, sibDev[0], 1), ep.body), http.StatusNotFound, sibDev[0])
	}

	// The sibling's own key works on its workspace and not on ours.
	e.ok(e.do(http.MethodGet, e.s.BaseURL()+"/v3/workspaces/"+sibWS+"/devices", sibling.APIKey, nil), nil)
	e.fails(e.do(http.MethodGet, e.s.BaseURL()+"/v3/workspaces/"+ownWS+"/devices", sibling.APIKey, nil), http.StatusForbidden, ownWS)
	// A second key of the same workspace works too.
	k2, err := e.s.CreateKey(ownWS)
	if err != nil {
		t.Fatal(err)
	}
	e.ok(e.do(http.MethodGet, e.s.BaseURL()+"/v3/workspaces/"+ownWS+"/devices", k2, nil), nil)
}

// TestBadInput checks that invalid requests answer 4xx naming the problem
// and change nothing.
func TestBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other, err := e.s.CreateWorkspace(e.b.AccountID, "other")
	if err != nil {
		t.Fatal(err)
	}
	var of struct{ Fleets []fleet }
	e.ok(e.do(http.MethodGet, e.s.BaseURL()+"/v3/workspaces/"+other.WorkspaceID+"/fleets", other.APIKey, nil), &of)
	otherFleet := of.Fleets[0].ID
	d := e.createDevice("d", "")
	ws := "/workspaces/" + e.b.WorkspaceID
	long := strings.Repeat("x", 256)

	cases := []struct {
		name, method, path string
		body               any
		status             int
		want               string
	}{
		{"malformed JSON", "POST", ws + "/devices", `{"name":`, 400, "malformed JSON"},
		{"syntax error", "POST", ws + "/fleets", `{"name" "x"}`, 400, "malformed JSON"},
		{"trailing data", "POST", ws + "/fleets", `{"name":"x"} {}`, 400, "unexpected data"},
		{"array body", "POST", ws + "/fleets", `[1]`, 400, "JSON object"},
		{"empty body", "POST", ws + "/fleets", "", 400, "body is required"},
		{"missing name", "POST", ws + "/fleets", `{"description":"x"}`, 400, `"name" is required`},
		{"null name", "POST", "/workspaces", `{"name":null}`, 400, `"name" is required`},
		{"empty name", "POST", ws + "/devices", `{"name":""}`, 400, `"name" must not be empty`},
		{"blank name", "POST", "/workspaces", `{"name":"  \t"}`, 400, `"name" must not be empty`},
		{"name not a string", "POST", ws + "/devices", `{"name":5}`, 400, `"name" must be a string`},
		{"description not a string", "POST", ws + "/fleets", `{"name":"x","description":[]}`, 400, `"description" must be a string`},
		{"long name", "POST", ws + "/fleets", map[string]string{"name": long}, 400, "at most 255"},
		{"unknown fleet", "POST", ws + "/devices", map[string]string{"name": "x", "fleet_id": "flt-nope"}, 400, "flt-nope"},
		{"fleet of another workspace", "POST", ws + "/devices", map[string]string{"name": "x", "fleet_id": otherFleet}, 400, "another workspace"},
		{"update blank name", "PUT", ws + "/devices/" + d.ID, map[string]string{"name": " "}, 400, `"name"`},
		{"update foreign fleet", "PUT", ws + "/devices/" + d.ID, map[string]string{"name": "y", "fleet_id": otherFleet}, 400, otherFleet},
		{"update unknown device", "PUT", ws + "/devices/dev-nope", map[string]string{"name": "y"}, 404, "dev-nope"},
		{"job value not object", "POST", "/devices/" + d.ID + "/jobs/j", `{"value":[1]}`, 400, `"value" must be a JSON object`},
		{"job value string", "POST", "/devices/" + d.ID + "/jobs/j", `{"value":"x"}`, 400, `"value"`},
		{"job unknown device", "POST", "/devices/dev-nope/jobs/j", nil, 404, "dev-nope"},
		{"jobs bad status", "GET", "/devices/" + d.ID + "/jobs?status=running", nil, 400, `"status"`},
		{"jobs empty status", "GET", "/devices/" + d.ID + "/jobs?status=", nil, 400, `"status"`},
		{"jobs repeated status", "GET", "/devices/" + d.ID + "/jobs?status=done&status=pending", nil, 400, "at most once"},
		{"fleet job foreign fleet", "POST", "/workspace/" + e.b.WorkspaceID + "/jobs/j?fleet=" + otherFleet, nil, 400, "another workspace"},
		{"fleet FOTA unknown fleet", "POST", ws + "/fota/f/versions/1?fleet=flt-x", nil, 400, "flt-x"},
		{"FOTA unknown device", "GET", "/devices/dev-x/fota", nil, 404, "dev-x"},
		{"long job name", "POST", "/devices/" + d.ID + "/jobs/" + long, nil, 400, "job name"},
		{"long firmware", "POST", "/devices/" + d.ID + "/fota/" + long + "/versions/1", nil, 400, "firmware_id"},
		{"long version", "POST", ws + "/fota/f/versions/" + long, nil, 400, "firmware_version"},
		{"too large", "POST", ws + "/fleets", `{"name":"` + strings.Repeat("a", 1<<20) + `"}`, 413, "larger than"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := *e
			e.t = t
			e.fails(e.api(tc.method, tc.path, tc.body), tc.status, tc.want)
		})
	}
	// Nothing was half-applied.
	var devs struct{ Devices []device }
	e.ok(e.api(http.MethodGet, ws+"/devices", nil), &devs)
	if len(devs.Devices) != 1 || devs.Devices[0].Name != "d" || devs.Devices[0].FleetName != "default" {
		t.Fatalf("devices after bad requests = %+v", devs.Devices)
	}
	var fl struct{ Fleets []fleet }
	e.ok(e.api(http.MethodGet, ws+"/fleets", nil), &fl)
	if len(fl.Fleets) != 1 {
		t.Fatalf("fleets after bad requests = %+v", fl.Fleets)
	}
	var jobs struct{ Jobs []job }
	e.ok(e.api(http.MethodGet, "/devices/"+d.ID+"/jobs", nil), &jobs)
	if len(jobs.Jobs) != 0 {
		t.Fatalf("jobs after bad requests = %+v", jobs.Jobs)
	}
	var wss struct{ Workspaces []workspace }
	e.ok(e.api(http.MethodGet, "/workspaces", nil), &wss)
	if len(wss.Workspaces) != 2 {
		t.Fatalf("workspaces after bad requests = %+v", wss.Workspaces)
	}
}

func TestRouting(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ws := e.b.WorkspaceID
	cases := []struct {
		name, base, method, path string
		status                   int
		allow                    string
	}{
		{"unknown route", e.s.BaseURL(), "GET", "/v3/nope", 404, ""},
		{"no version", e.s.BaseURL(), "GET", "/workspaces", 404, ""},
		{"trailing slash", e.s.BaseURL(), "GET", "/v3/workspaces/", 404, ""},
		{"empty segment", e.s.BaseURL(), "GET", "/v3/workspaces//fleets", 404, ""},
		{"storage on management", e.s.BaseURL(), "GET", "/v3/timeseries/" + ws + "/data", 404, ""},
		{"management on storage", e.s.StorageURL(), "GET", "/v3/workspaces", 404, ""},
		{"admin on storage", e.s.StorageURL(), "GET", "/admin/counters", 404, ""},
		{"delete workspace", e.s.BaseURL(), "DELETE", "/v3/workspaces/" + ws, 405, "GET"},
		{"put workspaces", e.s.BaseURL(), "PUT", "/v3/workspaces", 405, "GET, POST"},
		{"delete device", e.s.BaseURL(), "DELETE", "/v3/workspaces/" + ws + "/devices/d", 405, "GET, PUT"},
		{"get fleet job", e.s.BaseURL(), "GET", "/v3/workspace/" + ws + "/jobs/j", 405, "POST"},
		{"post data", e.s.StorageURL(), "POST", "/v3/timeseries/" + ws + "/data", 405, "GET"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := *e
			e.t = t
			r := e.do(tc.method, tc.base+tc.path, e.b.APIKey, nil)
			e.fails(r, tc.status, "")
			if got := r.header.Get("Allow"); got != tc.allow {
				t.Fatalf("Allow = %q, want %q", got, tc.allow)
			}
		})
	}
	// Unknown routes answer 404 even without a key.
	e.fails(e.do(http.MethodGet, e.s.BaseURL()+"/v3/nope", "", nil), http.StatusNotFound, "no route")
	// Every success is JSON.
	r := e.api(http.MethodGet, "/workspaces", nil)
	if ct := r.header.Get("Content-Type"); ct != "application/json" || !json.Valid(r.body) {
		t.Fatalf("Content-Type %q, body %s", ct, r.body)
	}
}
