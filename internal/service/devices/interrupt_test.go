package devices_test

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// Interrupted applies: the real CLI is started by the test and sent one
// SIGINT (a Ctrl-C) while creates are in flight. Terraform then stops
// gracefully: it cancels the provider's operations and waits for them. A
// request already sent must be finished and saved in the state, so that the
// next apply creates only what is missing (see DESIGN.md, "Interrupts finish
// what was sent").

const devicePOST = "POST /v3/workspaces/{workspace_id}/devices"

// interruptEnv is a local server, a CLI working directory configured for it,
// and a configuration of n devices.
type interruptEnv struct {
	env  *acctest.Env
	cli  *acctest.Cli
	n    int
	want []string
}

func newInterruptEnv(t *testing.T, n int) *interruptEnv {
	t.Helper()
	env := acctest.New(t, acctest.ProviderServer(t))
	c := acctest.NewCLI(t)
	ie := &interruptEnv{env: env, cli: c, n: n}
	for i := range n {
		ie.want = append(ie.want, fmt.Sprintf("int-%04d", i))
	}
	c.Write("main.tf", acctest.RequiredProviders+env.ProviderConfig()+fmt.Sprintf(`
resource "zdm_device" "d" {
  count = %d
  name  = format("int-%%04d", count.index)
}
`, n))
	c.MustRun("init", "-input=false", "-no-color")
	return ie
}

// applyInterrupted starts an apply and sends it one SIGINT (twice: two)
// once the server has received at least after device creates. It returns
// the CLI's output and exit code.
func (ie *interruptEnv) applyInterrupted(t *testing.T, after int64, signals int) (string, int) {
	t.Helper()
	cmd, err := ie.cli.S.Start(t.Context(), "apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=20")
	if err != nil {
		t.Fatal(err)
	}
	for ie.env.Server.Counters()[devicePOST] < after {
		time.Sleep(10 * time.Millisecond)
	}
	for i := range signals {
		if i > 0 {
			// A second Ctrl-C while the first one is being honored.
			time.Sleep(50 * time.Millisecond)
		}
		if err := cmd.Signal(os.Interrupt); err != nil {
			t.Fatalf("signal the CLI: %v", err)
		}
	}
	res, err := cmd.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return res.Output, res.ExitCode
}

// stateCount is the number of devices in the Terraform state.
func (ie *interruptEnv) stateCount(t *testing.T) int {
	t.Helper()
	out, code := ie.cli.Run("state", "list")
	if code != 0 {
		if strings.Contains(out, "No state file") {
			return 0
		}
		t.Fatalf("terraform state list: exit %d:\n%s", code, out)
	}
	n := 0
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, "zdm_device.d[") {
			n++
		}
	}
	return n
}

// TestAccInterruptedApplyOnce interrupts an apply of 250 devices (150 ms of
// server latency, -parallelism=20) with one SIGINT after 60 creates reached
// the server. Every device the service holds is then in the state (none
// lost), the next apply creates only the rest (none twice), and the plan
// after it is empty.
func TestAccInterruptedApplyOnce(t *testing.T) {
	const n = 250
	ie := newInterruptEnv(t, n)
	ie.env.Server.SetFaults(localzdm.Faults{Latency: 150 * time.Millisecond})
	ie.env.Server.ResetCounters()

	out, code := ie.applyInterrupted(t, 60, 1)
	if code == 0 {
		t.Fatalf("the interrupted apply exited with 0; want an interrupted apply:\n%s", out)
	}
	if !strings.Contains(out, "Interrupt received") {
		t.Errorf("the CLI did not report the interrupt:\n%s", out)
	}
	sent := ie.env.Server.Counters()[devicePOST]
	inService := len(acctest.DeviceNames(t, acctest.APIClient(t, ie.env), ie.env.Bootstrap.WorkspaceID))
	inState := ie.stateCount(t)
	t.Logf("after one SIGINT: %d creates received, %d devices in the service, %d in the state", sent, inService, inState)
	if inService == 0 || inService == n {
		t.Fatalf("the interrupt did not land while creates were in flight: %d of %d devices exist", inService, n)
	}
	if inState != inService {
		t.Errorf("after the interrupt, the state holds %d devices and the service %d: %d lost from the state",
			inState, inService, inService-inState)
	}

	ie.env.Server.ResetCounters()
	ie.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=20")
	if got := ie.env.Server.Counters()[devicePOST]; got != int64(n-inService) {
		t.Errorf("the second apply sent %d creates, want %d (the devices still missing)", got, n-inService)
	}
	acctest.CheckExactly(t, "devices after an interrupted apply and a second apply",
		acctest.DeviceNames(t, acctest.APIClient(t, ie.env), ie.env.Bootstrap.WorkspaceID), ie.want)
	if out, code := ie.cli.Run("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Errorf("plan after the second apply: exit %d, want 0 (empty plan):\n%s", code, out)
	}
}

