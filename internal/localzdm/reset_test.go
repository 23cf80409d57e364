package localzdm_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// TestResetKeepsBootstrap: POST /admin/reset keeps the bootstrap of
// EnsureBootstrap (the key and workspace zdm-local writes to -env-file),
// empty, and deletes everything else, in memory and in the state file.
func TestResetKeepsBootstrap(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "state.json")
	s := localzdm.StartTestWithOptions(t, localzdm.Options{StateFile: file})
	other := attachEnv(t, s) // a second account, workspace and key
	boot, err := s.EnsureBootstrap(localzdm.Bootstrap{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetStorage(boot.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, s: s, b: boot, hc: other.hc}
	d := e.createDevice("d", "")
	devicesPath := "/workspaces/" + boot.WorkspaceID + "/devices"
	if got := e.api(http.MethodGet, devicesPath, nil).String(); !strings.Contains(got, d.ID) {
		t.Fatalf("before reset the device list should hold %s: %s", d.ID, got) // positive control
	}
	other.ok(other.api(http.MethodGet, "/workspaces", nil), nil)

	e.ok(e.admin(http.MethodPost, "/reset", nil), nil)

	check := func(e, other *env) {
		t.Helper()
		if got := e.api(http.MethodGet, "/workspaces", nil).String(); !strings.Contains(got, boot.WorkspaceID) {
			t.Fatalf("bootstrap key should still list workspace %s: %s", boot.WorkspaceID, got)
		}
		e.ok(e.storage("/timeseries/"+boot.WorkspaceID+"/data?size=1"), nil) // storage stays enabled
		if got := e.api(http.MethodGet, devicesPath, nil).String(); strings.Contains(got, d.ID) {
			t.Fatalf("device %s survived the reset: %s", d.ID, got)
		}
		other.fails(other.api(http.MethodGet, "/workspaces", nil), http.StatusUnauthorized, "API key")
		if _, err := e.s.CreateKey(other.b.WorkspaceID); err == nil {
			t.Fatalf("workspace %s survived the reset", other.b.WorkspaceID)
		}
	}
	check(e, other)

	// The state file holds the same: a restarted server keeps the key and
	// EnsureBootstrap hands back the same bootstrap.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := localzdm.StartTestWithOptions(t, localzdm.Options{StateFile: file})
	e2 := &env{t: t, s: s2, b: boot, hc: other.hc}
	other2 := &env{t: t, s: s2, b: other.b, hc: other.hc}
	check(e2, other2)
	again, err := s2.EnsureBootstrap(localzdm.Bootstrap{})
	if err != nil {
		t.Fatal(err)
	}
	if again != boot {
		t.Fatalf("EnsureBootstrap after reset and restart = %+v, want %+v", again, boot)
	}
}
