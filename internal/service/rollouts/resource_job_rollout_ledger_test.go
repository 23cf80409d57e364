package rollouts_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// TestAccJobRolloutsOfOneJobSendOnce: two rollouts of one job and value
// with different salts in one configuration run at once, each picking the
// devices in its own order: every device gets the job once. (Each deciding
// from its own first read, they sent it twice to most devices.)
func TestAccJobRolloutsOfOneJobSendOnce(t *testing.T) {
	e := acctest.NewEnv(t)
	countsSchedules(t, e)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 6)
	jobsAnswer(t, e)
	config := e.Config(fmt.Sprintf(`
resource "zdm_job_rollout" "a" {
  workspace_id  = %[1]q
  fleet_ids     = [%[2]q]
  name          = "reboot"
  value         = jsonencode({ delay = 2 })
  salt          = "a"
  waves         = ["50%%", "100%%"]
  wave_timeout  = "60s"
  poll_interval = "100ms"
}

resource "zdm_job_rollout" "b" {
  workspace_id  = %[1]q
  fleet_ids     = [%[2]q]
  name          = "reboot"
  value         = jsonencode({ delay = 2 })
  salt          = "b"
  waves         = ["50%%", "100%%"]
  wave_timeout  = "60s"
  poll_interval = "100ms"
}
`, e.Bootstrap.WorkspaceID, fleet))
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("zdm_job_rollout.a", tfjsonpath.New("status"), knownvalue.StringExact("completed")),
				statecheck.ExpectKnownValue("zdm_job_rollout.b", tfjsonpath.New("status"), knownvalue.StringExact("completed")),
			},
			Check: resource.ComposeTestCheckFunc(
				expectJobSchedules(t, e, 6, `{"delay":2}`, 6, ids),
				// Between them, the two rollouts scheduled each device once.
				func(s *terraform.State) error {
					n := 0
					for _, addr := range []string{"zdm_job_rollout.a", "zdm_job_rollout.b"} {
						for w := range 2 {
							v, _ := strconv.Atoi(s.RootModule().Resources[addr].Primary.Attributes[fmt.Sprintf("wave_results.%d.scheduled", w)])
							n += v
						}
					}
					if n != 6 {
						return fmt.Errorf("the rollouts scheduled %d devices between them, want 6", n)
					}
					return nil
				},
			),
		}},
	})
}

// TestAccJobRolloutDeviceJobMeanwhile: a zdm_device_job gives a device of
// the rollout's second wave the same job and value while the first wave
// runs (after the rollout's first read, before the second wave). The second
// wave reads its devices again and does not send it a second time.
//
// The devices are played so that the order is certain: the device job
// waits (through a gate job on another device) until the first wave was
// sent, and the first wave's device is done only once the device job was
// sent.
func TestAccJobRolloutDeviceJobMeanwhile(t *testing.T) {
	e := acctest.NewEnv(t)
	countsSchedules(t, e)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 4)
	gate := acctest.NewDevices(t, e, "gate")[0]
	const value = `{"delay":2}`
	order := jobRolloutOrder(e, value, ids)
	first, meanwhile := order[0], order[1]
	playDevices(t, e, first, meanwhile, gate, ids)
	config := e.Config(fmt.Sprintf(`
resource "zdm_job_rollout" "test" {
  workspace_id  = %q
  fleet_ids     = [%q]
  name          = "reboot"
  value         = jsonencode({ delay = 2 })
  waves         = ["1", "100%%"]
  wave_timeout  = "60s"
  poll_interval = "100ms"
}

resource "zdm_device_job" "gate" {
  device_id     = %q
  name          = "gate"
  wait          = true
  poll_interval = "100ms"
}

resource "zdm_device_job" "meanwhile" {
  device_id  = %q
  name       = "reboot"
  value      = jsonencode({ delay = 2 })
  depends_on = [zdm_device_job.gate]
}
`, e.Bootstrap.WorkspaceID, fleet, gate, meanwhile))
	const addr = "zdm_job_rollout.test"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
				// Wave 2 holds the device given the job meanwhile, not
				// scheduled by the rollout.
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("scheduled"),
					knownvalue.Int64Exact(2)),
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(1).AtMapKey("device_ids"),
					knownvalue.ListSizeExact(3)),
			},
			// The gate job, the device job, and the rollout's three: the
			// device given the job meanwhile got it once.
			Check: expectJobSchedules(t, e, 5, value, 4, ids),
		}},
	})
}

