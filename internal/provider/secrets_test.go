package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// The API key must never appear in logs (the provider's and Terraform's, at
// trace level), in the state, in plans, or in error messages.

// secretNeedles are the strings whose presence means the key leaked: the
// key, and its second half (a partial leak).
func secretNeedles(key string) [][]byte {
	return [][]byte{[]byte(key), []byte(key[len(key)/2:])}
}

// countLeaks counts the occurrences of the key (or half of it) in data.
func countLeaks(data []byte, key string) int {
	n := 0
	for _, needle := range secretNeedles(key) {
		n += bytes.Count(data, needle)
	}
	return n
}

// scanTree counts the occurrences of the key in every file under dir and
// returns them by file (paths relative to dir), with the number of files.
func scanTree(t *testing.T, dir, key string) (map[string]int, int) {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatalf("scan %s: %v", dir, err)
	}
	defer root.Close()
	fsys := root.FS()
	leaks := map[string]int{}
	files := 0
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		files++
		if n := countLeaks(data, key); n > 0 {
			leaks[p] = n
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scan %s: %v", dir, err)
	}
	return leaks, files
}

// planHasNoKey fails when the JSON plan contains the key.
type planHasNoKey struct{ key string }

func (c planHasNoKey) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	data, err := json.Marshal(req.Plan)
	if err != nil {
		resp.Error = err
		return
	}
	if n := countLeaks(data, c.key); n > 0 {
		resp.Error = fmt.Errorf("the plan contains the API key %d times", n)
	}
}

// stateHasNoKey fails when the JSON state contains the key.
type stateHasNoKey struct{ key string }

func (c stateHasNoKey) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	data, err := json.Marshal(req.State)
	if err != nil {
		resp.Error = err
		return
	}
	if n := countLeaks(data, c.key); n > 0 {
		resp.Error = fmt.Errorf("the state contains the API key %d times", n)
	}
}

// stateFilesHaveNoKey is a check that scans every file of the working
// directories so far (terraform.tfstate, saved plans) for the key.
func stateFilesHaveNoKey(t *testing.T, dir, key string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		leaks, files := scanTree(t, dir, key)
		if len(leaks) > 0 {
			return fmt.Errorf("the API key is in working directory files: %v", leaks)
		}
		if files == 0 {
			return fmt.Errorf("no working directory files under %s", dir)
		}
		return nil
	}
}

