package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
)

// Waiting and polling: the wait options of the actions and the loop that
// polls devices until what was scheduled is done. waitStatuses is the wait
// with success and failure statuses over the fleet-status reader, for the
// scheduling resources and actions.

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

// statusFunc returns the current status of what an action scheduled on a
// device.
type statusFunc func(ctx context.Context, deviceID string) (string, error)

// waitDone polls status for every device every interval until all report
// "done", or until timeout passes. progress receives a message each time
// devices finish. The error of a timeout names the devices that are not done
// with their last status.
func waitDone(ctx context.Context, what string, devices []string, o waitOptions, status statusFunc, progress func(string)) error {
	last := make(map[string]string, len(devices))
	pending := slices.Clone(devices)
	deadline := time.Now().Add(o.timeout)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped waiting for %s: %w", what, ctx.Err())
		case <-timer.C:
		}
		var still, finished []string
		for _, dev := range pending {
			s, err := status(ctx, dev)
			if err != nil {
				return fmt.Errorf("reading the status of %s on device %s: %w", what, dev, err)
			}
			last[dev] = s
			if s == client.JobStatusDone {
				finished = append(finished, dev)
			} else {
				still = append(still, dev)
			}
		}
		pending = still
		switch {
		case len(finished) > 0:
			progress(fmt.Sprintf("%s done on %s (%d of %d devices done)", upperFirst(what), abbreviate(finished),
				len(devices)-len(pending), len(devices)))
		case len(pending) > 0:
			progress(fmt.Sprintf("Waiting for %s on %d of %d devices: %s", what, len(pending), len(devices),
				abbreviate(pending)))
		}
		if len(pending) == 0 {
			return nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			const most = 100
			waiting := make([]string, 0, min(len(pending), most))
			for _, dev := range pending[:min(len(pending), most)] {
				waiting = append(waiting, dev+" ("+last[dev]+")")
			}
			more := ""
			if len(pending) > most {
				more = fmt.Sprintf(" and %d more", len(pending)-most)
			}
			return fmt.Errorf("%s is not done after %s on %d of %d devices: %s%s", what, o.timeout, len(pending),
				len(devices), strings.Join(waiting, ", "), more)
		}
		timer.Reset(min(o.interval, left))
	}
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