// playDevices plays the devices of TestAccJobRolloutDeviceJobMeanwhile
// every 50ms until the test ends: the gate job is done once the rollout's
// first device has its job; the first device's job is done once the device
// job reached meanwhile; the other devices' jobs are done at once.
func playDevices(t *testing.T, e *acctest.Env, first, meanwhile, gate string, ids []string) {
	t.Helper()
	c := acctest.APIClient(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		pending := func(dev, name string) bool {
			j, err := c.GetJob(ctx, dev, name)
			return err == nil && j.Status == client.JobStatusPending
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			firstSent := pending(first, "reboot")
			if firstSent && pending(gate, "gate") {
				_ = e.Server.SetJobStatus(gate, "gate", client.JobStatusDone)
			}
			_, err := c.GetJob(ctx, meanwhile, "reboot")
			meanwhileSent := err == nil
			for _, dev := range ids {
				if (dev != first || meanwhileSent) && pending(dev, "reboot") {
					_ = e.Server.SetJobStatus(dev, "reboot", client.JobStatusDone)
				}
			}
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}

// TestAccJobRolloutPacingStopsAtWindowEnd: a wave paced by
// max_devices_per_minute reaches the end of its maintenance window (30 to
// 90 seconds after the apply starts, 15 seconds between sends): it stops
// sending, the state records what was sent, status is "stopped" and
// next_window_opens_at the next opening; nothing was scheduled after the
// window closed. The next apply, in a window open now, sends the rest: each
// device gets the job once. (The sends went on after the window closed,
// and the apply reported the rollout completed.)
func TestAccJobRolloutPacingStopsAtWindowEnd(t *testing.T) {
	// Parallel first: the window is computed from the time the test runs,
	// not from when it was paused for the serial tests.
	t.Parallel()
	e := acctest.NewEnv(t)
	countsSchedules(t, e)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 8)
	jobsAnswer(t, e)
	const addr = "zdm_job_rollout.test"
	now := time.Now().UTC()
	end := now.Truncate(time.Minute).Add(time.Minute)
	if end.Sub(now) < 30*time.Second {
		end = end.Add(time.Minute)
	}
	start := now.Add(-time.Hour).Truncate(time.Minute)
	window := fmt.Sprintf(`maintenance_window {
    days      = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    start     = %q
    end       = %q
    time_zone = "UTC"
  }`, start.Format("15:04"), end.Format("15:04"))
	var sent int64
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:             pacingConfigOneWave(e, fleet, window+"\n  max_devices_per_minute = 4"),
				ExpectNonEmptyPlan: true,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("stopped")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("waves_completed"), knownvalue.Int64Exact(0)),
				},
				Check: func(s *terraform.State) error {
					attrs := s.RootModule().Resources[addr].Primary.Attributes
					sent = jobSchedules(e)
					if sent < 1 || sent >= 8 {
						return fmt.Errorf("%d of 8 jobs sent before the window closed at %s", sent, end.Format("15:04"))
					}
					if got := attrs["wave_results.0.scheduled"]; got != strconv.FormatInt(sent, 10) {
						return fmt.Errorf("wave_results.0.scheduled = %s, %d sent", got, sent)
					}
					next := start.Add(24 * time.Hour)
					if next.Before(now) {
						next = next.Add(24 * time.Hour)
					}
					if got := attrs["next_window_opens_at"]; got != next.Format(time.RFC3339) {
						return fmt.Errorf("next_window_opens_at = %q, want %s", got, next.Format(time.RFC3339))
					}
					for _, dev := range ids {
						j, err := acctest.APIClient(t, e).GetJob(context.Background(), dev, "reboot")
						if err != nil {
							continue
						}
						at, err := time.Parse(time.RFC3339Nano, j.ScheduledAt)
						if err != nil || !at.Before(end) {
							return fmt.Errorf("device %s scheduled at %s, after the window closed at %s", dev, j.ScheduledAt, end.Format(time.RFC3339))
						}
					}
					return nil
				},
			},
			{
				// The next window, open now: the rest, each device once.
				Config: pacingConfigOneWave(e, fleet, windowAround(-time.Hour, time.Hour)+"\n  max_devices_per_minute = 120"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("next_window_opens_at"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("wave_results").AtSliceIndex(0).AtMapKey("scheduled"),
						knownvalue.Int64Exact(8)),
				},
				Check: expectJobSchedules(t, e, 8, `{"delay":2}`, 8, ids),
			},
		},
	})
}