// TestAccInterruptedApplyTwice interrupts an apply with two SIGINTs, a
// forced stop: Terraform exits at once, so devices whose creates were in
// flight may exist outside the state. The recovery of the reliability guide
// then finds them (the zdm_devices data source, by name and creation time)
// and imports them with import blocks, after which an apply creates only the
// rest: the service holds exactly the declared devices.
func TestAccInterruptedApplyTwice(t *testing.T) {
	const n = 150
	ie := newInterruptEnv(t, n)
	ie.env.Server.SetFaults(localzdm.Faults{Latency: 150 * time.Millisecond})
	ie.env.Server.ResetCounters()
	started := time.Now().UTC().Add(-time.Second).Format(time.RFC3339)

	out, code := ie.applyInterrupted(t, 40, 2)
	if code == 0 {
		t.Fatalf("the interrupted apply exited with 0:\n%s", out)
	}
	// Let the provider (served by this test process) finish what it sent.
	ie.env.Server.SetFaults(localzdm.Faults{})
	time.Sleep(2 * time.Second)
	c := acctest.APIClient(t, ie.env)
	inService := len(acctest.DeviceNames(t, c, ie.env.Bootstrap.WorkspaceID))
	inState := ie.stateCount(t)
	t.Logf("after two SIGINTs: %d devices in the service, %d in the state", inService, inState)
	if inState > inService {
		t.Fatalf("the state holds %d devices, the service %d", inState, inService)
	}

	// The guide's recovery: list the devices created since the apply
	// started, and import those that are not in the state.
	main := ie.cli.Read("main.tf")
	ie.cli.Write("find.tf", fmt.Sprintf(`
data "zdm_devices" "since" {}

output "created_since" {
  value = { for d in data.zdm_devices.since.devices : d.name => d.id if timecmp(d.created_at, %q) >= 0 }
}
`, started))
	ie.cli.MustRun("apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color", "-target=data.zdm_devices.since")
	var found map[string]string
	if err := json.Unmarshal([]byte(ie.cli.MustRun("output", "-json", "created_since")), &found); err != nil {
		t.Fatal(err)
	}
	inStateIDs := map[string]bool{}
	if st, code := ie.cli.Run("state", "list"); code == 0 {
		for _, addr := range strings.Fields(st) {
			if strings.HasPrefix(addr, "zdm_device.d[") {
				show := ie.cli.MustRun("state", "show", "-no-color", addr)
				if m := regexp.MustCompile(`(?m)^\s*id\s*=\s*"([^"]+)"`).FindStringSubmatch(show); m != nil {
					inStateIDs[m[1]] = true
				}
			}
		}
	}
	var imports strings.Builder
	missing := 0
	for name, id := range found {
		if inStateIDs[id] {
			continue
		}
		var i int
		if _, err := fmt.Sscanf(name, "int-%04d", &i); err != nil {
			continue
		}
		missing++
		fmt.Fprintf(&imports, "import {\n  to = zdm_device.d[%d]\n  id = %q\n}\n", i, ie.env.Bootstrap.WorkspaceID+"/"+id)
	}
	t.Logf("recovery: %d devices created since the apply started, %d of them outside the state", len(found), missing)
	if missing != inService-inState {
		t.Errorf("the data source found %d devices outside the state; the service holds %d more than the state", missing, inService-inState)
	}
	ie.cli.Write("find.tf", imports.String())
	ie.cli.Write("main.tf", main)
	ie.cli.MustRun("apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=20")
	acctest.CheckExactly(t, "devices after two SIGINTs, the guide's recovery and an apply",
		acctest.DeviceNames(t, c, ie.env.Bootstrap.WorkspaceID), ie.want)
}
