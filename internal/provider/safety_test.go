// Several families and the provider: mistakes in the provider block and in configurations of workspaces, fleets, devices and time series, one table.

package provider

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// Mistakes that cannot hurt: each case applies a small configuration
// through the real CLI, then makes one configuration mistake or meets one
// service behavior, and runs plan, apply -auto-approve and apply
// -refresh-only -auto-approve. Each case asserts the state after every
// command, the creating requests (POST) the server received during the
// three, and the message the user sees. The reliability guide's table
// "Mistakes that cannot hurt you" lists the same cases.
//
// The apply interrupted by one Ctrl-C is TestAccInterruptedApplyOnce; by
// two, TestAccInterruptedApplyTwice (both in internal/service/devices).

// safetyBody is the configuration every case starts from: 5 objects, 5
// creates.
const safetyBody = `
resource "zdm_fleet" "f" {
  name = "safety"
}
resource "zdm_fleet" "spare" {
  name = "spare"
}
resource "zdm_device" "d" {
  count    = 2
  name     = "safety-${count.index}"
  fleet_id = zdm_fleet.f.id
}
resource "zdm_device" "free" {
  name = "free"
}
`

// safetyBaseline is the number of creates of safetyBody.
const safetyBaseline = 5

// safetyEnv is the environment of every case (see acctest.SafetyEnv).
type safetyEnv = acctest.SafetyEnv

// newSafetyEnv applies body (safetyBody when empty) with the right provider
// block and records the IDs.
func newSafetyEnv(t *testing.T, body string, before func(*testing.T, *safetyEnv)) *safetyEnv {
	t.Helper()
	if body == "" {
		body = safetyBody
	}
	return acctest.NewSafetyEnv(t, body, before)
}

// step is the expected outcome of one command.
type step struct {
	// code is the exit code (plan runs with -detailed-exitcode: 0 no
	// changes, 1 error, 2 changes).
	code int
	// out lists fragments the output must hold, each on its own (a space
	// matches any white space: Terraform wraps long messages).
	out []string
	// state, when set, checks the state after the command; by default the
	// state must hold the baseline's objects with their IDs.
	state func(t *testing.T, s *safetyEnv, ids map[string]string)
}

// safetyCase is one mistake or service behavior.
type safetyCase struct {
	name string
	// body replaces safetyBody (baseline and after).
	body string
	// before prepares the server before the baseline.
	before func(t *testing.T, s *safetyEnv)
	// breakIt makes the mistake after the baseline, and returns the
	// provider block (and body, when not empty) to use from then on.
	breakIt              func(t *testing.T, s *safetyEnv) (provider, body string)
	plan, apply, refresh step
	// creates is the number of POST requests the three commands may send.
	creates int64
	// after runs once the three commands ran, for checks of the recovery.
	after func(t *testing.T, s *safetyEnv)
}

// run runs the case.
func (c safetyCase) run(t *testing.T) {
	s := newSafetyEnv(t, c.body, c.before)
	// Positive control of the request count: the baseline's creates were
	// counted.
	if got, want := s.Creates(), int64(safetyBaseline+strings.Count(c.body, "resource \"zdm_workspace\"")); got != want {
		t.Fatalf("baseline: %d creates counted, want %d", got, want)
	}
	if len(s.IDs) == 0 {
		t.Fatal("baseline: empty state")
	}
	provider, body := c.breakIt(t, s)
	if body == "" {
		body = c.body
		if body == "" {
			body = safetyBody
		}
	}
	s.Write(provider, body)
	s.Server.ResetCounters()
	commands := []struct {
		name string
		args []string
		want step
	}{
		{"plan", []string{"plan", "-detailed-exitcode", "-input=false", "-no-color"}, c.plan},
		{"apply", []string{"apply", "-auto-approve", "-input=false", "-no-color"}, c.apply},
		{"apply -refresh-only", []string{"apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color"}, c.refresh},
	}
	for _, cmd := range commands {
		out, code := s.Cli.Run(cmd.args...)
		t.Logf("%s: exit %d\n%s", cmd.name, code, out)
		if code != cmd.want.code {
			t.Errorf("%s: exit code %d, want %d", cmd.name, code, cmd.want.code)
		}
		for _, frag := range cmd.want.out {
			if !acctest.ErrorPattern(frag).MatchString(out) {
				t.Errorf("%s: the output does not hold %q", cmd.name, frag)
			}
		}
		ids := s.StateIDs(t)
		if cmd.want.state != nil {
			cmd.want.state(t, s, ids)
		} else if !maps.Equal(ids, s.IDs) {
			t.Errorf("%s: the state changed:\n got  %v\n want %v", cmd.name, ids, s.IDs)
		}
	}
	if got := s.Creates(); got != c.creates {
		t.Errorf("the server received %d creating requests (POST), want %d: %v", got, c.creates, s.Server.Counters())
	}
	if c.after != nil {
		c.after(t, s)
	}
}