func pacingConfigOneWave(e *acctest.Env, fleet, extra string) string {
	return e.Config(fmt.Sprintf(`
resource "zdm_job_rollout" "test" {
  workspace_id  = %q
  fleet_ids     = [%q]
  name          = "reboot"
  value         = jsonencode({ delay = 2 })
  waves         = ["100%%"]
  wave_timeout  = "60s"
  poll_interval = "100ms"
  %s
}
`, e.Bootstrap.WorkspaceID, fleet, extra))
}

// TestAccJobRolloutsOfOneJobTwoValuesRefused is the model checker's seed
// 1007: a rollout of value 1, then a second rollout of the same job with
// value 2 beside it (which replaced value 1 on every device), then a third
// rollout of value 1 sent value 1 a second time to every device, since the
// service showed value 2 there. Two values of one job for one fleet in one
// configuration are now refused at plan, before anything is sent; the way
// the error names (one rollout whose value changes) sends each value once.
func TestAccJobRolloutsOfOneJobTwoValuesRefused(t *testing.T) {
	e := acctest.NewEnv(t)
	countsSchedules(t, e)
	fleet, ids := acctest.NewFleetDevices(t, e, "sensors", 4)
	jobsAnswer(t, e)
	rollout := func(key, salt string, delay int) string {
		return fmt.Sprintf(`
resource "zdm_job_rollout" %q {
  workspace_id  = %q
  fleet_ids     = [%q]
  name          = "reboot"
  value         = jsonencode({ delay = %d })
  salt          = %q
  waves         = ["1", "100%%"]
  wave_timeout  = "60s"
  poll_interval = "100ms"
}
`, key, e.Bootstrap.WorkspaceID, fleet, delay, salt)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				// Value 1 on the 4 devices: the positive control of the
				// counts below.
				Config: e.Config(rollout("a", "a", 1)),
				Check:  expectJobSchedules(t, e, 4, `{"delay":1}`, 4, ids),
			},
			{
				// A second rollout of another value beside it: refused,
				// nothing sent.
				Config:      e.Config(rollout("a", "a", 1) + rollout("b", "b", 2)),
				ExpectError: regexp.MustCompile(`Two values of job "reboot" for one fleet`),
			},
			{
				Config: e.Config(rollout("a", "a", 1)),
				Check:  expectJobSchedules(t, e, 4, `{"delay":1}`, 4, ids),
			},
			{
				// The same value with another salt is no conflict: every
				// device has it, nothing is sent.
				Config: e.Config(rollout("a", "a", 1) + rollout("c", "c", 1)),
				Check:  expectJobSchedules(t, e, 4, `{"delay":1}`, 4, ids),
			},
			{
				// Value 2 as the error says: one rollout (a new value is a
				// new rollout), the others removed in the same edit.
				Config: e.Config(rollout("b", "b", 2)),
				Check:  expectJobSchedules(t, e, 8, `{"delay":2}`, 4, ids),
			},
		},
	})
}