// TestAccSecretsNotLeaked runs a representative flow (create, data sources,
// update, import, a refused key) with Terraform and the provider logging at
// trace level, then scans the log, the working directories (state files
// included), every plan and state, and the error messages for the key.
// The key is given through ZDM_API_KEY, as recommended: a key written in
// the configuration is part of the configuration, which Terraform itself
// copies into saved plans.
func TestAccSecretsNotLeaked(t *testing.T) {
	fe := newFrontEnv(t)
	key := fe.Bootstrap.APIKey
	dir := t.TempDir()
	logPath := filepath.Join(dir, "trace.log")
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	// Read when resource.Test starts: the provider's tflog sink and the
	// Terraform CLI both write to logPath.
	t.Setenv("TF_LOG", "TRACE")          // the provider under test
	t.Setenv("TF_ACC_LOG", "TRACE")      // the Terraform CLI
	t.Setenv("TF_LOG_PROVIDER", "TRACE") // providers run by the CLI
	t.Setenv("TF_LOG_PATH", logPath)
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	t.Setenv("TF_ACC_TEMP_DIR", work)
	t.Setenv("TF_ACC_PERSIST_WORKING_DIR", "1")
	t.Setenv(envAPIKey, key)

	// A service that echoes the key in an error body (as some proxies do):
	// the provider's error message must not repeat it.
	echo := func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.Contains(r.URL.Path, "/fleets/echo") {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadGateway)
		//nolint:gosec // G705: a JSON answer to the test's own client, echoing the key on purpose.
		_, _ = fmt.Fprintf(w, `{"error":{"code":"bad_gateway","message":"upstream refused key %s"}}`, r.Header.Get("X-API-KEY"))
		return true
	}
	fe.override.Store(&echo)

	if err := fe.Server.SetStorage(fe.Bootstrap.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	provider := fmt.Sprintf(`
provider "zdm" {
  base_url     = %q
  storage_url  = %q
  workspace_id = %q
  max_retries  = 1
}
`, fe.URL, fe.Server.StorageURL(), fe.Bootstrap.WorkspaceID)
	body := func(deviceName string) string {
		return provider + fmt.Sprintf(`
resource "zdm_fleet" "f" {
  name = "secrets"
}
resource "zdm_device" "d" {
  name     = %q
  fleet_id = zdm_fleet.f.id
}
data "zdm_workspace" "w" {
  id = %q
}
data "zdm_devices" "all" {
  depends_on = [zdm_device.d]
}
data "zdm_timeseries" "t" {
  size = 10
}
output "device" {
  value = zdm_device.d.id
}
`, deviceName, fe.Bootstrap.WorkspaceID)
	}
	noKeyInPlan := resource.ConfigPlanChecks{
		PreApply:             []plancheck.PlanCheck{planHasNoKey{key}},
		PostApplyPostRefresh: []plancheck.PlanCheck{planHasNoKey{key}},
	}
	var errorsSeen []string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		ErrorCheck: func(err error) error {
			// Only the steps below that are meant to fail get here.
			errorsSeen = append(errorsSeen, err.Error())
			if n := countLeaks([]byte(err.Error()), key); n > 0 {
				return fmt.Errorf("the error message contains the API key %d times: %w", n, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config:            body("secret-device"),
				ConfigPlanChecks:  noKeyInPlan,
				ConfigStateChecks: []statecheck.StateCheck{stateHasNoKey{key}},
				Check:             stateFilesHaveNoKey(t, work, key),
			},
			{
				Config:            body("secret-device-renamed"),
				ConfigPlanChecks:  noKeyInPlan,
				ConfigStateChecks: []statecheck.StateCheck{stateHasNoKey{key}},
				Check:             stateFilesHaveNoKey(t, work, key),
			},
			{
				Config:            body("secret-device-renamed"),
				ResourceName:      "zdm_device.d",
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				// A 502 whose body carries the key: the error is reported
				// without it (ErrorCheck above).
				Config: body("secret-device-renamed") + `
data "zdm_fleet" "echo" {
  id = "echo"
}
`,
			},
		},
	})
	if len(errorsSeen) != 1 || !strings.Contains(errorsSeen[0], "502") || !strings.Contains(errorsSeen[0], "upstream refused key") {
		t.Errorf("want one error naming the 502 answer, got %q", errorsSeen)
	}

	// A key the service refuses (401).
	bad := "zdmk_" + strings.Repeat("5ec12e7", 6)
	t.Setenv(envAPIKey, bad)
	var badErrors []string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: fe.Factories,
		ErrorCheck: func(err error) error {
			badErrors = append(badErrors, err.Error())
			if n := countLeaks([]byte(err.Error()), bad); n > 0 {
				return fmt.Errorf("the error message contains the refused API key %d times: %w", n, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{Config: provider + `data "zdm_workspaces" "all" {}`},
		},
	})
	if len(badErrors) != 1 || !strings.Contains(badErrors[0], "401") {
		t.Errorf("want one error naming the 401 answer, got %q", badErrors)
	}

	logData, err := os.ReadFile(filepath.Clean(logPath))
	if err != nil {
		t.Fatalf("read the trace log: %v", err)
	}
	// The log must be the real thing: Terraform's and the provider's trace
	// output, including the client's request entries.
	for _, want := range []string{"[TRACE]", "zdm: API request", "zdm: configured the ZDM client", "/v3/workspaces/", "/v3/timeseries/"} {
		if !bytes.Contains(logData, []byte(want)) {
			t.Errorf("the trace log (%d bytes) lacks %q: logging was not captured", len(logData), want)
		}
	}
	// The CLI's own log: "Terraform version: 1.15.0", "OpenTofu version: 1.12.6".
	if !regexp.MustCompile(`\[INFO\]\s+(Terraform|OpenTofu) version: `).Match(logData) {
		t.Errorf("the trace log lacks the CLI's own entries: CLI logging was not captured")
	}
	// The scans see what they should: the workspace ID is everywhere.
	if !bytes.Contains(logData, []byte(fe.Bootstrap.WorkspaceID)) {
		t.Errorf("the trace log does not contain the workspace ID: the scan would miss a leak")
	}
	if seen, _ := scanTree(t, work, fe.Bootstrap.WorkspaceID); len(seen) == 0 {
		t.Errorf("no working directory file contains the workspace ID: the scan would miss a leak")
	}
	keyCount := countLeaks(logData, key) + countLeaks(logData, bad)
	leaks, files := scanTree(t, dir, key)
	badLeaks, _ := scanTree(t, dir, bad)
	t.Logf("secrets: trace log of %d bytes (%d lines), %d files scanned; key occurrences: log %d, files %d, refused key %d",
		len(logData), bytes.Count(logData, []byte("\n")), files, keyCount, len(leaks), len(badLeaks))
	if keyCount > 0 || len(leaks) > 0 || len(badLeaks) > 0 {
		t.Errorf("the API key leaked: %d times in the log, files %v %v", keyCount, leaks, badLeaks)
	}
}

