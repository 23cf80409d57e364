package acctest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// ActionVersions skips action tests below Terraform 1.14 (and on OpenTofu).
var ActionVersions = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)}

// TriggeredBy is a terraform_data resource that invokes the action after it
// is created and each time input changes.
func TriggeredBy(action, input string) string {
	return fmt.Sprintf(`
resource "terraform_data" "trigger" {
  input = %q
  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [%s]
    }
  }
}
`, input, action)
}

// DoneInBackground plays the devices: every 50ms it moves the job called
// name of each device (the firmware update when name is empty) from pending
// to done, until the returned function is called (at the latest when the
// test ends).
func DoneInBackground(t *testing.T, e *Env, name string, devices ...string) func() {
	t.Helper()
	return MoveInBackground(t, e, name, "done", devices...)
}

// MoveInBackground is doneInBackground moving firmware updates to status.
func MoveInBackground(t *testing.T, e *Env, name, status string, devices ...string) func() {
	t.Helper()
	c := APIClient(t, e)
	return everyTick(t, func(ctx context.Context) {
		for _, dev := range devices {
			if name == "" {
				if f, err := c.GetFOTA(ctx, dev); err == nil && f.Status == "pending" {
					_ = e.Server.SetFOTAStatus(dev, status)
				}
			} else if j, err := c.GetJob(ctx, dev, name); err == nil && j.Status == client.JobStatusPending {
				_ = e.Server.SetJobStatus(dev, name, client.JobStatusDone)
			}
		}
	})
}

// everyTick runs play every 50ms in the background until the returned
// function is called (at the latest when the test ends); the function
// returns once play has.
func everyTick(t *testing.T, play func(ctx context.Context)) func() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			play(ctx)
		}
	})
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			wg.Wait()
		})
	}
	t.Cleanup(stop)
	return stop
}

// PublishWhenDone plays devices that report their health: once the job
// called name of a device of payloads (the firmware update when name is
// empty) is done, the device publishes one data point with tag and its
// payload (JSON text), timestamped now. Devices not in payloads publish
// nothing. It runs until the returned function is called (at the latest
// when the test ends).
func PublishWhenDone(t *testing.T, e *Env, name, tag string, payloads map[string]string) func() {
	t.Helper()
	c := APIClient(t, e)
	sent := map[string]bool{}
	return everyTick(t, func(ctx context.Context) {
		for dev, payload := range payloads {
			if sent[dev] {
				continue
			}
			done := false
			if name == "" {
				f, err := c.GetFOTA(ctx, dev)
				done = err == nil && f.Status == client.JobStatusDone
			} else {
				j, err := c.GetJob(ctx, dev, name)
				done = err == nil && j.Status == client.JobStatusDone
			}
			if !done {
				continue
			}
			_, err := e.Server.Publish(e.Bootstrap.WorkspaceID, []localzdm.DataPoint{{DeviceID: dev, Tag: tag,
				TimestampDevice: time.Now().UTC().Format(time.RFC3339Nano), Payload: json.RawMessage(payload)}})
			if err == nil {
				sent[dev] = true
			}
		}
	})
}

// Scheduling routes of the service, as the local server counts them.
const (
	JobPOST       = "POST /v3/devices/{device_id}/jobs/{job_name}"
	FleetJobPOST  = "POST /v3/workspace/{workspace_id}/jobs/{job_name}"
	FOTAPOST      = "POST /v3/devices/{device_id}/fota/{firmware_id}/versions/{firmware_version}"
	FleetFOTAPOST = "POST /v3/workspaces/{workspace_id}/fota/{firmware_id}/versions/{firmware_version}"
)

// NewFleetDevices creates a fleet holding n devices out of band and returns
// the fleet's ID and the devices' IDs, sorted.
func NewFleetDevices(t *testing.T, e *Env, name string, n int) (string, []string) {
	t.Helper()
	fl, err := APIClient(t, e).CreateFleet(context.Background(), e.Bootstrap.WorkspaceID, name, "")
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%04d", name, i)
	}
	ids, err := e.Server.CreateDevices(e.Bootstrap.WorkspaceID, fl.ID, names)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return fl.ID, ids
}
