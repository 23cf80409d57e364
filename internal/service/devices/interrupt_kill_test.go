//go:build unix

package devices_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// TestAccKilledCLIEndsTheProvider: Terraform is killed (SIGKILL to the CLI
// alone) while creates are in flight. The provider it started does not run
// on alone: it finishes the requests it sent and exits.
func TestAccKilledCLIEndsTheProvider(t *testing.T) {
	env := acctest.New(t, acctest.ProviderServer(t))
	plugins, run := builtProviderCLI(t, env, `
resource "zdm_device" "d" {
  count = 20
  name  = format("kill-%04d", count.index)
}
`)
	t.Cleanup(func() { // a provider left running is not left behind by the test
		for _, pid := range pluginPIDs(plugins) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	// The creates are held, then acted on even when the client has gone.
	if _, err := env.Server.AddRequestFault(localzdm.RequestFault{Method: "POST",
		Path: "/v3/workspaces/{workspace_id}/devices", Action: localzdm.FaultDelay, Delay: 2 * time.Second}); err != nil {
		t.Fatal(err)
	}
	env.Server.ResetCounters()
	cmd, out := run("apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=5")
	cmd.WaitDelay = 5 * time.Second // the output of a provider that inherited it does not hold the test
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for env.Server.Counters()[devicePOST] < 1 {
		time.Sleep(10 * time.Millisecond)
	}
	// The control: the provider runs while the apply does.
	if !pluginRunning(plugins) {
		t.Fatalf("no provider process of %s runs during the apply", plugins)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed := time.Now()
	t.Logf("terraform killed with %d creates received:\n%s", env.Server.Counters()[devicePOST], acctest.Tail(out.String(), 10))
	for i := 0; pluginRunning(plugins); i++ {
		if i == 600 {
			t.Fatalf("a provider process of %s still runs a minute after Terraform was killed", plugins)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("the provider exited %s after Terraform was killed; %d creates received",
		time.Since(killed).Round(100*time.Millisecond), env.Server.Counters()[devicePOST])
}
