package settings

import (
	"encoding/json"
	"math"
	"slices"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/apierr"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/faults"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/httpio"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/store"
)

// DeviceBehavior scripts how the simulated devices answer the jobs and FOTA
// scheduled on them. The zero DeviceBehavior is the default: devices never
// answer, and jobs and FOTA stay pending until SetJobStatus or
// SetFOTAStatus moves them.
//
// With Enabled, every job or FOTA scheduled (single device or
// fleet-wide) is answered by its device Delay (plus up to Jitter) after it
// was scheduled: a job becomes "done" and a FOTA FOTASuccessStatus. Failing
// devices end a FOTA in FailureStatus and a job in JobFailureStatus (when
// set; jobs stay pending otherwise, since the specification knows only
// pending and done). Silent devices never answer. A rescheduling replaces
// the pending answer; a status set meanwhile by hand is kept. A change of
// behavior (and a start with a state file) plans anew the work still
// pending, as if scheduled then.
//
// Which devices fail or stay silent is decided when a job or FOTA is
// scheduled, over the devices of its workspace: those listed in
// FailDevices or SilentDevices (by ID or name), plus exactly
// round(SilentFraction × n) silent and round(FailureFraction × n) failing
// devices of the n devices of the workspace, taken in an order given by a
// hash of Seed and the device names (ties in creation order). The same
// seed, device names and calls give the same outcome in every run.
type DeviceBehavior struct {
	// Enabled makes devices answer what is scheduled on them.
	Enabled bool `json:"enabled"`
	// Delay is how long after scheduling a device answers (0: at once, by
	// the time the scheduling request is answered). At most MaxFaultDelay.
	Delay time.Duration `json:"delay"`
	// Jitter adds to Delay a duration in [0, Jitter] per device and job or
	// firmware, fixed by Seed. At most MaxFaultDelay.
	Jitter time.Duration `json:"jitter"`
	// FOTASuccessStatus is the FOTA status of a device that succeeds
	// (default "done").
	FOTASuccessStatus string `json:"fota_success_status"`
	// FailureStatus is the FOTA status of a failing device (default
	// "failed").
	FailureStatus string `json:"failure_status"`
	// JobFailureStatus is the job status of a failing device; empty leaves
	// its jobs pending. It is a status beyond the specification (which
	// knows pending and done), refused when the server has a state file.
	JobFailureStatus string `json:"job_failure_status"`
	// FailureFraction (0..1) of the devices of a workspace fail.
	FailureFraction float64 `json:"failure_fraction"`
	// FailDevices fail, by device ID or name.
	FailDevices []string `json:"fail_devices"`
	// SilentFraction (0..1) of the devices of a workspace never answer.
	SilentFraction float64 `json:"silent_fraction"`
	// SilentDevices never answer, by device ID or name.
	SilentDevices []string `json:"silent_devices"`
	// Seed picks the failing and silent fractions and the jitter.
	Seed uint64 `json:"seed"`
}

// deviceBehaviorJSON is the admin API shape of DeviceBehavior: durations
// are Go duration strings or numbers of milliseconds.
type deviceBehaviorJSON struct {
	Enabled           bool     `json:"enabled"`
	Delay             any      `json:"delay"`
	Jitter            any      `json:"jitter"`
	FOTASuccessStatus string   `json:"fota_success_status"`
	FailureStatus     string   `json:"failure_status"`
	JobFailureStatus  string   `json:"job_failure_status"`
	FailureFraction   float64  `json:"failure_fraction"`
	FailDevices       []string `json:"fail_devices"`
	SilentFraction    float64  `json:"silent_fraction"`
	SilentDevices     []string `json:"silent_devices"`
	Seed              uint64   `json:"seed"`
}

// MarshalJSON renders durations as Go duration strings.
func (b DeviceBehavior) MarshalJSON() ([]byte, error) {
	return json.Marshal(deviceBehaviorJSON{
		Enabled: b.Enabled, Delay: b.Delay.String(), Jitter: b.Jitter.String(),
		FOTASuccessStatus: b.FOTASuccessStatus, FailureStatus: b.FailureStatus, JobFailureStatus: b.JobFailureStatus,
		FailureFraction: b.FailureFraction, FailDevices: b.FailDevices,
		SilentFraction: b.SilentFraction, SilentDevices: b.SilentDevices, Seed: b.Seed,
	})
}

