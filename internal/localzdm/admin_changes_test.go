package localzdm_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// TestAdminChangesOutsideTerraform covers the admin changes that simulate
// changes made outside Terraform: a purged job or FOTA record, a renamed
// fleet, a device moved to another fleet.
func TestAdminChangesOutsideTerraform(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f1, f2 := e.createFleet("one"), e.createFleet("two")
	d := e.createDevice("d", f1.ID)
	jobs := "/devices/" + d.ID + "/jobs/"
	for _, n := range []string{"a", "b"} {
		e.ok(e.api(http.MethodPost, jobs+n, nil), nil)
	}
	fotaPath := "/devices/" + d.ID + "/fota"

	// Purge a job: Go, then HTTP. The other job and the device stay.
	if err := e.s.PurgeJob(d.ID, "a"); err != nil {
		t.Fatal(err)
	}
	e.fails(e.api(http.MethodGet, jobs+"a", nil), http.StatusNotFound, `job "a"`)
	e.ok(e.admin(http.MethodDelete, "/devices/"+d.ID+"/jobs/b", nil), nil)
	e.fails(e.api(http.MethodGet, jobs+"b", nil), http.StatusNotFound, `job "b"`)
	e.ok(e.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/devices/"+d.ID, nil), nil)
	e.fails(e.admin(http.MethodDelete, "/devices/"+d.ID+"/jobs/b", nil), http.StatusNotFound, `job "b"`)
	e.fails(e.admin(http.MethodDelete, "/devices/dev-nope/jobs/b", nil), http.StatusNotFound, "dev-nope")

	// Purge a FOTA record: Go, then HTTP.
	for _, viaHTTP := range []bool{false, true} {
		e.ok(e.api(http.MethodPost, fotaPath+"/fw/versions/1", nil), nil)
		e.ok(e.api(http.MethodGet, fotaPath, nil), nil)
		if viaHTTP {
			e.ok(e.admin(http.MethodDelete, fotaPath, nil), nil)
		} else if err := e.s.PurgeFOTA(d.ID); err != nil {
			t.Fatal(err)
		}
		e.fails(e.api(http.MethodGet, fotaPath, nil), http.StatusNotFound, "no FOTA")
	}
	e.fails(e.admin(http.MethodDelete, fotaPath, nil), http.StatusNotFound, "no FOTA")

	// Rename a fleet: the fleet and its devices' fleet_name follow.
	if err := e.s.RenameFleet(f1.ID, "uno"); err != nil {
		t.Fatal(err)
	}
	var dev struct{ Device device }
	e.ok(e.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/devices/"+d.ID, nil), &dev)
	if dev.Device.FleetName != "uno" {
		t.Fatalf("fleet_name = %q after RenameFleet", dev.Device.FleetName)
	}
	e.ok(e.admin(http.MethodPut, "/fleets/"+f1.ID+"/name", map[string]string{"name": "eins"}), nil)
	var fl struct{ Fleet fleet }
	e.ok(e.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/fleets/"+f1.ID, nil), &fl)
	if fl.Fleet.Name != "eins" {
		t.Fatalf("fleet name = %q after the admin rename", fl.Fleet.Name)
	}
	e.fails(e.admin(http.MethodPut, "/fleets/"+f1.ID+"/name", map[string]string{"name": " "}), http.StatusBadRequest, `"name"`)
	e.fails(e.admin(http.MethodPut, "/fleets/flt-nope/name", map[string]string{"name": "x"}), http.StatusNotFound, "flt-nope")

	// Move a device to another fleet: Go, then HTTP.
	if err := e.s.MoveDevice(d.ID, f2.ID); err != nil {
		t.Fatal(err)
	}
	e.ok(e.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/devices/"+d.ID, nil), &dev)
	if dev.Device.FleetID != f2.ID || dev.Device.FleetName != "two" {
		t.Fatalf("device after MoveDevice = %+v", dev.Device)
	}
	e.ok(e.admin(http.MethodPut, "/devices/"+d.ID+"/fleet", map[string]string{"fleet_id": f1.ID}), nil)
	e.ok(e.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/devices/"+d.ID, nil), &dev)
	if dev.Device.FleetID != f1.ID {
		t.Fatalf("device after the admin move = %+v", dev.Device)
	}
	e.fails(e.admin(http.MethodPut, "/devices/"+d.ID+"/fleet", map[string]string{}), http.StatusBadRequest, `"fleet_id" is required`)
	e.fails(e.admin(http.MethodPut, "/devices/"+d.ID+"/fleet", map[string]string{"fleet_id": "flt-nope"}), http.StatusNotFound, "flt-nope")
	other, err := e.s.Bootstrap("other")
	if err != nil {
		t.Fatal(err)
	}
	var ws struct{ Fleets []fleet }
	e.ok(e.do(http.MethodGet, e.s.BaseURL()+"/v3/workspaces/"+other.WorkspaceID+"/fleets", other.APIKey, nil), &ws)
	e.fails(e.admin(http.MethodPut, "/devices/"+d.ID+"/fleet", map[string]string{"fleet_id": ws.Fleets[0].ID}), http.StatusConflict, "is in workspace")
	if err := e.s.MoveDevice("dev-nope", f1.ID); err == nil {
		t.Fatal("MoveDevice of an unknown device succeeded")
	}
	if err := e.s.RenameFleet(f1.ID, ""); err == nil {
		t.Fatal("RenameFleet to an empty name succeeded")
	}
}

func TestAdminRevokeKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	keys := make([]string, 2)
	for i := range keys {
		var out struct {
			APIKey string `json:"api_key"`
		}
		e.ok(e.admin(http.MethodPost, "/workspaces/"+e.b.WorkspaceID+"/keys", nil), &out)
		keys[i] = out.APIKey
	}
	workspaces := e.s.BaseURL() + "/v3/workspaces"
	if err := e.s.RevokeKey(keys[0]); err != nil {
		t.Fatal(err)
	}
	e.ok(e.admin(http.MethodPost, "/keys/revoke", map[string]string{"api_key": keys[1]}), nil)
	for _, k := range keys {
		e.fails(e.do(http.MethodGet, workspaces, k, nil), http.StatusUnauthorized, "invalid API key")
	}
	// The bootstrap key still works; unknown keys are not echoed.
	e.ok(e.do(http.MethodGet, workspaces, e.b.APIKey, nil), nil)
	ae := e.fails(e.admin(http.MethodPost, "/keys/revoke", map[string]string{"api_key": keys[0]}), http.StatusNotFound, "no such API key")
	if strings.Contains(ae.Error.Message, keys[0]) {
		t.Fatalf("message %q repeats the key", ae.Error.Message)
	}
	e.fails(e.admin(http.MethodPost, "/keys/revoke", map[string]string{}), http.StatusBadRequest, `"api_key" is required`)
}

// TestAdminChangesPersist checks that the changes made as if outside
// Terraform survive a restart on a state file.
func TestAdminChangesPersist(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/state.json"
	s1, err := localzdm.New(localzdm.Options{StateFile: path})
	if err != nil {
		t.Fatal(err)
	}
	if err := s1.Start("127.0.0.1:0", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	e := attachEnv(t, s1)
	f := e.createFleet("f")
	d := e.createDevice("d", "")
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/j", nil), nil)
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/fota/fw/versions/1", nil), nil)
	key, err := s1.CreateKey(e.b.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		s1.PurgeJob(d.ID, "j"), s1.PurgeFOTA(d.ID), s1.RenameFleet(f.ID, "renamed"), s1.MoveDevice(d.ID, f.ID), s1.RevokeKey(key),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := localzdm.StartTestWithOptions(t, localzdm.Options{StateFile: path})
	e2 := &env{t: t, s: s2, b: e.b, hc: e.hc}
	e2.fails(e2.api(http.MethodGet, "/devices/"+d.ID+"/jobs/j", nil), http.StatusNotFound, `job "j"`)
	e2.fails(e2.api(http.MethodGet, "/devices/"+d.ID+"/fota", nil), http.StatusNotFound, "no FOTA")
	var dev struct{ Device device }
	e2.ok(e2.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/devices/"+d.ID, nil), &dev)
	if dev.Device.FleetID != f.ID || dev.Device.FleetName != "renamed" {
		t.Fatalf("device after restart = %+v", dev.Device)
	}
	e2.fails(e2.do(http.MethodGet, s2.BaseURL()+"/v3/workspaces", key, nil), http.StatusUnauthorized, "invalid API key")
}
