//go:build linux

package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// zoneDirs are the places Go looks for the system's zone database on Unix
// (time.platformZoneSources); the test hides those that exist.
var zoneDirs = []string{"/usr/share/zoneinfo", "/usr/share/lib/zoneinfo", "/usr/lib/locale/TZ", "/etc/zoneinfo"}

// TestAccBinaryLoadsZonesWithoutSystemDatabase builds the provider binary as
// the release does (-trimpath, so no GOROOT zone archive is known either)
// and runs `terraform validate` of a rollout with a maintenance window in
// Europe/Berlin in a mount namespace where every system zone directory is an
// empty tmpfs and ZONEINFO names nothing. The built binary must accept the
// zone. The control builds the same binary without tzdata.go (a build
// overlay replaces it with an empty file) and must refuse the zone in the
// same place: the hiding works and the embed is what the binary needs.
func TestAccBinaryLoadsZonesWithoutSystemDatabase(t *testing.T) {
	acctest.Prepare(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatal("this test hides the system's zone files in a mount namespace: it needs unshare (util-linux)")
	}
	dir := t.TempDir()
	config := acctest.RequiredProviders + `
resource "zdm_fota_rollout" "r" {
  workspace_id     = "wks-0123456789abcdef"
  fleet_ids        = ["flt-00000000000000e1"]
  firmware_id      = "fw-sensor"
  firmware_version = "2.1.0"
  waves            = ["100%"]
  success_statuses = ["done"]
  failure_statuses = ["failed"]

  maintenance_window {
    days      = ["mon"]
    start     = "22:00"
    end       = "05:00"
    time_zone = "Europe/Berlin"
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}

	// validate runs the provider built with the given go build arguments
	// and returns Terraform's output and whether it succeeded.
	validate := func(name string, buildArgs ...string) (string, bool) {
		plugins := filepath.Join(t.TempDir(), name)
		args := append([]string{"build", "-trimpath"}, buildArgs...)
		args = append(args, "-o", filepath.Join(plugins, "terraform-provider-zdm"), ".")
		build := exec.Command("go", args...) //nolint:gosec // G204: builds this repository's provider.
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		rc := filepath.Join(plugins, "cli.tfrc")
		if err := os.WriteFile(rc, fmt.Appendf(nil, "provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n",
			acctest.ProviderHost()+"/zdm/zdm", plugins), 0o600); err != nil {
			t.Fatal(err)
		}
		// Inside the namespace: an empty tmpfs over each zone directory,
		// then a check that Berlin is gone before Terraform runs.
		script := `set -e
for d in ` + strings.Join(zoneDirs, " ") + `; do
  if [ -d "$d" ]; then mount -t tmpfs none "$d"; fi
done
for d in ` + strings.Join(zoneDirs, " ") + `; do
  if [ -e "$d/Europe/Berlin" ]; then echo "zone file $d/Europe/Berlin still visible" >&2; exit 97; fi
done
exec "$@"`
		nsArgs := []string{"--mount", "--propagation", "private"}
		if os.Geteuid() != 0 {
			nsArgs = append([]string{"--user", "--map-root-user"}, nsArgs...)
		}
		nsArgs = append(nsArgs, "sh", "-c", script, "sh", os.Getenv("TF_ACC_TERRAFORM_PATH"), "validate", "-no-color", "-json")
		cmd := exec.Command(unshare, nsArgs...) //nolint:gosec // G204: the CLI under test.
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TF_CLI_CONFIG_FILE=" + rc,
			"TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "ZONEINFO=/nonexistent"} // no GOROOT, no TZ
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code == 97 || (err != nil && stdout.Len() == 0) {
			t.Fatalf("could not run Terraform with the zone files hidden (unshare %s): %v\n%s%s",
				strings.Join(nsArgs[:len(nsArgs)-6], " "), err, stdout.String(), stderr.String())
		}
		var res struct {
			Valid       bool `json:"valid"`
			Diagnostics []struct {
				Summary string `json:"summary"`
				Detail  string `json:"detail"`
			} `json:"diagnostics"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("terraform validate -json: %v\n%s%s", err, stdout.String(), stderr.String())
		}
		var msgs []string
		for _, d := range res.Diagnostics {
			msgs = append(msgs, d.Summary+": "+d.Detail)
		}
		return strings.Join(msgs, "\n"), res.Valid
	}

	out, ok := validate("embedded")
	if !ok {
		t.Errorf("the built provider refused Europe/Berlin with no system zone database:\n%s", out)
	}

	// The control: the same build less the embed.
	overlayDir := t.TempDir()
	empty := filepath.Join(overlayDir, "tzdata.go")
	if err := os.WriteFile(empty, []byte("package main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(root, "tzdata.go"): empty}})
	if err != nil {
		t.Fatal(err)
	}
	overlayFile := filepath.Join(overlayDir, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o600); err != nil {
		t.Fatal(err)
	}
	out, ok = validate("control", "-overlay", overlayFile)
	if ok || !strings.Contains(out, "Invalid maintenance_window.time_zone") {
		t.Errorf("control: the provider built without time/tzdata should refuse Europe/Berlin with the zone files hidden "+
			"(else this test cannot see a missing embed); valid=%v:\n%s", ok, out)
	}
}