// unchangedRefused is the outcome of a command that must fail with msg and
// change nothing.
func unchangedRefused(msg ...string) step {
	return step{code: 1, out: msg}
}

// sameExcept checks that the state holds the baseline's objects with their
// IDs, except the addresses in changed, which must be present with another
// ID.
func sameExcept(changed ...string) func(t *testing.T, s *safetyEnv, ids map[string]string) {
	return func(t *testing.T, s *safetyEnv, ids map[string]string) {
		t.Helper()
		if got, want := slices.Sorted(maps.Keys(ids)), slices.Sorted(maps.Keys(s.IDs)); !slices.Equal(got, want) {
			t.Errorf("state addresses %v, want %v", got, want)
		}
		for addr, id := range s.IDs {
			if slices.Contains(changed, addr) {
				if ids[addr] == id || ids[addr] == "" {
					t.Errorf("%s: ID %q, want a new object", addr, ids[addr])
				}
				continue
			}
			if ids[addr] != id {
				t.Errorf("%s: ID %q, want %q", addr, ids[addr], id)
			}
		}
	}
}

// htmlPage answers every request with an HTML page and status.
func htmlPage(status int, title string) func(http.ResponseWriter, *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, "<html><head><title>%s</title></head><body><h1>%s</h1><p>nginx</p></body></html>", title, title)
		return true
	}
}

