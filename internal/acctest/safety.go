package acctest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// SafetyEnv is a local server behind a front the test controls, and a CLI
// working directory: the environment of the tests of mistakes that cannot
// hurt (internal/provider's TestAccSafetyMistakes, and the ones of a family
// beside its code).
type SafetyEnv struct {
	*FrontEnv
	Cli *Cli
	// IDs maps the address of each resource to its ID after the baseline.
	IDs map[string]string
}

// ProviderBlock renders a provider block.
func ProviderBlock(baseURL, key, ws, extra string) string {
	return fmt.Sprintf(`
provider "zdm" {
  base_url     = %q
  api_key      = %q
  workspace_id = %q
  max_retries  = 1
%s
}
`, baseURL, key, ws, extra)
}

// Right is the provider block of the baseline.
func (s *SafetyEnv) Right() string {
	return ProviderBlock(s.URL, s.Bootstrap.APIKey, s.Bootstrap.WorkspaceID,
		fmt.Sprintf("  storage_url  = %q", s.Server.StorageURL()))
}

// Write writes the configuration: provider block and body.
func (s *SafetyEnv) Write(provider, body string) {
	s.Cli.Write("main.tf", RequiredProviders+provider+body)
}

// StateIDs maps each resource address of the state to its ID.
func (s *SafetyEnv) StateIDs(t *testing.T) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for addr, values := range s.Cli.StateValues() {
		id, _ := values["id"].(string)
		ids[addr] = id
	}
	return ids
}

// Creates is the number of POST requests the server received.
func (s *SafetyEnv) Creates() int64 {
	var n int64
	for k, v := range s.Server.Counters() {
		if strings.HasPrefix(k, "POST ") {
			n += v
		}
	}
	return n
}

// NewSafetyEnv applies body with the right provider block and records the
// IDs.
func NewSafetyEnv(t *testing.T, body string, before func(*testing.T, *SafetyEnv)) *SafetyEnv {
	t.Helper()
	s := &SafetyEnv{FrontEnv: NewFrontEnv(t)}
	if before != nil {
		before(t, s)
	}
	s.Cli = NewCLI(t)
	s.Write(s.Right(), body)
	s.Cli.MustRun("init", "-input=false", "-no-color")
	s.Server.ResetCounters()
	s.Cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color")
	s.IDs = s.StateIDs(t)
	return s
}

// OtherWorkspace creates a second workspace of the test's account and
// returns it with its key.
func OtherWorkspace(t *testing.T, s *SafetyEnv) localzdm.Bootstrap {
	t.Helper()
	b, err := s.Server.CreateWorkspace(s.Bootstrap.AccountID, "other")
	if err != nil {
		t.Fatal(err)
	}
	return b
}
