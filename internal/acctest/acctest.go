// Package acctest is the harness of the provider's acceptance tests: it
// starts a local ZDM server per test, bootstraps an account, a workspace and
// an API key, and points terraform-plugin-testing at a Terraform CLI.
//
// Acceptance tests always run under go test: the harness sets TF_ACC when it
// is unset and fails the test (never skips it) when no Terraform CLI can be
// found. Tests that skip themselves (such as those that need a newer CLI)
// are counted: see SkipReport.
package acctest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// Env is one test's local server and the provider configuration to use it.
type Env struct {
	// Server is the local ZDM server of the test.
	Server *localzdm.Server
	// Bootstrap is the account, workspace and key the provider uses.
	Bootstrap localzdm.Bootstrap
	// Factories serve the provider in-process.
	Factories map[string]func() (tfprotov6.ProviderServer, error)
}

// New starts a local server for t, bootstraps a workspace with a key, and
// prepares the Terraform CLI. newServer serves the provider under test (such
// as provider.NewServer("test")).
func New(t *testing.T, newServer func() (tfprotov6.ProviderServer, error)) *Env {
	t.Helper()
	Prepare(t)
	choices, err := EnvChoices()
	if err != nil {
		t.Fatalf("acctest: %v", err)
	}
	srv := localzdm.StartTestWithOptions(t, localzdm.Options{Choices: choices})
	b, err := srv.Bootstrap("acctest")
	if err != nil {
		t.Fatalf("acctest: bootstrap the local server: %v", err)
	}
	return &Env{
		Server:    srv,
		Bootstrap: b,
		Factories: map[string]func() (tfprotov6.ProviderServer, error){
			"zdm": newServer,
		},
	}
}

var serveProvider func() (tfprotov6.ProviderServer, error)

// ServeProvider sets the provider server that NewEnv and the other helpers
// serve (provider.NewServer("test")). Each package of acceptance tests calls
// it from its TestMain, in a test file of its external test package, which
// may import the provider package that imports the package under test.
func ServeProvider(newServer func() (tfprotov6.ProviderServer, error)) {
	serveProvider = newServer
}

// ProviderServer is the provider server set by ServeProvider; it fails tb
// when none was set.
func ProviderServer(tb testing.TB) func() (tfprotov6.ProviderServer, error) {
	tb.Helper()
	if serveProvider == nil {
		tb.Fatal("acctest: no provider to serve: call acctest.ServeProvider(provider.NewServer(\"test\")) in the package's TestMain")
	}
	return serveProvider
}

// Main runs the tests of a package and reports the acceptance tests that
// skipped themselves because the CLI lacks what they test (see SkipReport):
// with CI=true, a run against a CLI that is too old fails. Call it from
// TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if line, fail := SkipReport(os.Getenv("CI") == "true"); line != "" {
		fmt.Println(line)
		if fail && code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// ChoicesEnv names the environment variable that holds the local server's
// choices (localzdm.Choices as JSON, e.g. {"shuffle_lists": true}) for every
// test of the run, so that any acceptance test can run against each choice
// the specification leaves to the service. Unset means the defaults.
const ChoicesEnv = "ZDM_ACC_CHOICES"

// EnvChoices decodes ChoicesEnv strictly.
func EnvChoices() (localzdm.Choices, error) {
	var c localzdm.Choices
	raw := strings.TrimSpace(os.Getenv(ChoicesEnv))
	if raw == "" {
		return c, nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("%s: %w", ChoicesEnv, err)
	}
	return c, nil
}

// ProviderConfig is a provider block for the test's server, workspace and
// key.
func (e *Env) ProviderConfig() string {
	return e.ProviderConfigWithKey(e.Bootstrap.APIKey)
}

// ProviderConfigWithKey is ProviderConfig with another API key.
func (e *Env) ProviderConfigWithKey(key string) string {
	return fmt.Sprintf(`
provider "zdm" {
  base_url     = %q
  storage_url  = %q
  api_key      = %q
  workspace_id = %q
}
`, e.Server.BaseURL(), e.Server.StorageURL(), key, e.Bootstrap.WorkspaceID)
}

// Config is ProviderConfig followed by the given configuration.
func (e *Env) Config(body string) string {
	return e.ProviderConfig() + body
}

var (
	prepareOnce sync.Once
	prepareErr  error
)

// Prepare sets TF_ACC (when unset) and TF_ACC_TERRAFORM_PATH (when unset, from
// scripts/install-terraform.sh) for the whole test binary, and fails t when
// no Terraform CLI is available. Environment variables are set process-wide
// (not with t.Setenv) so that tests can run in parallel.
func Prepare(t *testing.T) {
	t.Helper()
	prepareOnce.Do(func() { prepareErr = prepare() })
	if prepareErr != nil {
		t.Fatalf("acctest: %v", prepareErr)
	}
	t.Cleanup(func() {
		if t.Skipped() {
			skips.add(t.Name())
		}
	})
}

func prepare() error {
	if os.Getenv("TF_ACC") == "" {
		if err := os.Setenv("TF_ACC", "1"); err != nil {
			return err
		}
	}
	if err := os.Setenv("CHECKPOINT_DISABLE", "1"); err != nil {
		return err
	}
	if os.Getenv("TF_ACC_TERRAFORM_PATH") != "" {
		// terraform-plugin-testing reports a path that does not work.
		return nil
	}
	p, err := installTerraform()
	if err != nil {
		return err
	}
	return os.Setenv("TF_ACC_TERRAFORM_PATH", p)
}

// installTerraform runs scripts/install-terraform.sh of the repository and
// returns the path it prints.
func installTerraform() (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	const script = "scripts/install-terraform.sh"
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("bash", script)
	cmd.Dir = root
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("no Terraform CLI: set TF_ACC_TERRAFORM_PATH, or fix %s (%v): %s",
			script, err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	p := strings.TrimSpace(lines[len(lines)-1])
	if p == "" {
		return "", fmt.Errorf("no Terraform CLI: %s printed no path: %s", script, strings.TrimSpace(stderr.String()))
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no Terraform CLI: %s printed %q: %w", script, p, err)
	}
	return p, nil
}

// repoRoot finds the directory of go.mod above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory: cannot find scripts/install-terraform.sh")
		}
		dir = parent
	}
}
