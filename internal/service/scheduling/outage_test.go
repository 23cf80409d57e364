package scheduling

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
	"github.com/zdm/terraform-provider-zdm/internal/tfcli"
)

// TestAccScheduleWaitSurvivesRestart: the service restarts (stops, and
// comes back on the same port with its state) while a job's wait polls it:
// the polls refused in between are retried, the apply succeeds, and the job
// was sent once. (That a service never reached fails at once is
// TestNeverReachedServiceFailsAtOnce in the client, and the provider's
// tests of a wrong base_url.)
func TestAccScheduleWaitSurvivesRestart(t *testing.T) {
	acctest.Prepare(t)
	stateFile := filepath.Join(t.TempDir(), "zdm.json")
	srv1, err := localzdm.New(localzdm.Options{StateFile: stateFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv1.Close() })
	if err := srv1.Start("127.0.0.1:0", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	b, err := srv1.Bootstrap("acctest")
	if err != nil {
		t.Fatal(err)
	}
	env := &acctest.Env{Server: srv1, Bootstrap: b}
	_, devs := acctest.NewFleetWithDevices(t, env, "restart", "restart-0")
	cli := acctest.NewCLI(t)
	cli.Write("main.tf", acctest.RequiredProviders+env.ProviderConfig()+`
resource "zdm_device_job" "j" {
  device_id     = "`+devs[0]+`"
  name          = "sync"
  wait          = true
  poll_interval = "200ms"
}
`)
	cli.MustRun("init", "-input=false", "-no-color")

	type result struct {
		res tfcli.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := cli.S.Run(context.WithoutCancel(t.Context()), "apply", "-auto-approve", "-input=false", "-no-color")
		done <- result{res, err}
	}()
	// Once the job is sent and its wait has polled it twice, the service
	// stops; it comes back after several polls' time.
	for srv1.Counters()[acctest.JobPOST] < 1 || srv1.Counters()[jobGET] < 2 {
		select {
		case r := <-done:
			t.Fatalf("the apply ended before the restart: %v\n%s", r.err, r.res.Output)
		case <-time.After(20 * time.Millisecond):
		}
	}
	mgmt, storage := strings.TrimPrefix(srv1.BaseURL(), "http://"), strings.TrimPrefix(srv1.StorageURL(), "http://")
	if err := srv1.Close(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	srv2, err := localzdm.New(localzdm.Options{StateFile: stateFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv2.Close() })
	if err := srv2.Start(mgmt, storage); err != nil {
		t.Fatal(err)
	}
	if err := srv2.SetJobStatus(devs[0], "sync", "done"); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.res.ExitCode != 0 {
		t.Fatalf("apply across the restart: exit code %d, %v:\n%s", r.res.ExitCode, r.err, r.res.Output)
	}
	if n := srv2.Counters()[jobGET]; n < 1 {
		t.Errorf("the restarted service saw %d reads of the job, want the wait's polls", n)
	}
	if n1, n2 := srv1.Counters()[acctest.JobPOST], srv2.Counters()[acctest.JobPOST]; n1 != 1 || n2 != 0 {
		t.Errorf("the job was sent %d times before the restart and %d after, want 1 and 0", n1, n2)
	}
}