func safetyCases() []safetyCase {
	return []safetyCase{
		{
			name: "wrong or revoked key",
			breakIt: func(_ *testing.T, s *safetyEnv) (string, string) {
				return acctest.ProviderBlock(s.URL, "zdm-wrong-key-0000000000", s.Bootstrap.WorkspaceID, ""), ""
			},
			plan:    unchangedRefused("401 Unauthorized", "refused the API key", "check api_key"),
			apply:   unchangedRefused("401 Unauthorized", "refused the API key"),
			refresh: unchangedRefused("401 Unauthorized", "refused the API key"),
		},
		{
			name: "key of another workspace",
			breakIt: func(t *testing.T, s *safetyEnv) (string, string) {
				other := acctest.OtherWorkspace(t, s)
				return acctest.ProviderBlock(s.URL, other.APIKey, s.Bootstrap.WorkspaceID, ""), ""
			},
			plan:    unchangedRefused("403 Forbidden", "An API key is bound to one workspace", "provider alias"),
			apply:   unchangedRefused("403 Forbidden", "An API key is bound to one workspace"),
			refresh: unchangedRefused("403 Forbidden", "An API key is bound to one workspace"),
		},
		{
			name: "base_url and storage_url swapped",
			breakIt: func(_ *testing.T, s *safetyEnv) (string, string) {
				return acctest.ProviderBlock(s.Server.StorageURL(), s.Bootstrap.APIKey, s.Bootstrap.WorkspaceID, ""), ""
			},
			plan:    unchangedRefused("404 Not Found", "could not be shown to see that workspace", "kept in the state", "Check base_url"),
			apply:   unchangedRefused("404 Not Found", "kept in the state"),
			refresh: unchangedRefused("404 Not Found", "kept in the state"),
		},
		{
			name: "a proxy's catch-all 404 page (wrong host or port)",
			breakIt: func(_ *testing.T, s *safetyEnv) (string, string) {
				h := htmlPage(http.StatusNotFound, "404 Not Found")
				s.Override.Store(&h)
				return s.Right(), ""
			},
			plan:    unchangedRefused("404 Not Found", "nginx", "could not be shown to see that workspace", "kept in the state"),
			apply:   unchangedRefused("404 Not Found", "kept in the state"),
			refresh: unchangedRefused("404 Not Found", "kept in the state"),
		},
		{
			name: "https for a service that speaks http",
			breakIt: func(_ *testing.T, s *safetyEnv) (string, string) {
				return acctest.ProviderBlock(strings.Replace(s.URL, "http://", "https://", 1), s.Bootstrap.APIKey, s.Bootstrap.WorkspaceID, ""), ""
			},
			plan:    unchangedRefused("server gave HTTP response to HTTPS client"),
			apply:   unchangedRefused("server gave HTTP response to HTTPS client"),
			refresh: unchangedRefused("server gave HTTP response to HTTPS client"),
		},
		{
			name: "trailing /v3/ in base_url",
			breakIt: func(_ *testing.T, s *safetyEnv) (string, string) {
				return acctest.ProviderBlock(s.URL+"/v3/", s.Bootstrap.APIKey, s.Bootstrap.WorkspaceID, ""), ""
			},
			plan:    step{code: 0, out: []string{"No changes"}},
			apply:   step{code: 0, out: []string{"0 added, 0 changed, 0 destroyed"}},
			refresh: step{code: 0},
		},
		{
			name: "wrong provider workspace_id",
			breakIt: func(_ *testing.T, s *safetyEnv) (string, string) {
				return acctest.ProviderBlock(s.URL, s.Bootstrap.APIKey, "wks-typo", ""), ""
			},
			plan:    step{code: 0, out: []string{"No changes", "stays in workspace", "wks-typo"}},
			apply:   step{code: 0, out: []string{"0 added, 0 changed, 0 destroyed"}},
			refresh: step{code: 0},
		},
		{
			name: "provider workspace_id and key changed to another workspace",
			breakIt: func(t *testing.T, s *safetyEnv) (string, string) {
				other := acctest.OtherWorkspace(t, s)
				return acctest.ProviderBlock(s.URL, other.APIKey, other.WorkspaceID, ""), ""
			},
			plan:    unchangedRefused("403 Forbidden", "An API key is bound to one workspace"),
			apply:   unchangedRefused("403 Forbidden", "An API key is bound to one workspace"),
			refresh: unchangedRefused("403 Forbidden", "An API key is bound to one workspace"),
		},
		{
			name: "service answering HTML 500 pages for a while",
			breakIt: func(_ *testing.T, s *safetyEnv) (string, string) {
				h := htmlPage(http.StatusInternalServerError, "500 Internal Server Error")
				s.Override.Store(&h)
				return s.Right(), ""
			},
			plan:    unchangedRefused("500 Internal Server Error", "nginx"),
			apply:   unchangedRefused("500 Internal Server Error"),
			refresh: unchangedRefused("500 Internal Server Error"),
			after: func(t *testing.T, s *safetyEnv) {
				s.Override.Store(nil)
				if out, code := s.Cli.Run("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
					t.Errorf("plan once the service recovered: exit %d, want 0:\n%s", code, out)
				}
			},
		},
		{
			name: "device moved to another fleet outside Terraform",
			breakIt: func(t *testing.T, s *safetyEnv) (string, string) {
				c := acctest.APIClient(t, s.Env)
				if _, err := c.UpdateDevice(t.Context(), s.Bootstrap.WorkspaceID, s.IDs["zdm_device.d[0]"], "safety-0", s.IDs["zdm_fleet.spare"]); err != nil {
					t.Fatal(err)
				}
				return s.Right(), ""
			},
			plan:    step{code: 2, out: []string{"zdm_device.d[0] will be updated in-place", "0 to add, 1 to change, 0 to destroy"}},
			apply:   step{code: 0, out: []string{"0 added, 1 changed, 0 destroyed"}},
			refresh: step{code: 0},
		},
		{
			name: "device deleted outside Terraform",
			breakIt: func(t *testing.T, s *safetyEnv) (string, string) {
				if err := s.Server.DeleteDevice(s.IDs["zdm_device.free"]); err != nil {
					t.Fatal(err)
				}
				return s.Right(), ""
			},
			plan:    step{code: 2, out: []string{"zdm_device.free will be created", "1 to add, 0 to change, 0 to destroy"}},
			apply:   step{code: 0, out: []string{"1 added, 0 changed, 0 destroyed"}, state: sameExcept("zdm_device.free")},
			refresh: step{code: 0, state: sameExcept("zdm_device.free")},
			creates: 1,
		},
		{
			name: "fleet deleted outside Terraform",
			breakIt: func(t *testing.T, s *safetyEnv) (string, string) {
				if err := s.Server.DeleteFleet(s.IDs["zdm_fleet.spare"]); err != nil {
					t.Fatal(err)
				}
				return s.Right(), ""
			},
			plan:    step{code: 2, out: []string{"zdm_fleet.spare will be created", "1 to add, 0 to change, 0 to destroy"}},
			apply:   step{code: 0, out: []string{"1 added, 0 changed, 0 destroyed"}, state: sameExcept("zdm_fleet.spare")},
			refresh: step{code: 0, state: sameExcept("zdm_fleet.spare")},
			creates: 1,
		},
		{
			name: "fleet renamed outside Terraform",
			breakIt: func(t *testing.T, s *safetyEnv) (string, string) {
				if err := s.Server.RenameFleet(s.IDs["zdm_fleet.spare"], "renamed"); err != nil {
					t.Fatal(err)
				}
				return s.Right(), ""
			},
			// The API cannot rename a fleet: the configured name needs a
			// new fleet, and the plan says that the renamed one stays.
			plan: step{code: 2, out: []string{"zdm_fleet.spare must be replaced", "Replacing a fleet leaves the old one in the service",
				"1 to add, 0 to change, 1 to destroy"}},
			apply:   step{code: 0, out: []string{"1 added, 0 changed, 1 destroyed"}, state: sameExcept("zdm_fleet.spare")},
			refresh: step{code: 0, state: sameExcept("zdm_fleet.spare")},
			creates: 1,
		},
		{
			name: "workspace hidden from the list of workspaces",
			body: safetyBody + `
resource "zdm_workspace" "w" {
  name = "listed"
}
`,
			breakIt: func(t *testing.T, s *safetyEnv) (string, string) {
				if err := s.Server.SetChoices(localzdm.Choices{HiddenWorkspaces: []string{s.IDs["zdm_workspace.w"]}}); err != nil {
					t.Fatal(err)
				}
				return s.Right(), ""
			},
			plan:    step{code: 0, out: []string{"No changes"}},
			apply:   step{code: 0, out: []string{"0 added, 0 changed, 0 destroyed"}},
			refresh: step{code: 0},
			after: func(t *testing.T, s *safetyEnv) {
				// The workspace was found by its own GET, not by the list.
				if s.Server.Counters()["GET /v3/workspaces/{workspace_id}"] == 0 {
					t.Error("the hidden workspace was never read with GET /v3/workspaces/{workspace_id}")
				}
			},
		},
		{
			name: "storage disabled",
			body: safetyBody + `
data "zdm_timeseries" "t" {
  start = "2026-01-01T00:00:00Z"
  end   = "2026-01-02T00:00:00Z"
}
`,
			before: func(t *testing.T, s *safetyEnv) {
				if err := s.Server.SetStorage(s.Bootstrap.WorkspaceID, true); err != nil {
					t.Fatal(err)
				}
			},
			breakIt: func(t *testing.T, s *safetyEnv) (string, string) {
				if err := s.Server.SetStorage(s.Bootstrap.WorkspaceID, false); err != nil {
					t.Fatal(err)
				}
				return s.Right(), ""
			},
			plan:    unchangedRefused("403 Forbidden", "storage"),
			apply:   unchangedRefused("403 Forbidden", "storage"),
			refresh: unchangedRefused("403 Forbidden", "storage"),
		},
		{
			name: "a new fleet in a workspace the key cannot reach",
			breakIt: func(t *testing.T, s *safetyEnv) (string, string) {
				other := acctest.OtherWorkspace(t, s)
				return s.Right(), safetyBody + fmt.Sprintf(`
resource "zdm_fleet" "elsewhere" {
  workspace_id = %q
  name         = "elsewhere"
}
`, other.WorkspaceID)
			},
			// The check for a fleet of the same name cannot list the
			// fleets there: the plan fails, before any create.
			plan: step{code: 1, out: []string{"Warning", "API key is bound to one workspace", "provider alias",
				"Cannot check for fleets with the same names", "403 Forbidden", "An API key is bound to one workspace"}},
			apply: step{code: 1, out: []string{"Cannot check for fleets with the same names", "403 Forbidden",
				"An API key is bound to one workspace", "Nothing was sent."}, state: sameExcept()},
			refresh: step{code: 0},
			creates: 0,
		},
	}
}

