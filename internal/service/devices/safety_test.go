package devices_test

import (
	"fmt"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccSafetyMovedToOtherAlias: a device moved to a provider alias whose
// key belongs to another workspace. The plan fails with a message that says
// what happened and how to move it, and the state keeps the device. The
// documented move to the other workspace (its workspace_id and the alias,
// with -refresh=false) then creates a new device there and only forgets the
// old one.
func TestAccSafetyMovedToOtherAlias(t *testing.T) {
	s := acctest.NewSafetyEnv(t, `
resource "zdm_device" "gw" {
  name = "gateway"
}
`, nil)
	other := acctest.OtherWorkspace(t, s)
	alias := fmt.Sprintf(`
provider "zdm" {
  alias        = "other"
  base_url     = %q
  api_key      = %q
  workspace_id = %q
}
`, s.URL, other.APIKey, other.WorkspaceID)
	s.Write(s.Right()+alias, `
resource "zdm_device" "gw" {
  provider = zdm.other
  name     = "gateway"
}
`)
	s.Server.ResetCounters()
	out, code := s.Cli.Run("plan", "-input=false", "-no-color")
	if code != 1 {
		t.Fatalf("plan after the move to the alias: exit %d, want 1:\n%s", code, out)
	}
	for _, frag := range []string{"403 Forbidden", "An API key is bound to one workspace",
		"moved to another provider configuration", "Workspaces, API keys and provider aliases"} {
		if !acctest.ErrorPattern(frag).MatchString(out) {
			t.Errorf("plan output does not hold %q:\n%s", frag, out)
		}
	}
	if ids := s.StateIDs(t); ids["zdm_device.gw"] != s.IDs["zdm_device.gw"] {
		t.Errorf("the state changed: %v, want %v", ids, s.IDs)
	}

	// The documented move to the other workspace.
	s.Write(s.Right()+alias, fmt.Sprintf(`
resource "zdm_device" "gw" {
  provider     = zdm.other
  workspace_id = %q
  name         = "gateway"
}
`, other.WorkspaceID))
	out = s.Cli.MustRun("apply", "-refresh=false", "-auto-approve", "-input=false", "-no-color")
	if !acctest.ErrorPattern("1 added, 0 changed, 1 destroyed").MatchString(out) {
		t.Errorf("the move did not replace the device:\n%s", out)
	}
	if got := s.Creates(); got != 1 {
		t.Errorf("%d creates, want 1 (the new device in the other workspace)", got)
	}
	old, err := acctest.APIClient(t, s.Env).GetDevice(t.Context(), s.Bootstrap.WorkspaceID, s.IDs["zdm_device.gw"])
	if err != nil || old.Name != "gateway" {
		t.Errorf("the old device: %+v, %v; want it kept in the service", old, err)
	}
	if out, code := s.Cli.Run("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Errorf("plan after the move: exit %d, want 0:\n%s", code, out)
	}
}
