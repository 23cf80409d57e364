package fleets_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccSafetyNewWorkspacePlanWarning: a configuration that creates a
// workspace and a fleet in it, with the key of another workspace, gets a
// plan-time warning naming the rule and the fix, before anything permanent
// is created (the plan sends no create).
func TestAccSafetyNewWorkspacePlanWarning(t *testing.T) {
	s := &acctest.SafetyEnv{FrontEnv: acctest.NewFrontEnv(t)}
	s.Cli = acctest.NewCLI(t)
	s.Write(s.Right(), `
resource "zdm_workspace" "staging" {
  name = "staging"
}
resource "zdm_fleet" "sensors" {
  workspace_id = zdm_workspace.staging.id
  name         = "sensors"
}
`)
	s.Cli.MustRun("init", "-input=false", "-no-color")
	s.Server.ResetCounters()
	out, code := s.Cli.Run("plan", "-detailed-exitcode", "-input=false", "-no-color")
	if code != 2 {
		t.Fatalf("plan: exit %d, want 2:\n%s", code, out)
	}
	for _, frag := range []string{"Warning: An API key is bound to one workspace", "not known until apply",
		"provider alias", "Workspaces, API keys and provider aliases", "2 to add"} {
		if !acctest.ErrorPattern(frag).MatchString(out) {
			t.Errorf("plan output does not hold %q:\n%s", frag, out)
		}
	}
	if got := s.Creates(); got != 0 {
		t.Errorf("the plan sent %d creates", got)
	}
	// Control: the same fleet in the provider's own workspace plans
	// without the warning.
	s.Write(s.Right(), fmt.Sprintf(`
resource "zdm_fleet" "sensors" {
  workspace_id = %q
  name         = "sensors"
}
`, s.Bootstrap.WorkspaceID))
	out, code = s.Cli.Run("plan", "-detailed-exitcode", "-input=false", "-no-color")
	if code != 2 || strings.Contains(out, "bound to one workspace") {
		t.Errorf("plan in the provider's workspace: exit %d, want 2 without the warning:\n%s", code, out)
	}
}
