package acctest

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/zdm/terraform-provider-zdm/internal/logging"
	"github.com/zdm/terraform-provider-zdm/internal/tfcli"
)

// Cli runs the Terraform CLI (TF_ACC_TERRAFORM_PATH) in a temporary
// directory against the provider served by the test process (see tfcli),
// for the commands the testing framework does not drive, such as
// terraform query -generate-config-out.
type Cli struct {
	tb testing.TB
	S  *tfcli.Session
	// Last is the wall time of the last command.
	Last time.Duration
}

// NewCLI serves the provider for the duration of tb. Tests prepare the CLI
// first (newEnv does); benchmarks need TF_ACC_TERRAFORM_PATH.
func NewCLI(tb testing.TB) *Cli {
	tb.Helper()
	return startCLI(tb, true)
}

// NewQuietCLI is newCLI with the provider's logging off, as the provider's
// binary runs when no TF_LOG variable is set (logging.QuietUnreadLogs), for
// tests of thousands of objects: with trace logging on, the framework's cost
// per value node grows with the size of the value. It sets environment
// variables for the test, so the test must not be parallel.
func NewQuietCLI(tb testing.TB) *Cli {
	tb.Helper()
	if err := logging.QuietUnreadLogs(os.Environ(), func(k, v string) error { tb.Setenv(k, v); return nil }); err != nil {
		tb.Fatal(err)
	}
	return startCLI(tb, false)
}

// startCLI serves the provider, logging to the test when logs is set and tb
// is a test.
func startCLI(tb testing.TB, logs bool) *Cli {
	tb.Helper()
	if t, ok := tb.(*testing.T); ok {
		Prepare(t)
	}
	bin := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if bin == "" {
		tb.Fatal("set TF_ACC_TERRAFORM_PATH to a Terraform CLI (scripts/install-terraform.sh prints one)")
	}
	opts := tfcli.Options{
		Address:   ProviderHost() + "/zdm/zdm",
		Server:    func() tfprotov6.ProviderServer { return MustServer(tb) },
		Terraform: bin,
		Dir:       tb.TempDir(),
	}
	if t, ok := tb.(*testing.T); ok && logs {
		opts.ServeOpts = []tf6server.ServeOpt{tf6server.WithLoggingSink(t)}
	}
	s, err := tfcli.Start(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Log(err)
		}
	})
	return &Cli{tb: tb, S: s}
}

// SkipWithoutQuery skips the test when the CLI has no `terraform query`
// command: OpenTofu, and Terraform before 1.14.
func (c *Cli) SkipWithoutQuery() {
	c.tb.Helper()
	c.SkipBelow(14, "terraform query needs Terraform 1.14 or later (list resources)")
}

// SkipBelow skips the test, saying why, when the CLI reports a version
// below 1.minor (OpenTofu reports its own version, 1.12 and later).
func (c *Cli) SkipBelow(minor int, why string) {
	c.tb.Helper()
	out := c.MustRun("version", "-json")
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		c.tb.Fatalf("read the CLI version from %q: %v", out, err)
	}
	var major, got int
	if _, err := fmt.Sscanf(v.Version, "%d.%d", &major, &got); err != nil {
		c.tb.Fatalf("parse the CLI version %q: %v", v.Version, err)
	}
	if major == 1 && got < minor {
		c.tb.Skipf("%s; this CLI is %s", why, v.Version)
	}
}

// Write writes a file of the working directory.
func (c *Cli) Write(name, content string) {
	c.tb.Helper()
	if err := c.S.WriteFile(name, content); err != nil {
		c.tb.Fatal(err)
	}
}

// Read returns the content of a file of the working directory.
func (c *Cli) Read(name string) string {
	c.tb.Helper()
	s, err := c.S.ReadFile(name)
	if err != nil {
		c.tb.Fatal(err)
	}
	return s
}

// Run runs terraform with args and returns its output and exit code.
func (c *Cli) Run(args ...string) (string, int) {
	c.tb.Helper()
	res, err := c.S.Run(c.tb.Context(), args...)
	if err != nil {
		c.tb.Fatal(err)
	}
	c.Last = res.Duration
	return res.Output, res.ExitCode
}

// MustRun runs terraform with args and fails unless it exits with 0.
func (c *Cli) MustRun(args ...string) string {
	c.tb.Helper()
	out, code := c.Run(args...)
	if code != 0 {
		c.tb.Fatalf("terraform %s: exit code %d:\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// ProviderHost is the registry host the CLI resolves "zdm/zdm" under:
// registry.terraform.io for Terraform, and the value of TF_ACC_PROVIDER_HOST
// (as terraform-plugin-testing reads it) for OpenTofu, whose default host is
// registry.opentofu.org.
func ProviderHost() string {
	if h := os.Getenv("TF_ACC_PROVIDER_HOST"); h != "" {
		return h
	}
	return "registry.terraform.io"
}

// RequiredProviders is the terraform block of configurations run by cli.
const RequiredProviders = `
terraform {
  required_providers {
    zdm = {
      source = "zdm/zdm"
    }
  }
}
`

// StateValues returns the attributes of each managed resource of the state
// (terraform show -json), by address.
func (c *Cli) StateValues() map[string]map[string]any {
	c.tb.Helper()
	out := c.MustRun("show", "-json", "-no-color")
	var st struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Address string         `json:"address"`
					Mode    string         `json:"mode"`
					Values  map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		c.tb.Fatalf("terraform show -json: %v\n%s", err, out)
	}
	res := map[string]map[string]any{}
	for _, r := range st.Values.RootModule.Resources {
		if r.Mode == "managed" {
			res[r.Address] = r.Values
		}
	}
	return res
}
