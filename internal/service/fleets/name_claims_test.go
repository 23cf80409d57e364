package fleets

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccFleetsNamedTwiceInOneConfiguration: two zdm_fleet of one name in
// one workspace, and two zdm_workspace of one name (told apart by their
// descriptions), fail the plan naming both, before any create. The positive control: allow_duplicate_names on
// both makes both.
func TestAccFleetsNamedTwiceInOneConfiguration(t *testing.T) {
	for _, kind := range []string{"fleet", "workspace"} {
		t.Run(kind, func(t *testing.T) {
			e := acctest.NewEnv(t)
			body := func(optIn string) string {
				return fmt.Sprintf(`
resource "zdm_%[1]s" "a" {
  name = "twin"
  %[2]s
}
resource "zdm_%[1]s" "b" {
  name        = "twin"
  description = "the second"
  %[2]s
}
`, kind, optIn)
			}
			named := func() []string {
				if kind == "fleet" {
					return fleetIDsNamed(t, e, "twin")
				}
				return workspaceIDsNamed(t, e, "twin")
			}
			c := acctest.NewCLI(t)
			c.Write("main.tf", acctest.RequiredProviders+e.Config(body("")))
			c.MustRun("init", "-input=false", "-no-color")
			e.Server.ResetCounters()
			out, code := c.Run("apply", "-auto-approve", "-input=false", "-no-color")
			if code != 1 || !acctest.ErrorPattern("Two resources of this configuration create a "+kind+" of one name",
				fmt.Sprintf(`"twin": zdm_%s "twin"`, kind), fmt.Sprintf(`and zdm_%s "twin"`, kind)).MatchString(out) ||
				!strings.Contains(strings.Join(strings.Fields(out), " "), `(description "the second")`) {
				t.Fatalf("apply: exit %d, want 1 naming both resources:\n%s", code, out)
			}
			for k, n := range e.Server.Counters() {
				if k[:5] == "POST " && n > 0 {
					t.Errorf("%d requests %s, want none", n, k)
				}
			}
			if ids := named(); len(ids) != 0 {
				t.Errorf("%ss named twin: %v, want none", kind, ids)
			}

			c.Write("main.tf", acctest.RequiredProviders+e.Config(body("allow_duplicate_names = true")))
			c.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
			if ids := named(); len(ids) != 2 {
				t.Errorf("%ss named twin after the opt-in: %v, want 2", kind, ids)
			}
		})
	}
}
