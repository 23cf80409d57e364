// Several families: every example configuration (resources of workspaces, fleets, devices, jobs and firmware, and the quickstart) applied against the local server, then planned again: the second plan must be empty.

package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// exampleSkips are the example configurations the test does not apply, and
// why: each still passes `terraform validate` (scripts/check-examples.sh).
var exampleSkips = map[string]string{
	"resources/zdm_fota_rollout":  "its waves wait up to 45 minutes for devices and health reports",
	"resources/zdm_job_rollout":   "its waves wait up to 20 minutes for devices and health reports",
	"resources/zdm_fleet_devices": "it creates 10,000 devices",
}

// providerBlock is the empty provider block of the configurations that
// read the provider's settings from the environment.
var providerBlock = regexp.MustCompile(`(?m)^provider "zdm" \{\}\n`)

// TestAccExamplesSecondPlanEmpty applies each examples/resources/*/resource.tf
// and examples/quickstart against a local server that holds the objects
// their placeholder IDs name (a workspace, two fleets of two devices, a
// device of the default fleet), then runs `plan -detailed-exitcode`: a
// refresh must never make the project's own example plan a change (and
// applying that plan send a command again).
func TestAccExamplesSecondPlanEmpty(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(examplesDir, "resources", "*"))
	if err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, filepath.Join(examplesDir, "quickstart"))
	for _, dir := range dirs {
		rel := filepath.ToSlash(strings.TrimPrefix(dir, examplesDir+string(filepath.Separator)))
		t.Run(rel, func(t *testing.T) {
			if why, ok := exampleSkips[rel]; ok {
				t.Skipf("not applied: %s", why)
			}
			e := acctest.NewEnv(t)
			ws := e.Bootstrap.WorkspaceID
			e1, _ := acctest.NewFleetWithDevices(t, e, "example-e1", "e1-a", "e1-b")
			e2, _ := acctest.NewFleetWithDevices(t, e, "example-e2", "e2-a", "e2-b")
			dev := acctest.NewDevices(t, e, "example-gateway")[0]
			ids := strings.NewReplacer(`"wks-0123456789abcdef"`, `"`+ws+`"`, `"dev-0123456789abcdef"`, `"`+dev+`"`,
				`"flt-00000000000000e1"`, `"`+e1+`"`, `"flt-00000000000000e2"`, `"`+e2+`"`)
			files, err := filepath.Glob(filepath.Join(dir, "*.tf"))
			if strings.HasPrefix(rel, "resources/") {
				// The resource alone, not its import blocks (import-by-identity.tf).
				files = []string{filepath.Join(dir, "resource.tf")}
			}
			if err != nil || len(files) == 0 {
				t.Fatalf("no .tf files in %s: %v", dir, err)
			}
			c := acctest.NewCLI(t)
			for _, f := range files {
				b, err := os.ReadFile(f) //nolint:gosec // G304: a file of this repository's examples/.
				if err != nil {
					t.Fatal(err)
				}
				text := ids.Replace(string(b))
				switch {
				case providerBlock.MatchString(text):
					text = providerBlock.ReplaceAllLiteralString(text, e.ProviderConfig())
				case filepath.Base(f) == "resource.tf":
					text = acctest.RequiredProviders + e.ProviderConfig() + text
				}
				c.Write(filepath.Base(f), text)
			}
			c.MustRun("init", "-no-color")
			c.MustRun("apply", "-no-color", "-auto-approve")
			if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
				t.Fatalf("the plan after applying examples/%s is not empty (exit code %d):\n%s", rel, code, out)
			}
		})
	}
}