// TestAccSafetyMistakes runs every case of safetyCases with the CLI of
// TF_ACC_TERRAFORM_PATH (run it once with Terraform and once with OpenTofu).
func TestAccSafetyMistakes(t *testing.T) {
	acctest.Prepare(t)
	for _, c := range safetyCases() {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), c.run)
	}
}

// TestAccSafetySecretInBaseURL: a secret written in an invalid base_url,
// in its user information, query, path, port or fragment, never appears in
// what the CLI prints; the message still names the address.
func TestAccSafetySecretInBaseURL(t *testing.T) {
	const secret = "Sup3rS3cretT0ken9876"
	c := acctest.NewCLI(t)
	for _, raw := range []string{
		"https://user:" + secret + "@api.example.com/v3",
		"https://api.example.com/v3?api_key=" + secret,
		"https://api.example.com/api_key=" + secret + "/v3",
		"https://api.example.com/" + secret,
		"https://api.example.com/v3#" + secret,
		// A short secret in the path, and one in the port's place.
		"https://api.example.com/" + secret[:12] + "/v3",
		"https://api.example.com:" + secret[:12] + "/v3",
	} {
		c.Write("main.tf", acctest.RequiredProviders+acctest.ProviderBlock(raw, "zdm-key-0000000000", "wks-1", "")+`
data "zdm_workspaces" "all" {}
`)
		if _, code := c.Run("init", "-input=false", "-no-color"); code != 0 {
			t.Fatal("init failed")
		}
		out, code := c.Run("plan", "-input=false", "-no-color")
		if code != 1 || !strings.Contains(out, "Invalid base_url") || !strings.Contains(out, "api.example.com") {
			t.Errorf("base_url %q: exit %d, want 1 with an error naming base_url and the host:\n%s", raw, code, out)
		}
		// Terraform itself echoes the configuration line ("11:   base_url
		// = ..."); the provider's own messages are the rest.
		msgs := regexp.MustCompile(`(?m)^\s*\d+:.*$`).ReplaceAllString(out, "")
		if strings.Contains(msgs, secret) || strings.Contains(msgs, secret[:12]) {
			t.Errorf("base_url %q: the secret is in the provider's messages:\n%s", raw, msgs)
		}
		if !strings.Contains(out, "[REDACTED]") {
			t.Errorf("base_url %q: no [REDACTED] mark in the output:\n%s", raw, out)
		}
	}
}
