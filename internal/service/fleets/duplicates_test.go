package fleets

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// The refusal of a second fleet or workspace of one name (see
// objects.DuplicateNames), with the real CLI against zdm-local.

// fleetIDsNamed returns the IDs of the fleets named name in the test's
// workspace, as the service holds them.
func fleetIDsNamed(t *testing.T, e *acctest.Env, name string) []string {
	t.Helper()
	all, err := acctest.APIClient(t, e).ListFleets(context.Background(), e.Bootstrap.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range all {
		if f.Name == name {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// workspaceIDsNamed returns the IDs of the workspaces named name in the
// test's account.
func workspaceIDsNamed(t *testing.T, e *acctest.Env, name string) []string {
	t.Helper()
	all, err := acctest.APIClient(t, e).ListWorkspaces(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, w := range all {
		if w.Name == name {
			ids = append(ids, w.ID)
		}
	}
	return ids
}

// flat joins the words of a CLI output with single spaces (the CLI wraps
// diagnostics).
func flat(out string) string { return strings.Join(strings.Fields(out), " ") }

// expectRefused fails t unless the command failed with the refusal of a
// second kind object named name, naming the existing one (id) and every
// way out.
func expectRefused(t *testing.T, c *acctest.Cli, kind, id string, args ...string) {
	t.Helper()
	out, code := c.Run(args...)
	text := flat(out)
	if code == 0 || !strings.Contains(text, "A "+kind+" with this name already exists") {
		t.Fatalf("terraform %s: exit code %d, want the refusal of a second %s:\n%s", strings.Join(args, " "), code, kind, out)
	}
	for _, want := range []string{"(" + id + ")", "terraform untaint", "-replace", "moved block", "import it",
		"allow_duplicate_names = true", "Nothing was sent"} {
		if !strings.Contains(text, want) {
			t.Errorf("terraform %s: the refusal does not say %q:\n%s", strings.Join(args, " "), want, text)
		}
	}
}

// TestAccFleetReplacementRefused: a change of description, -replace and
// taint each plan the replacement of a fleet, which would leave a second
// fleet of the same name; each is refused at plan, and an apply of a name
// unknown at plan is refused in the final plan. A plan that creates nothing
// sends no request (a replacement plan, the positive control, lists the
// fleets), and destroy still works.
func TestAccFleetReplacementRefused(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	config := func(desc, more string) string {
		return acctest.RequiredProviders + e.ProviderConfig() + fmt.Sprintf(`
resource "zdm_fleet" "east" {
  name        = "east"
  description = %q
}
data "zdm_fleet" "east" {
  name       = "east"
  depends_on = [zdm_fleet.east]
}
data "zdm_fleets" "all" {
  depends_on = [zdm_fleet.east]
}
output "fleets" {
  value = { for f in data.zdm_fleets.all.fleets : f.name => f.id }
}
%s`, desc, more)
	}
	// First the fleet alone, so that no data source reads in the plans
	// whose requests are counted.
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig()+`
resource "zdm_fleet" "east" {
  name        = "east"
  description = "one"
}
`)
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")
	ids := fleetIDsNamed(t, e, "east")
	if len(ids) != 1 {
		t.Fatalf("fleets named east after the create: %v, want 1", ids)
	}
	id := ids[0]

	// A plan that creates nothing sends no request for the check: without
	// refresh, none at all.
	e.Server.ResetCounters()
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode", "-refresh=false"); code != 0 {
		t.Fatalf("no-op plan: exit code %d:\n%s", code, out)
	}
	if got := e.Server.TotalRequests(); got != 0 {
		t.Errorf("no-op plan without refresh: %d API requests, want 0: %v", got, e.Server.Counters())
	}
	// The positive control: the plan of a replacement lists the fleets.
	e.Server.ResetCounters()
	expectRefused(t, c, "fleet", id, "plan", "-no-color", "-refresh=false", "-replace=zdm_fleet.east")
	if got := e.Server.Counters()[acctest.RouteListFleets]; got == 0 {
		t.Errorf("replacement plan without refresh: no list of fleets: %v", e.Server.Counters())
	}

	c.Write("main.tf", config("one", ""))
	c.MustRun("apply", "-no-color", "-auto-approve")
	// The change of the issue: a new description replaces the fleet.
	c.Write("main.tf", config("two", ""))
	expectRefused(t, c, "fleet", id, "plan", "-no-color")
	expectRefused(t, c, "fleet", id, "apply", "-no-color", "-auto-approve")

	c.Write("main.tf", config("one", ""))
	c.MustRun("taint", "-no-color", "zdm_fleet.east")
	expectRefused(t, c, "fleet", id, "plan", "-no-color")
	c.MustRun("untaint", "-no-color", "zdm_fleet.east")
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after untaint: exit code %d, want an empty plan:\n%s", code, out)
	}

	// A name unknown at plan is checked in Terraform's final plan at apply.
	c.Write("main.tf", config("one", `
resource "terraform_data" "name" {
  input = "east"
}
resource "zdm_fleet" "second" {
  name = terraform_data.name.output
}
`))
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 2 {
		t.Fatalf("plan of a fleet whose name is unknown: exit code %d, want 2 (changes):\n%s", code, out)
	}
	expectRefused(t, c, "fleet", id, "apply", "-no-color", "-auto-approve")

	if got := fleetIDsNamed(t, e, "east"); len(got) != 1 {
		t.Errorf("fleets named east after the refusals: %v, want only %s", got, id)
	}
	c.Write("main.tf", config("one", ""))
	c.MustRun("destroy", "-no-color", "-auto-approve")
	if out := strings.TrimSpace(c.MustRun("state", "list")); out != "" {
		t.Errorf("state after destroy: %q, want empty", out)
	}
}

// TestAccWorkspaceReplacementRefused: the replacement of a workspace (a new
// description, -replace) would leave a second workspace of the same name in
// the account; it is refused at plan, and destroy still works.
func TestAccWorkspaceReplacementRefused(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	config := func(desc string) string {
		return acctest.RequiredProviders + e.ProviderConfig() + fmt.Sprintf(`
resource "zdm_workspace" "lab" {
  name        = "lab"
  description = %q
}
data "zdm_workspace" "lab" {
  name       = "lab"
  depends_on = [zdm_workspace.lab]
}
`, desc)
	}
	c.Write("main.tf", config("one"))
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")
	ids := workspaceIDsNamed(t, e, "lab")
	if len(ids) != 1 {
		t.Fatalf("workspaces named lab after the create: %v, want 1", ids)
	}
	c.Write("main.tf", config("two"))
	expectRefused(t, c, "workspace", ids[0], "plan", "-no-color")
	expectRefused(t, c, "workspace", ids[0], "apply", "-no-color", "-auto-approve")
	c.Write("main.tf", config("one"))
	expectRefused(t, c, "workspace", ids[0], "plan", "-no-color", "-replace=zdm_workspace.lab")
	if got := workspaceIDsNamed(t, e, "lab"); len(got) != 1 {
		t.Errorf("workspaces named lab after the refusals: %v, want only %s", got, ids[0])
	}
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan of the unchanged configuration: exit code %d, want an empty plan:\n%s", code, out)
	}
	c.MustRun("destroy", "-no-color", "-auto-approve")
	if out := strings.TrimSpace(c.MustRun("state", "list")); out != "" {
		t.Errorf("state after destroy: %q, want empty", out)
	}
}

// TestAccDuplicateNamesOptIn: allow_duplicate_names lets a replacement make
// a second fleet and a second workspace of one name (which also shows that
// the counts of the refusal tests would see a second copy); a lookup by
// that name then fails with the IDs and how to pick one, a map grouped by
// name does not fail, a change of the opt-in alone replaces nothing, and
// destroy still works.
func TestAccDuplicateNamesOptIn(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	config := func(desc, allow, more string) string {
		return acctest.RequiredProviders + e.ProviderConfig() + fmt.Sprintf(`
resource "zdm_fleet" "east" {
  name                  = "east"
  description           = %[1]q
  allow_duplicate_names = %[2]s
}
resource "zdm_workspace" "lab" {
  name                  = "lab"
  description           = %[1]q
  allow_duplicate_names = %[2]s
}
data "zdm_fleets" "all" {
  depends_on = [zdm_fleet.east]
}
output "fleets" {
  value = { for f in data.zdm_fleets.all.fleets : f.name => f.id... }
}
%[3]s`, desc, allow, more)
	}
	c.Write("main.tf", config("one", "true", ""))
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")
	c.Write("main.tf", config("two", "true", ""))
	c.MustRun("apply", "-no-color", "-auto-approve")
	fleets, workspaces := fleetIDsNamed(t, e, "east"), workspaceIDsNamed(t, e, "lab")
	if len(fleets) != 2 || len(workspaces) != 2 {
		t.Fatalf("after the replacement with allow_duplicate_names: fleets named east %v, workspaces named lab %v; want 2 each",
			fleets, workspaces)
	}
	var out map[string][]string
	if err := json.Unmarshal([]byte(c.MustRun("output", "-json", "fleets")), &out); err != nil || len(out["east"]) != 2 {
		t.Errorf("output fleets = %v (%v), want two IDs for east", out, err)
	}

	// A change of the opt-in alone is an update of the state only.
	c.Write("main.tf", config("two", "null", ""))
	if plan := flat(c.MustRun("plan", "-no-color")); !strings.Contains(plan, "0 to add, 2 to change, 0 to destroy") {
		t.Errorf("plan dropping allow_duplicate_names: want 2 updates in place:\n%s", plan)
	}

	// A lookup by the name meets two objects: one error naming both IDs.
	for _, lookup := range []struct{ kind, block string }{
		{"fleet", `data "zdm_fleet" "east" { name = "east" }`},
		{"workspace", `data "zdm_workspace" "lab" { name = "lab" }`},
	} {
		c.Write("main.tf", config("two", "true", lookup.block))
		out, code := c.Run("plan", "-no-color")
		text := flat(out)
		ids := fleets
		if lookup.kind == "workspace" {
			ids = workspaces
		}
		if code == 0 || !strings.Contains(text, "Several "+lookup.kind+"s found") || !strings.Contains(text, "set id = ") ||
			!strings.Contains(text, ids[0]) || !strings.Contains(text, ids[1]) || strings.Contains(text, "Duplicate object key") {
			t.Errorf("lookup of a %s by a name held twice: exit code %d, want one error naming %v and how to pick one:\n%s",
				lookup.kind, code, ids, out)
		}
	}

	c.Write("main.tf", config("two", "true", ""))
	c.MustRun("destroy", "-no-color", "-auto-approve")
	if out := strings.TrimSpace(c.MustRun("state", "list")); out != "" {
		t.Errorf("state after destroy: %q, want empty", out)
	}
}

// TestAccFleetCheckListRefused: a fleet list answered with 403 (a key that
// may create but not list, a proxy) fails the plan of a replacement of a
// zdm_fleet, which before created a second fleet of the name; the message
// says what could not be read and how to get it. With the list back the
// same replacement is refused by the name (the fleet is there to find).
func TestAccFleetCheckListRefused(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig()+`
resource "zdm_fleet" "west" {
  name = "west"
}
`)
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")
	if _, err := e.Server.AddRequestFault(localzdm.RequestFault{Method: http.MethodGet,
		Path: "/v3/workspaces/{workspace_id}/fleets", Action: localzdm.FaultHTMLError, Status: http.StatusForbidden}); err != nil {
		t.Fatal(err)
	}
	e.Server.ResetCounters()
	out, code := c.Run("apply", "-no-color", "-auto-approve", "-refresh=false", "-replace=zdm_fleet.west")
	if code == 0 || !acctest.ErrorPattern("Cannot check for fleets with the same names", "Listing the fleets of workspace",
		"403 Forbidden", "Nothing was sent.", "Give the API key the permission to list", "allow_duplicate_names = true").MatchString(out) {
		t.Errorf("-replace with the fleet list answered 403: exit code %d, want the refusal:\n%s", code, out)
	}
	if n := e.Server.Counters()["POST /v3/workspaces/{workspace_id}/fleets"]; n != 0 {
		t.Errorf("-replace with the fleet list answered 403 sent %d fleet creates, want 0", n)
	}
	e.Server.ClearRequestFaults()
	if ids := fleetIDsNamed(t, e, "west"); len(ids) != 1 {
		t.Errorf("fleets named west: %v, want 1", ids)
	}
	expectRefused(t, c, "fleet", fleetIDsNamed(t, e, "west")[0], "apply", "-no-color", "-auto-approve", "-refresh=false",
		"-replace=zdm_fleet.west")
}
