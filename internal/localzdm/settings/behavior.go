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
//
// With PublishHealth, a device that completes a job (done) or a FOTA
// (FOTASuccessStatus) also publishes one data point into the storage
// service of its workspace, as a device does once it has restarted: tag
// HealthTag and payload HealthPayload, plus the key "job" (the job's name)
// or "firmware_id" and "firmware_version", unless the payload sets them.
// Its timestamp_device is a millisecond after the status change (later
// still when the device already published a health point at that time).
// Exactly round(HealthSilentFraction × n) of the n devices of the workspace
// publish nothing and round(HealthErrorFraction × n) publish HealthErrorTag
// and HealthErrorPayload instead, taken in an order given by a hash of
// Seed, the device name and "health" (an order of its own, so that the
// health shares do not follow the failing and silent ones). Failing and
// silent devices publish nothing; neither does a device whose workspace's
// storage service is not enabled when it answers.
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
	// Seed picks the failing and silent fractions, the health shares and
	// the jitter.
	Seed uint64 `json:"seed"`
	// PublishHealth makes devices publish a health point when they
	// complete a job or a FOTA.
	PublishHealth bool `json:"publish_health"`
	// HealthTag is the tag of a health point (default DefaultHealthTag).
	HealthTag string `json:"health_tag"`
	// HealthPayload is the payload of a health point, a JSON object
	// (default DefaultHealthPayload).
	HealthPayload json.RawMessage `json:"health_payload"`
	// HealthErrorTag is the tag of an error health point (default
	// DefaultHealthErrorTag).
	HealthErrorTag string `json:"health_error_tag"`
	// HealthErrorPayload is the payload of an error health point, a JSON
	// object (default DefaultHealthErrorPayload).
	HealthErrorPayload json.RawMessage `json:"health_error_payload"`
	// HealthSilentFraction (0..1) of the devices of a workspace publish no
	// health point.
	HealthSilentFraction float64 `json:"health_silent_fraction"`
	// HealthErrorFraction (0..1) of the devices of a workspace publish an
	// error health point.
	HealthErrorFraction float64 `json:"health_error_fraction"`
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

	PublishHealth        bool            `json:"publish_health"`
	HealthTag            *string         `json:"health_tag,omitempty"`
	HealthPayload        json.RawMessage `json:"health_payload,omitempty"`
	HealthErrorTag       *string         `json:"health_error_tag,omitempty"`
	HealthErrorPayload   json.RawMessage `json:"health_error_payload,omitempty"`
	HealthSilentFraction float64         `json:"health_silent_fraction"`
	HealthErrorFraction  float64         `json:"health_error_fraction"`
}

// MarshalJSON renders durations as Go duration strings.
func (b DeviceBehavior) MarshalJSON() ([]byte, error) {
	return json.Marshal(deviceBehaviorJSON{
		Enabled: b.Enabled, Delay: b.Delay.String(), Jitter: b.Jitter.String(),
		FOTASuccessStatus: b.FOTASuccessStatus, FailureStatus: b.FailureStatus, JobFailureStatus: b.JobFailureStatus,
		FailureFraction: b.FailureFraction, FailDevices: b.FailDevices,
		SilentFraction: b.SilentFraction, SilentDevices: b.SilentDevices, Seed: b.Seed,
		PublishHealth: b.PublishHealth, HealthTag: unlessEmpty(b.HealthTag), HealthPayload: b.HealthPayload,
		HealthErrorTag: unlessEmpty(b.HealthErrorTag), HealthErrorPayload: b.HealthErrorPayload,
		HealthSilentFraction: b.HealthSilentFraction, HealthErrorFraction: b.HealthErrorFraction,
	})
}

// unlessEmpty is nil for "" (a default left out), else &v.
func unlessEmpty(v string) *string {
	if v == "" {
		return nil
	}
	return &v
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
	// A tag given is never the default: "" is refused, not defaulted.
	for _, f := range []struct {
		name string
		v    *string
	}{{"health_tag", in.HealthTag}, {"health_error_tag", in.HealthErrorTag}} {
		if f.v != nil && *f.v == "" {
			return apierr.InvalidArgument("%q must not be empty (leave it out for the default)", f.name)
		}
	}
	*b = DeviceBehavior{
		Enabled: in.Enabled, Delay: delay, Jitter: jitter,
		FOTASuccessStatus: in.FOTASuccessStatus, FailureStatus: in.FailureStatus, JobFailureStatus: in.JobFailureStatus,
		FailureFraction: in.FailureFraction, FailDevices: in.FailDevices,
		SilentFraction: in.SilentFraction, SilentDevices: in.SilentDevices, Seed: in.Seed,
		PublishHealth: in.PublishHealth, HealthPayload: in.HealthPayload, HealthErrorPayload: in.HealthErrorPayload,
		HealthSilentFraction: in.HealthSilentFraction, HealthErrorFraction: in.HealthErrorFraction,
	}
	if in.HealthTag != nil {
		b.HealthTag = *in.HealthTag
	}
	if in.HealthErrorTag != nil {
		b.HealthErrorTag = *in.HealthErrorTag
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
	return b.validateHealth()
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
	b.normalizeHealth()
	return b
}
