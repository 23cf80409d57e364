package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
)

// Waiting and polling: the wait options of the actions, and waitStatuses,
// the one wait with success and failure statuses over the fleet-status
// reader, for the scheduling actions and the rollout.

// Defaults of the actions' wait attributes.
const (
	defaultWaitTimeout  = 5 * time.Minute
	defaultPollInterval = 5 * time.Second
)

// waitOptions are the wait, timeout and poll_interval attributes of an action.
type waitOptions struct {
	wait     bool
	timeout  time.Duration
	interval time.Duration
}

// parseWaitOptions reads the wait attributes (validated already), applying
// the defaults.
func parseWaitOptions(wait types.Bool, timeout, interval types.String) waitOptions {
	o := waitOptions{wait: wait.ValueBool(), timeout: defaultWaitTimeout, interval: defaultPollInterval}
	if d, err := parseRequestTimeout(timeout.ValueString()); err == nil && !timeout.IsNull() {
		o.timeout = d
	}
	if d, err := parseRequestTimeout(interval.ValueString()); err == nil && !interval.IsNull() {
		o.interval = d
	}
	return o
}

// progressFunc sends progress messages of an invocation.
func progressFunc(resp *action.InvokeResponse) func(string) {
	return func(msg string) {
		if resp.SendProgress != nil {
			resp.SendProgress(action.InvokeProgressEvent{Message: msg})
		}
	}
}

// reportScheduled reports what a fleet-wide schedule reached, and warns
// when it reached no device. It returns whether there are devices to wait
// for.
func reportScheduled(what, ws string, fleets, devices []string, progress func(string), diags *diag.Diagnostics) bool {
	target := describeFleets(ws, fleets)
	if len(devices) == 0 {
		diags.AddWarning("No device got the "+what,
			"The "+what+" was scheduled on "+target+", which hold no device.")
		return false
	}
	progress(fmt.Sprintf("Scheduled %s on %s: %d devices (%s)", what, target, len(devices), abbreviate(devices)))
	return true
}

// statusWait shapes waitStatuses.
type statusWait struct {
	// kind is what is waited for: a job by name, or the firmware update.
	kind fleetstatus.Kind
	// firmware, for a firmware update, is the update waited for: a device
	// whose update became another firmware has failed.
	firmware *fleetstatus.Firmware
	// success are the statuses that finish a device well (default "done");
	// failure those that finish it badly and end the wait at once.
	success, failure  []string
	timeout, interval time.Duration
	// parallel bounds the reads in flight (0: 16).
	parallel int
}

// waitStatuses polls the devices until each reports a success status of
// w.kind. A device that reports a failure status ends the wait at once. On
// failure, timeout or cancellation the error is a *fleetstatus.WaitError
// whose message names each device not done with its last status; the
// result holds every device's last status either way. Reads go through the
// fleet-status reader: parallel at a time, each retried as the client does.
func waitStatuses(ctx context.Context, c *client.Client, devices []string, w statusWait, progress func(string)) (fleetstatus.WaitResult, error) {
	return fleetstatus.Wait(ctx, c, devices, fleetstatus.WaitOptions{
		Kind: w.kind, Firmware: w.firmware, Success: w.success, Failure: w.failure,
		Timeout: w.timeout, Interval: w.interval, Parallel: w.parallel, Progress: progress,
	})
}
