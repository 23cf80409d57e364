package provider

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccLocalScript runs what the README tells a new user to do: `make
// local`'s script (scripts/local.sh, with the provider and zdm-local built
// from this checkout) in one process, and in a "second terminal" the
// quickstart and the fleet job that waits for its devices, with the CLI
// under test configured only by the script's env file and CLI configuration.
// Both applies succeed, every device of the fleet reports the job done (the
// simulated devices answer by default), and a second plan of each is empty.
func TestAccLocalScript(t *testing.T) {
	acctest.Prepare(t)
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin, dir := t.TempDir(), t.TempDir()
	for _, b := range [][2]string{{"terraform-provider-zdm", "."}, {"zdm-local", "./cmd/zdm-local"}} {
		build := exec.Command("go", "build", "-o", filepath.Join(bin, b[0]), b[1]) //nolint:gosec // G204: go build of this repository's own packages.
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b[1], err, out)
		}
	}

	// The first terminal: make local (on free ports).
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	local := exec.CommandContext(ctx, filepath.Join(root, "scripts", "local.sh"), bin, dir, "-port", "0", "-storage-port", "0") //nolint:gosec // G204: the repository's own script, on the test's binaries.
	local.Dir = root
	local.Env = append(os.Environ(), "TERRAFORM_BIN="+tf)
	local.Cancel = func() error { return local.Process.Signal(syscall.SIGTERM) }
	// A file, not a buffer: the script writes it directly, so the test may
	// read it while the script runs.
	logs, err := os.Create(filepath.Join(t.TempDir(), "make-local.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = logs.Close() }()
	logText := func() string {
		b, _ := os.ReadFile(logs.Name())
		return string(b)
	}
	local.Stdout, local.Stderr = logs, logs
	if err := local.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		_ = local.Wait()
		if t.Failed() {
			t.Logf("make local's output:\n%s", logText())
		}
	}()
	env := readEnvFile(t, filepath.Join(dir, "zdm.env"))
	// The steps put the CLI the project tests with first on PATH.
	if want := "export PATH=" + filepath.Dir(tf) + ":$PATH"; !strings.Contains(logText(), want) {
		t.Errorf("make local's steps lack %q:\n%s", want, logText())
	}

	// The second terminal: source the env file, point the CLI at dev.tfrc.
	cliEnv := append(os.Environ(), "TF_CLI_CONFIG_FILE="+filepath.Join(dir, "dev.tfrc"), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	for k, v := range env {
		cliEnv = append(cliEnv, k+"="+v)
	}
	run := func(work string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, tf, append([]string{"-chdir=" + work}, args...)...) //nolint:gosec // G204: the CLI under test (TF_ACC_TERRAFORM_PATH).
		cmd.Env = cliEnv
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, example := range []string{"quickstart", "fleet-job", "health-rollout"} {
		work := t.TempDir()
		files, _ := filepath.Glob(filepath.Join(root, "examples", example, "*.tf"))
		for _, f := range files {
			b, err := os.ReadFile(f) //nolint:gosec // G304: an example file of this repository.
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(work, filepath.Base(f)), b, 0o600); err != nil { //nolint:gosec // G703: a file of the test's own temporary directory.
				t.Fatal(err)
			}
		}
		if out, err := run(work, "apply", "-auto-approve", "-no-color"); err != nil {
			t.Fatalf("%s: apply: %v\n%s", example, err, out)
		}
		if out, err := run(work, "plan", "-detailed-exitcode", "-no-color"); err != nil {
			t.Fatalf("%s: the plan after the apply is not empty (%v):\n%s", example, err, out)
		}
		if example == "health-rollout" {
			out, err := run(work, "output", "-json", "rollout")
			var r struct {
				Status  string `json:"status"`
				Healthy int    `json:"healthy"`
			}
			if err != nil || json.Unmarshal([]byte(out), &r) != nil || r.Status != "completed" || r.Healthy != 3 {
				t.Fatalf("rollout = %s (%v), want completed with 3 healthy devices", out, err)
			}
			continue
		}
		if example != "fleet-job" {
			continue
		}
		out, err := run(work, "output", "-json", "job_status_counts")
		if err != nil {
			t.Fatalf("output: %v\n%s", err, out)
		}
		var counts map[string]int
		if err := json.Unmarshal([]byte(out), &counts); err != nil || len(counts) != 1 || counts["done"] != 3 {
			t.Fatalf("job_status_counts = %s (%v), want {\"done\": 3}", out, err)
		}
	}
}

// readEnvFile waits for the export lines that zdm-local writes and returns
// them as a map.
func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, err := os.ReadFile(path) //nolint:gosec // G304: the env file in the test's own temporary directory.
		if err == nil && strings.Contains(string(b), "ZDM_API_KEY=") {
			env := map[string]string{}
			sc := bufio.NewScanner(strings.NewReader(string(b)))
			for sc.Scan() {
				if k, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "="); ok {
					env[k] = strings.Trim(v, "'")
				}
			}
			return env
		}
		if time.Now().After(deadline) {
			t.Fatalf("no env file at %s", path)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