// UnmarshalJSON accepts durations as Go duration strings or milliseconds.
func (b *DeviceBehavior) UnmarshalJSON(data []byte) error {
	var in deviceBehaviorJSON
	if err := httpio.StrictUnmarshal(data, &in); err != nil {
		return err
	}
	delay, err := httpio.ParseDurationJSON("delay", in.Delay, faults.MaxFaultDelay)
	if err != nil {
		return err
	}
	jitter, err := httpio.ParseDurationJSON("jitter", in.Jitter, faults.MaxFaultDelay)
	if err != nil {
		return err
	}
	*b = DeviceBehavior{
		Enabled: in.Enabled, Delay: delay, Jitter: jitter,
		FOTASuccessStatus: in.FOTASuccessStatus, FailureStatus: in.FailureStatus, JobFailureStatus: in.JobFailureStatus,
		FailureFraction: in.FailureFraction, FailDevices: in.FailDevices,
		SilentFraction: in.SilentFraction, SilentDevices: in.SilentDevices, Seed: in.Seed,
	}
	return nil
}

// Validate reports the first invalid setting.
func (b DeviceBehavior) Validate() error {
	if err := httpio.CheckDuration("delay", b.Delay, faults.MaxFaultDelay); err != nil {
		return err
	}
	if err := httpio.CheckDuration("jitter", b.Jitter, faults.MaxFaultDelay); err != nil {
		return err
	}
	switch {
	case math.IsNaN(b.FailureFraction) || b.FailureFraction < 0 || b.FailureFraction > 1:
		return apierr.InvalidArgument("\"failure_fraction\" must be between 0 and 1, got %g", b.FailureFraction)
	case math.IsNaN(b.SilentFraction) || b.SilentFraction < 0 || b.SilentFraction > 1:
		return apierr.InvalidArgument("\"silent_fraction\" must be between 0 and 1, got %g", b.SilentFraction)
	case b.FailureFraction+b.SilentFraction > 1:
		return apierr.InvalidArgument("\"failure_fraction\" and \"silent_fraction\" must add up to at most 1, got %g", b.FailureFraction+b.SilentFraction)
	}
	for _, f := range []struct{ name, v string }{
		{"fota_success_status", b.FOTASuccessStatus}, {"failure_status", b.FailureStatus},
	} {
		if f.v != "" && !store.FOTAStatusRE.MatchString(f.v) {
			return apierr.InvalidArgument("%q must be a lower-case word of at most 32 characters (e.g. \"done\", \"failed\"), not %q", f.name, f.v)
		}
	}
	if b.JobFailureStatus != "" && (!store.FOTAStatusRE.MatchString(b.JobFailureStatus) || b.JobFailureStatus == store.JobStatusDone) {
		return apierr.InvalidArgument("\"job_failure_status\" must be a lower-case word of at most 32 characters other than %q (e.g. \"failed\"), or empty to leave jobs pending, not %q", store.JobStatusDone, b.JobFailureStatus)
	}
	for _, l := range []struct {
		name string
		ids  []string
	}{{"fail_devices", b.FailDevices}, {"silent_devices", b.SilentDevices}} {
		for i, id := range l.ids {
			if id == "" {
				return apierr.InvalidArgument("\"%s[%d]\" must not be empty", l.name, i)
			}
		}
	}
	return nil
}

// Normalized spells the defaults out.
func (b DeviceBehavior) Normalized() DeviceBehavior {
	if b.FOTASuccessStatus == "" {
		b.FOTASuccessStatus = store.JobStatusDone
	}
	if b.FailureStatus == "" {
		b.FailureStatus = "failed"
	}
	b.FailDevices = slices.Clone(b.FailDevices)
	if b.FailDevices == nil {
		b.FailDevices = []string{}
	}
	b.SilentDevices = slices.Clone(b.SilentDevices)
	if b.SilentDevices == nil {
		b.SilentDevices = []string{}
	}
	return b
}
