//go:build unix

package devices_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// TestAccInterruptedApplyTERMGroup runs the built provider binary the way
// users do (Terraform starts it as a plugin, through dev_overrides) and
// cancels the apply like a CI runner: SIGTERM to the whole process group,
// the provider included, while creates are in flight. Every device the
// service holds must then be in the state.
func TestAccInterruptedApplyTERMGroup(t *testing.T) {
	env := acctest.New(t, acctest.ProviderServer(t))
	const n = 200
	plugins, run := builtProviderCLI(t, env, fmt.Sprintf(`
resource "zdm_device" "d" {
  count = %d
  name  = format("term-%%04d", count.index)
}
`, n))
	// Every create is held, then acted on even when the client has gone:
	// as a real service does with a request it already received.
	if _, err := env.Server.AddRequestFault(localzdm.RequestFault{Method: "POST",
		Path: "/v3/workspaces/{workspace_id}/devices", Action: localzdm.FaultDelay, Delay: 300 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	env.Server.ResetCounters()
	cmd, out := run("apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=20")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for env.Server.Counters()[devicePOST] < 50 {
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	t.Logf("terraform after SIGTERM to its process group:\n%s", acctest.Tail(out.String(), 15))
	env.Server.ClearRequestFaults()
	time.Sleep(time.Second) // the held creates act
	// The provider does not outlive Terraform: Terraform stops it.
	for i := 0; pluginRunning(plugins); i++ {
		if i == 100 {
			t.Fatalf("a provider process of %s still runs after Terraform exited", plugins)
		}
		time.Sleep(100 * time.Millisecond)
	}

	list, lout := run("state", "list")
	_ = list.Run()
	inState := strings.Count(lout.String(), "zdm_device.d[")
	inService := len(acctest.DeviceNames(t, acctest.APIClient(t, env), env.Bootstrap.WorkspaceID))
	t.Logf("after SIGTERM: %d creates received, %d devices in the service, %d in the state",
		env.Server.Counters()[devicePOST], inService, inState)
	if inService == 0 {
		t.Fatal("no device was created before the signal")
	}
	if inState != inService {
		t.Errorf("the state holds %d devices and the service %d: %d lost from the state", inState, inService, inService-inState)
	}
}

// builtProviderCLI builds the provider's binary and returns its directory
// and a function that makes a command of the CLI under test running it the
// way users do (Terraform starts it as a plugin, through dev_overrides), in
// a working directory whose main.tf is body under env's provider block, in a
// process group of its own; the command's output goes to the buffer.
func builtProviderCLI(t *testing.T, env *acctest.Env, body string) (string, func(args ...string) (*exec.Cmd, *bytes.Buffer)) {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	plugins := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(plugins, "terraform-provider-zdm"), ".") //nolint:gosec // G204: builds this repository's provider.
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	rc := filepath.Join(dir, "cli.tfrc")
	if err := os.WriteFile(rc, fmt.Appendf(nil, "provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n",
		acctest.ProviderHost()+"/zdm/zdm", plugins), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(acctest.RequiredProviders+env.ProviderConfig()+body), 0o600); err != nil {
		t.Fatal(err)
	}
	return plugins, func(args ...string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(os.Getenv("TF_ACC_TERRAFORM_PATH"), args...) //nolint:gosec // G204: the CLI under test.
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
			"TF_REATTACH_PROVIDERS=")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd, &out
	}
}

// pluginRunning reports whether a process runs a binary of dir.
func pluginRunning(dir string) bool {
	return len(pluginPIDs(dir)) > 0
}

// pluginPIDs returns the processes that run a binary of dir.
func pluginPIDs(dir string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || !strings.HasPrefix(exe, dir) {
			continue
		}
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}
