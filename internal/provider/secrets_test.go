package provider

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// The API key must never appear in logs (the provider's and Terraform's, at
// trace level), in the state, in plans, or in error messages.

// leakWindow is the length of the parts of a key whose presence counts as a
// partial leak.
const leakWindow = 12

// secretNeedles are the strings whose presence means the key leaked: the
// key, and every part of it of leakWindow characters (a partial leak).
func secretNeedles(key string) [][]byte {
	needles := [][]byte{[]byte(key)}
	for i := 0; i+leakWindow <= len(key); i++ {
		needles = append(needles, []byte(key[i:i+leakWindow]))
	}
	return needles
}

// countLeaks counts the occurrences of the key, or of any part of it of
// leakWindow characters, in data. A zip archive (such as a saved plan) is
// scanned member by member, uncompressed.
func countLeaks(data []byte, key string) int {
	n := 0
	for _, counts := range leaksByMember(data, key) {
		n += counts
	}
	return n
}

// leaksByMember counts the leaks of data by zip member ("" for data that
// is not a zip archive, or for the archive's raw bytes).
func leaksByMember(data []byte, key string) map[string]int {
	out := map[string]int{}
	raw := 0
	for _, needle := range secretNeedles(key) {
		raw += bytes.Count(data, needle)
	}
	if raw > 0 {
		out[""] = raw
	}
	if !bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		return out
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return out
	}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			out[f.Name+" (unreadable)"]++
			continue
		}
		member, err := io.ReadAll(io.LimitReader(rc, 256<<20))
		_ = rc.Close()
		if err != nil {
			out[f.Name+" (unreadable)"]++
			continue
		}
		for name, k := range leaksByMember(member, key) {
			if name == "" {
				name = f.Name
			} else {
				name = f.Name + "!" + name
			}
			out[name] += k
		}
	}
	return out
}

// scanTree counts the occurrences of the key in every file under dir (the
// members of zip archives, such as saved plans, included) and returns them
// by file (paths relative to dir; "plan!member" for a member of an
// archive), with the number of files.
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
		for member, n := range leaksByMember(data, key) {
			name := p
			if member != "" {
				name += "!" + member
			}
			leaks[name] += n
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scan %s: %v", dir, err)
	}
	return leaks, files
}

// planHasNoKey fails when the JSON plan contains the key, or lacks the
// canary (a value the scan must find there).
type planHasNoKey struct{ key, canary string }

func (c planHasNoKey) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	data, err := json.Marshal(req.Plan)
	if err != nil {
		resp.Error = err
		return
	}
	if n := countLeaks(data, c.key); n > 0 {
		resp.Error = fmt.Errorf("the plan contains the API key %d times", n)
	} else if c.canary != "" && countLeaks(data, c.canary) == 0 {
		resp.Error = fmt.Errorf("the scan does not find the canary %q in the plan: it would miss a leak", c.canary)
	}
}

// stateHasNoKey fails when the JSON state contains the key, or lacks the
// canary.
type stateHasNoKey struct{ key, canary string }

