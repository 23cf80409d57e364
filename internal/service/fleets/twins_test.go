package fleets

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccFleetTwinMadeDuringTheApply: a fleet of the name is created
// elsewhere after the apply's final plan and before its create (the front
// makes it as the create arrives). The apply fails naming both IDs, keeps
// its fleet in the state, and after terraform untaint every plan warns of
// the twin.
func TestAccFleetTwinMadeDuringTheApply(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	c := acctest.NewCLI(t)
	c.Write("main.tf", acctest.RequiredProviders+fe.Config("", `
resource "zdm_fleet" "f" {
  name = "twin"
}
data "zdm_fleets" "all" {}
`))
	c.MustRun("init", "-input=false", "-no-color")
	var other string
	var once sync.Once
	override := func(_ http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/fleets") {
			once.Do(func() {
				f, err := acctest.APIClient(t, fe.Env).CreateFleet(t.Context(), fe.Bootstrap.WorkspaceID, "twin", "elsewhere")
				if err != nil {
					t.Error(err)
					return
				}
				other = f.ID
			})
		}
		return false
	}
	fe.Override.Store(&override)
	out, code := c.Run("apply", "-auto-approve", "-input=false", "-no-color")
	fe.Override.Store(nil)
	ids := fleetIDsNamed(t, fe.Env, "twin")
	if other == "" || len(ids) != 2 {
		t.Fatalf("fleets named twin: %v (made %q), want 2 (the control: the twin was made):\n%s", ids, other, out)
	}
	ours, _ := c.StateValues()["zdm_fleet.f"]["id"].(string)
	if ours == "" || ours == other {
		t.Fatalf("the state holds %q, want the fleet of the apply (not %s)", ours, other)
	}
	if code != 1 || !acctest.ErrorPattern("A second fleet of the same name was created at the same time",
		`"twin": `+ours+" (this resource's) and "+other, "terraform untaint").MatchString(out) {
		t.Fatalf("apply: exit %d, want 1 naming %s and %s:\n%s", code, ours, other, out)
	}
	c.MustRun("untaint", "zdm_fleet.f")
	out, code = c.Run("plan", "-detailed-exitcode", "-input=false", "-no-color")
	if code != 0 || !acctest.ErrorPattern("Other fleets have the names of this resource's fleets",
		`"twin": `+ours+" (this resource's) and "+other).MatchString(out) {
		t.Errorf("plan after untaint: exit %d, want 0 with a warning naming both:\n%s", code, out)
	}
}
