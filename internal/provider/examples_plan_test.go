// Several families: every example configuration (resources of workspaces, fleets, devices, jobs and firmware, and the quickstart) planned through a front that refuses writes (a plan never writes), applied against the local server, then planned again through it: the second plan must be empty, and write nothing.

package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// exampleSkips are the example configurations the test does not apply, and
// why: each is still planned through the front that refuses writes, and
// passes `terraform validate` (scripts/check-examples.sh).
var exampleSkips = map[string]string{
	"resources/zdm_fota_rollout":  "its waves wait up to 45 minutes for devices and health reports",
	"resources/zdm_job_rollout":   "its waves wait up to 20 minutes for devices and health reports",
	"resources/zdm_fleet_devices": "it creates 10,000 devices",
}

// providerBlock is the empty provider block of the configurations that
// read the provider's settings from the environment.
var providerBlock = regexp.MustCompile(`(?m)^provider "zdm" \{\}\n`)

// writeRefusingFront serves target through a front that answers every
// request other than GET (and HEAD) with 403 without forwarding it, and
// counts them: what a plan sends through it shows whether the plan writes.
func writeRefusingFront(t *testing.T, target string) (string, *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	writes := &atomic.Int64{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writes.Add(1)
			http.Error(w, `{"message":"this front refuses writes: a plan must send none"}`, http.StatusForbidden)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, writes
}

// TestAccExamplesSecondPlanEmpty runs each examples/resources/*/resource.tf
// and examples/quickstart against a local server that holds the objects
// their placeholder IDs name (a workspace, two fleets of two devices, a
// device of the default fleet): a plan through a front that refuses writes
// (writeRefusingFront) must succeed and send it none; then the apply,
// directly; then `plan -detailed-exitcode` through the front again (the
// refresh of the state): a refresh must never make the project's own
// example plan a change (and applying that plan send a command again), and
// neither plan may write. The controls: a provider built to write during a
// plan (-tags zdm_mutant_planwrite, internal/client/mutant_planwrite.go) is
// caught by the front, and an apply through the front fails with its
// writes counted.
func TestAccExamplesSecondPlanEmpty(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(examplesDir, "resources", "*"))
	if err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, filepath.Join(examplesDir, "quickstart"))
	for _, dir := range dirs {
		rel := filepath.ToSlash(strings.TrimPrefix(dir, examplesDir+string(filepath.Separator)))
		t.Run(rel, func(t *testing.T) {
			e := acctest.NewEnv(t)
			ws := e.Bootstrap.WorkspaceID
			// The rollouts' health_check reads the storage service.
			if err := e.Server.SetStorage(ws, true); err != nil {
				t.Fatal(err)
			}
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
			front, writes := writeRefusingFront(t, e.Server.BaseURL())
			// write writes the configuration, its provider block pointing at
			// base (the server, or the front).
			write := func(base string) {
				provider := strings.Replace(e.ProviderConfig(), e.Server.BaseURL(), base, 1)
				for _, f := range files {
					b, err := os.ReadFile(f) //nolint:gosec // G304: a file of this repository's examples/.
					if err != nil {
						t.Fatal(err)
					}
					text := ids.Replace(string(b))
					switch {
					case providerBlock.MatchString(text):
						text = providerBlock.ReplaceAllLiteralString(text, provider)
					case filepath.Base(f) == "resource.tf":
						text = acctest.RequiredProviders + provider + text
					}
					c.Write(filepath.Base(f), text)
				}
			}
			write(front)
			c.MustRun("init", "-no-color")
			c.MustRun("plan", "-no-color")
			if n := writes.Load(); n != 0 {
				t.Fatalf("the plan of examples/%s sent %d writes", rel, n)
			}
			if why, ok := exampleSkips[rel]; ok {
				t.Skipf("planned with no write; not applied: %s", why)
			}
			write(e.Server.BaseURL())
			c.MustRun("apply", "-no-color", "-auto-approve")
			write(front)
			if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
				t.Fatalf("the plan after applying examples/%s is not empty (exit code %d):\n%s", rel, code, out)
			}
			if n := writes.Load(); n != 0 {
				t.Fatalf("the plan (and refresh) of the applied examples/%s sent %d writes", rel, n)
			}
		})
	}
	t.Run("control: a provider built to write during a plan is caught", func(t *testing.T) {
		e := acctest.NewEnv(t)
		front, writes := writeRefusingFront(t, e.Server.BaseURL())
		root, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			t.Fatal(err)
		}
		plugins, work := t.TempDir(), t.TempDir()
		build := exec.Command("go", "build", "-tags", "zdm_mutant_planwrite", "-o", //nolint:gosec // G204: builds this repository's provider.
			filepath.Join(plugins, "terraform-provider-zdm"), ".")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build -tags zdm_mutant_planwrite: %v\n%s", err, out)
		}
		rc := filepath.Join(plugins, "cli.tfrc")
		if err := os.WriteFile(rc, fmt.Appendf(nil, "provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n",
			acctest.ProviderHost()+"/zdm/zdm", plugins), 0o600); err != nil {
			t.Fatal(err)
		}
		config := acctest.RequiredProviders + strings.Replace(e.ProviderConfig(), e.Server.BaseURL(), front, 1) + `
resource "zdm_fleet" "f" {
  name = "mutant-control"
}
`
		if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		plan := exec.Command(os.Getenv("TF_ACC_TERRAFORM_PATH"), "plan", "-no-color", "-input=false") //nolint:gosec // G204: the CLI under test.
		plan.Dir = work
		plan.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
		out, _ := plan.CombinedOutput()
		if writes.Load() == 0 {
			t.Fatalf("the plan of a provider built to write during plans sent no write the front saw:\n%s", out)
		}
	})
	t.Run("control: the front counts and refuses an apply's writes", func(t *testing.T) {
		e := acctest.NewEnv(t)
		front, writes := writeRefusingFront(t, e.Server.BaseURL())
		c := acctest.NewCLI(t)
		c.Write("main.tf", acctest.RequiredProviders+strings.Replace(e.ProviderConfig(), e.Server.BaseURL(), front, 1)+
			`resource "zdm_fleet" "f" {
  name = "front-control"
}
`)
		c.MustRun("init", "-no-color")
		c.MustRun("plan", "-no-color")
		if n := writes.Load(); n != 0 {
			t.Fatalf("the plan sent %d writes", n)
		}
		if out, code := c.Run("apply", "-no-color", "-auto-approve"); code == 0 || writes.Load() == 0 {
			t.Fatalf("the apply through the front exited %d with %d writes counted; want a failure and a write:\n%s",
				code, writes.Load(), out)
		}
	})
}