func (c stateHasNoKey) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	data, err := json.Marshal(req.State)
	if err != nil {
		resp.Error = err
		return
	}
	if n := countLeaks(data, c.key); n > 0 {
		resp.Error = fmt.Errorf("the state contains the API key %d times", n)
	} else if c.canary != "" && countLeaks(data, c.canary) == 0 {
		resp.Error = fmt.Errorf("the scan does not find the canary %q in the state: it would miss a leak", c.canary)
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

// secretsCanary is the positive control of the leak scans: a value shaped
// like an API key that takes the path of the key (an environment variable
// the provider reads, ZDM_WORKSPACE_ID) but is no secret: it is the ID of
// the workspace, so it legitimately reaches the logs, the state, the plans,
// the saved plans, the CLI's output and the error messages. Every scan that
// must not find the key must find the canary.
const secretsCanary = "zdmk_ca7e0b5e4f1d2c3b4a5968778695a4b3c2d1e0f9" //nolint:gosec // G101: a workspace ID shaped like a key.

// canaryBootstrap creates, on the server of fe, a workspace whose ID is the
// canary, with a key bound to it.
func canaryBootstrap(t *testing.T, e *acctest.Env) localzdm.Bootstrap {
	t.Helper()
	b, err := e.Server.EnsureBootstrap(localzdm.Bootstrap{WorkspaceID: secretsCanary, WorkspaceName: "secrets"})
	if err != nil {
		t.Fatalf("bootstrap the canary workspace: %v", err)
	}
	if b.WorkspaceID != secretsCanary || b.APIKey == "" {
		t.Fatalf("canary bootstrap = %+v", b)
	}
	return b
}

// TestAccSecretsNotLeaked runs a representative flow (create, data sources,
// update, import, a refused key) with Terraform and the provider logging at
// trace level, then scans the log, the working directories (state files and
// saved plans, unzipped, included), every plan and state, and the error
// messages for the key. The key is given through ZDM_API_KEY, as
// recommended: a key written in the configuration is part of the
// configuration, which Terraform itself copies into saved plans. The
// workspace ID comes through ZDM_WORKSPACE_ID and is the canary: every scan
// must find it.
func TestAccSecretsNotLeaked(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	boot := canaryBootstrap(t, fe.Env)
	key, canary := boot.APIKey, boot.WorkspaceID
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
	t.Setenv(connection.EnvAPIKey, key)
	t.Setenv(connection.EnvWorkspaceID, canary)

	// A service that echoes the key in an error body (as some proxies do):
	// the provider's error message must not repeat it.
	echo := func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.Contains(r.URL.Path, "/fleets/echo") {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadGateway)
		//nolint:gosec // G705: a JSON answer to the test's own client, echoing the key on purpose.
		_, _ = fmt.Fprintf(w, `{"error":{"code":"bad_gateway","message":"upstream refused key %s in workspace %s"}}`,
			r.Header.Get("X-API-KEY"), canary)
		return true
	}
	fe.Override.Store(&echo)

	if err := fe.Server.SetStorage(canary, true); err != nil {
		t.Fatal(err)
	}
	provider := fmt.Sprintf(`
provider "zdm" {
  base_url     = %q
  storage_url  = %q
  max_retries  = 1
}
`, fe.URL, fe.Server.StorageURL())
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
`, deviceName, canary)
	}
	noKeyInPlan := resource.ConfigPlanChecks{
		PreApply:             []plancheck.PlanCheck{planHasNoKey{key, canary}},
		PostApplyPostRefresh: []plancheck.PlanCheck{planHasNoKey{key, canary}},
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
				ConfigStateChecks: []statecheck.StateCheck{stateHasNoKey{key, canary}},
				Check:             stateFilesHaveNoKey(t, work, key),
			},
			{
				Config:            body("secret-device-renamed"),
				ConfigPlanChecks:  noKeyInPlan,
				ConfigStateChecks: []statecheck.StateCheck{stateHasNoKey{key, canary}},
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
	// Positive control: the error scan finds the canary the body carries.
	if len(errorsSeen) == 1 && countLeaks([]byte(errorsSeen[0]), canary) == 0 {
		t.Errorf("the error scan does not find the canary in %q: it would miss a leak", errorsSeen[0])
	}

	// A key the service refuses (401).
	bad := "zdmk_" + strings.Repeat("5ec12e7", 6)
	t.Setenv(connection.EnvAPIKey, bad)
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
	// Positive controls: the scans find the canary in the log, in the
	// working directories, and inside a saved plan (a zip archive).
	if countLeaks(logData, canary) == 0 {
		t.Errorf("the scan does not find the canary in the trace log: it would miss a leak")
	}
	seen, _ := scanTree(t, work, canary)
	inPlan := 0
	for p, n := range seen {
		if strings.Contains(p, "!") {
			inPlan += n
		}
	}
	if len(seen) == 0 || inPlan == 0 {
		t.Errorf("the scan does not find the canary in the working directories (%v) or inside a saved plan: it would miss a leak", seen)
	}
	keyCount := countLeaks(logData, key) + countLeaks(logData, bad)
	leaks, files := scanTree(t, dir, key)
	badLeaks, _ := scanTree(t, dir, bad)
	t.Logf("secrets: trace log of %d bytes (%d lines), %d files scanned; canary in %d files (%d times inside saved plans); "+
		"key occurrences: log %d, files %d, refused key %d",
		len(logData), bytes.Count(logData, []byte("\n")), files, len(seen), inPlan, keyCount, len(leaks), len(badLeaks))
	if keyCount > 0 || len(leaks) > 0 || len(badLeaks) > 0 {
		t.Errorf("the API key leaked: %d times in the log, files %v %v", keyCount, leaks, badLeaks)
	}
}

// TestAccSecretsNotInCLIOutput runs the CLI's commands of a whole life
// cycle (plan to a file, apply it, show, output, a no-op plan, a removal
// that warns) and scans what each prints on standard output and error,
// successful runs included (warnings go there), and the working directory
// with its saved plan, unzipped. The canary workspace ID must be found.
func TestAccSecretsNotInCLIOutput(t *testing.T) {
	e := acctest.NewEnv(t)
	boot := canaryBootstrap(t, e)
	key, canary := boot.APIKey, boot.WorkspaceID
	t.Setenv(connection.EnvAPIKey, key)
	t.Setenv(connection.EnvWorkspaceID, canary)
	c := acctest.NewCLI(t) // the CLI's environment is the test's, set above
	providerBlock := acctest.RequiredProviders + fmt.Sprintf(`
provider "zdm" {
  base_url    = %q
  storage_url = %q
}
`, e.Server.BaseURL(), e.Server.StorageURL())
	withDevice := providerBlock + `
resource "zdm_fleet" "f" {
  name = "cli-secrets"
}
resource "zdm_device" "d" {
  name     = "cli-secret-device"
  fleet_id = zdm_fleet.f.id
}
data "zdm_workspace" "w" {
  id = zdm_fleet.f.workspace_id
}
output "workspace" {
  value = data.zdm_workspace.w.id
}
`
	var outputs []string
	run := func(args ...string) string {
		t.Helper()
		out := c.MustRun(args...)
		outputs = append(outputs, out)
		if n := countLeaks([]byte(out), key); n > 0 {
			t.Errorf("terraform %s prints the API key %d times:\n%s", strings.Join(args, " "), n, out)
		}
		return out
	}
	c.Write("main.tf", withDevice)
	run("init", "-no-color")
	run("plan", "-no-color", "-out=tfplan")
	run("apply", "-no-color", "tfplan")
	run("show", "-no-color", "tfplan")
	run("show", "-no-color", "-json")
	run("output", "-no-color", "-json")
	run("plan", "-no-color", "-refresh-only")
	run("plan", "-no-color", "-out=tfplan")
	// Removing the device from the configuration forgets it, with a warning.
	c.Write("main.tf", providerBlock+`
resource "zdm_fleet" "f" {
  name = "cli-secrets"
}
`)
	warned := run("apply", "-no-color", "-auto-approve")
	if !strings.Contains(warned, "Warning: Destroying a device only removes it from the Terraform state") {
		t.Errorf("the apply that forgets the device printed no warning: the scan did not see warnings:\n%s", warned)
	}
	all := []byte(strings.Join(outputs, "\n"))
	if countLeaks(all, canary) == 0 {
		t.Errorf("the scan does not find the canary in the CLI's output: it would miss a leak")
	}
	leaks, files := scanTree(t, c.S.Dir, key)
	if len(leaks) > 0 {
		t.Errorf("the API key is in working directory files: %v", leaks)
	}
	seen, _ := scanTree(t, c.S.Dir, canary)
	if !hasMemberOf(seen, "tfplan") {
		t.Errorf("the scan does not find the canary inside the saved plan (%v): it would miss a leak", seen)
	}
	t.Logf("CLI output: %d commands, %d bytes, canary %d times; %d files scanned, canary in %v",
		len(outputs), len(all), countLeaks(all, canary), files, seen)
}

// hasMemberOf reports whether leaks has an entry for a member of the zip
// archive file.
func hasMemberOf(leaks map[string]int, file string) bool {
	for p := range leaks {
		if strings.HasPrefix(p, file+"!") {
			return true
		}
	}
	return false
}

// TestAccSecretsLiteralKey writes the key in the provider block, as many
// configurations do. Terraform then holds it in the configuration (and the
// test framework logs the configuration), but the provider never repeats
// it: not in state files, and in no log entry other than the test
// framework's own.
func TestAccSecretsLiteralKey(t *testing.T) {
	e := acctest.NewEnv(t)
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
				ConfigStateChecks: []statecheck.StateCheck{stateHasNoKey{key, ""}},
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
	data, ok := confResp.ResourceData.(*connection.ProviderData)
	if !ok {
		t.Fatalf("ResourceData is %T", confResp.ResourceData)
	}
	// Port 1 refuses the connection; the client logs the failed attempt.
	// The workspace ID carries the key, so the logged path and error do.
	if _, err := data.Client.GetWorkspace(ctx, "ws-"+key); err == nil {
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

// The client's log adapter masks the key in the message, in text and
// error fields, and whole in the fields that name a key; the positive
// control writes the same entry without it, and the check sees the key.
func TestClientLoggerMasksTheKey(t *testing.T) {
	const key = "zdmk_0123456789abcdef0123456789abcdef01234567"
	entry := func() (string, map[string]any) {
		return "request with " + key, map[string]any{
			"path": "/v3/workspaces/ws-" + key, "error": errors.New("refused for " + key),
			"X-API-KEY": "anything", "api_key": "other", "attempt": 1,
		}
	}
	var out bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &out)
	msg, fields := entry()
	clientLogger(key)(ctx, msg, fields)
	if n := countLeaks(out.Bytes(), key); n > 0 {
		t.Errorf("the key is in the entry %d times:\n%s", n, out.String())
	}
	for _, hidden := range []string{"anything", "other"} {
		if strings.Contains(out.String(), hidden) {
			t.Errorf("the value %q of a field naming a key is in the entry:\n%s", hidden, out.String())
		}
	}
	if got := strings.Count(out.String(), "***"); got < 5 {
		t.Errorf("%d masked values in the entry, want 5:\n%s", got, out.String())
	}

	var plain bytes.Buffer
	msg, fields = entry()
	tflog.Debug(tflogtest.RootLogger(context.Background(), &plain), msg, fields)
	if countLeaks(plain.Bytes(), key) == 0 {
		t.Fatalf("the unmasked entry shows no key: the check above could not see one:\n%s", plain.String())
	}
}
