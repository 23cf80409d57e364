// Several families: terraform query adopts a workspace's fleets (fleets) and devices (devices) in one generated configuration.

package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccQueryGenerateConfig adopts a workspace whose fleets and devices
// were created outside Terraform, end to end with the real CLI: terraform
// query -generate-config-out writes resource and import blocks, apply imports
// every object, and the plan that follows is empty.
func TestAccQueryGenerateConfig(t *testing.T) {
	e := acctest.NewEnv(t)
	c := acctest.NewCLI(t)
	c.SkipWithoutQuery()
	ws := e.Bootstrap.WorkspaceID
	east, err := acctest.APIClient(t, e).CreateFleet(t.Context(), ws, "east", "eastern sites")
	if err != nil {
		t.Fatal(err)
	}
	acctest.CreateDevices(t, e, east.ID, "east", 12)
	acctest.CreateDevices(t, e, "", "spare", 8)
	// A name that is valid JSON and one with characters HCL must escape:
	// generation must keep both as they are.
	if _, err := e.Server.CreateDevices(ws, east.ID, []string{"42", "sensor \"quoted\" ${not_interpolated}"}); err != nil {
		t.Fatal(err)
	}
	const devices, fleets, workspaces = 22, 2, 1

	c.Write("main.tf", acctest.RequiredProviders+e.ProviderConfig())
	c.Write("adopt.tfquery.hcl", `
list "zdm_workspace" "all" {
  provider = zdm
  config {}
}

list "zdm_fleet" "all" {
  provider = zdm
  config {}
}

list "zdm_device" "all" {
  provider = zdm
  limit    = 1000
  config {}
}
`)
	c.MustRun("init", "-no-color")

	e.Server.ResetCounters()
	out := c.MustRun("query", "-no-color", "-generate-config-out=generated.tf")
	t.Logf("terraform query -generate-config-out: %s", c.Last)
	counters := e.Server.Counters()
	for _, route := range []string{acctest.RouteListWorkspaces, acctest.RouteListFleets, acctest.RouteListDevices} {
		if counters[route] != 1 {
			t.Errorf("%s: %d calls, want 1 (all calls: %v)", route, counters[route], counters)
		}
	}
	if total := e.Server.TotalRequests(); total != 3 {
		t.Errorf("terraform query made %d API calls, want 3: %v", total, counters)
	}
	if !strings.Contains(out, "east-00001 (") {
		t.Errorf("query output lacks the display name of device east-00001:\n%s", out)
	}

	gen := c.Read("generated.tf")
	for kind, want := range map[string]int{"zdm_device": devices, "zdm_fleet": fleets, "zdm_workspace": workspaces} {
		if got := strings.Count(gen, `resource "`+kind+`"`); got != want {
			t.Errorf("generated.tf has %d %s resource blocks, want %d", got, kind, want)
		}
	}
	if got, want := strings.Count(gen, "import {"), devices+fleets+workspaces; got != want {
		t.Errorf("generated.tf has %d import blocks, want %d", got, want)
	}
	if !regexp.MustCompile(`identity = \{\s+id\s+= "dev-`).MatchString(gen) {
		t.Errorf("generated.tf imports devices by something else than their identity:\n%s", acctest.Head(gen, 40))
	}

	out = c.MustRun("apply", "-no-color", "-auto-approve")
	if want := fmt.Sprintf("Resources: %d imported, 0 added, 0 changed, 0 destroyed", devices+fleets+workspaces); !strings.Contains(out, want) {
		t.Fatalf("apply: want %q in:\n%s", want, out)
	}
	out, code := c.Run("plan", "-no-color", "-detailed-exitcode")
	if code != 0 {
		t.Fatalf("plan after the import is not empty (exit code %d):\n%s\ngenerated.tf:\n%s", code, out, gen)
	}
}