// TestAccSecretsLiteralKey writes the key in the provider block, as many
// configurations do. Terraform then holds it in the configuration (and the
// test framework logs the configuration), but the provider never repeats
// it: not in state files, and in no log entry other than the test
// framework's own.
func TestAccSecretsLiteralKey(t *testing.T) {
	e := newEnv(t)
	key := e.Bootstrap.APIKey
	dir := t.TempDir()
	logPath := filepath.Join(dir, "trace.log")
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	t.Setenv("TF_ACC_TEMP_DIR", work)
	t.Setenv("TF_ACC_PERSIST_WORKING_DIR", "1")
	cfg := e.Config(`
resource "zdm_device" "d" {
  name = "literal"
}
data "zdm_device" "d" {
  id = zdm_device.d.id
}
`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:            cfg,
				ConfigPlanChecks:  resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{stateHasNoKey{key}},
			},
		},
	})
	logData, err := os.ReadFile(filepath.Clean(logPath))
	if err != nil {
		t.Fatal(err)
	}
	entries, leaks := 0, 0
	for _, entry := range logEntries(logData) {
		if bytes.Contains(entry, []byte(" sdk.helper_resource: ")) {
			continue // the test framework logs the configuration it writes
		}
		entries++
		leaks += countLeaks(entry, key)
	}
	if entries < 100 || !bytes.Contains(logData, []byte("zdm: API request")) {
		t.Errorf("the trace log has %d entries and no client entry: logging was not captured", entries)
	}
	if leaks > 0 {
		t.Errorf("the API key is in %d log entries outside the test framework's", leaks)
	}
	stateFiles := 0
	files, _ := scanTree(t, work, key)
	// Positive control: the configuration files hold the key, and the scan
	// finds it there.
	tfFiles := 0
	for p := range files {
		if strings.HasSuffix(p, ".tf") {
			tfFiles++
		}
	}
	if tfFiles == 0 {
		t.Errorf("the scan did not find the key in the configuration files: it would miss a leak")
	}
	err = fs.WalkDir(os.DirFS(work), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "terraform.tfstate") {
			stateFiles++
			if files[p] > 0 {
				t.Errorf("the API key is in the state file %s", p)
			}
		}
		return err
	})
	if err != nil || stateFiles == 0 {
		t.Errorf("found %d state files: %v", stateFiles, err)
	}
	t.Logf("literal key: %d log entries and %d state files scanned; key occurrences: %d", entries, stateFiles, leaks)
}

// logEntries splits a Terraform log into entries: a line that starts with a
// timestamp starts an entry, the lines after it up to the next one continue
// it.
func logEntries(data []byte) [][]byte {
	var out [][]byte
	start := 0
	lines := bytes.SplitAfter(data, []byte("\n"))
	pos := 0
	for i, line := range lines {
		if i > 0 && len(line) > 4 && line[0] >= '0' && line[0] <= '9' && bytes.HasPrefix(line[4:], []byte("-")) {
			out = append(out, data[start:pos])
			start = pos
		}
		pos += len(line)
	}
	return append(out, data[start:])
}

// TestKeyMaskedInProviderLogs checks the tflog masking of the provider: a
// message or field that carries the key, from the provider or from the
// client's log adapter, is written masked.
func TestKeyMaskedInProviderLogs(t *testing.T) {
	const key = "zdmk_0123456789abcdef0123456789abcdef01234567"
	var out bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &out)

	masked := maskKey(ctx, key)
	tflog.Debug(masked, "configured with "+key, map[string]any{
		"api_key": key, "header": "X-API-KEY: " + key,
	})
	tflog.Trace(masked, "plain message", map[string]any{"X-API-KEY": "anything"})

	// The same through Configure: the client's log adapter masks its fields
	// with the key of the configuration.
	p := New("test")()
	var schemaResp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &schemaResp)
	cfgType, ok := schemaResp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatalf("the provider schema is not an object")
	}
	attrs := map[string]tftypes.Value{}
	for name, typ := range cfgType.AttributeTypes {
		attrs[name] = tftypes.NewValue(typ, nil)
	}
	attrs["base_url"] = tftypes.NewValue(tftypes.String, "http://127.0.0.1:1")
	attrs["api_key"] = tftypes.NewValue(tftypes.String, key)
	attrs["workspace_id"] = tftypes.NewValue(tftypes.String, "wks-1")
	attrs["max_retries"] = tftypes.NewValue(tftypes.Number, 0)
	var confResp provider.ConfigureResponse
	p.Configure(ctx, provider.ConfigureRequest{
		Config: tfsdk.Config{Schema: schemaResp.Schema, Raw: tftypes.NewValue(cfgType, attrs)},
	}, &confResp)
	if confResp.Diagnostics.HasError() {
		t.Fatalf("Configure: %v", confResp.Diagnostics)
	}
	data, ok := confResp.ResourceData.(*providerData)
	if !ok {
		t.Fatalf("ResourceData is %T", confResp.ResourceData)
	}
	// Port 1 refuses the connection; the client logs the failed attempt.
	// The workspace ID carries the key, so the logged path and error do.
	if _, err := data.client.GetWorkspace(ctx, "ws-"+key); err == nil {
		t.Fatal("GetWorkspace on a closed port succeeded")
	}

	entries, err := tflogtest.MultilineJSONDecode(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatalf("decode the log: %v", err)
	}
	if len(entries) < 3 {
		t.Fatalf("want at least 3 log entries, got %d: %s", len(entries), out.String())
	}
	if n := countLeaks(out.Bytes(), key); n > 0 {
		t.Errorf("the key is in the provider log %d times:\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), "***") {
		t.Errorf("no masked value in the log:\n%s", out.String())
	}
}
