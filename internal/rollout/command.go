package rollout

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
)

// Command is what a rollout schedules on each device, and how it reads a
// device's status for it: a firmware update (FOTA) or a named job with its
// value (Job). The engine (Run) is the same for both; only what a Command
// says differs.
type Command interface {
	// Kind is what is read on each device.
	Kind() fleetstatus.Kind
	// String names the command in messages: "firmware fw 2.0",
	// `job "reboot"`.
	String() string
	// identity is what salts the order of the devices besides the
	// workspace and the user's salt.
	identity() []string
	// has reports whether a device's current record is this command (the
	// device counts as scheduled).
	has(d fleetstatus.Device) bool
	// replaced is the status text of a device found with another command
	// of the same kind ("replaced by ..."), or "" when d holds this one or
	// has none.
	replaced(d fleetstatus.Device) string
	// send schedules the command on one device.
	send(ctx context.Context, c *client.Client, id string) error
	// shows reads one device back after a lost answer: whether it shows the
	// command scheduled.
	shows(ctx context.Context, c *client.Client, id string) bool
	// noun and check word the error of a lost answer: "firmware", and the
	// data source that shows the device's record.
	noun() string
	check() string
	// waitOptions sets what Wait needs to tell a replaced device.
	waitOptions(o *fleetstatus.WaitOptions)
	// notDoneFails tells the gate at wave_timeout: false, a wave not done
	// in time stops the rollout (firmware updates report their own
	// failures); true, the devices not done count as failed against
	// max_failure_ratio and the wave passes when they are few enough (jobs
	// report only pending and done).
	notDoneFails() bool
}

// FOTA is the Command of a firmware update.
func FOTA(fw fleetstatus.Firmware) Command { return fotaCommand{fw} }

type fotaCommand struct{ fw fleetstatus.Firmware }

func (f fotaCommand) Kind() fleetstatus.Kind { return fleetstatus.FOTA }
func (f fotaCommand) String() string {
	return fmt.Sprintf("firmware %s %s", f.fw.ID, f.fw.Version)
}
func (f fotaCommand) identity() []string            { return []string{f.fw.ID, f.fw.Version} }
func (f fotaCommand) has(d fleetstatus.Device) bool { return d.Has(f.fw) }
func (f fotaCommand) replaced(d fleetstatus.Device) string {
	if d.Found && !d.Has(f.fw) {
		return "replaced by " + d.FirmwareID
	}
	return ""
}
func (f fotaCommand) send(ctx context.Context, c *client.Client, id string) error {
	_, err := c.ScheduleFOTA(ctx, id, f.fw.ID, f.fw.Version)
	return err
}
func (f fotaCommand) shows(ctx context.Context, c *client.Client, id string) bool {
	got, err := c.GetFOTA(ctx, id)
	return err == nil && got.Value.FirmwareID == f.fw.ID && got.Value.FirmwareVersion == f.fw.Version
}
func (f fotaCommand) noun() string  { return "firmware" }
func (f fotaCommand) check() string { return "the device's firmware update (zdm_fota_status)" }
func (f fotaCommand) waitOptions(o *fleetstatus.WaitOptions) {
	fw := f.fw
	o.Firmware = &fw
}
func (f fotaCommand) notDoneFails() bool { return false }

// Job is the Command of the job name with its value, a compact JSON
// object. A device whose job of that name holds an equal value (compared
// as the service keeps numbers: jsonvalue.Equal), or a value the service
// does not echo, has it.
func Job(name string, value json.RawMessage) Command {
	v := string(jsonvalue.Compact(value, nil))
	if v == "" {
		v = "{}"
	}
	return jobCommand{name: name, value: v}
}

type jobCommand struct{ name, value string }

func (j jobCommand) Kind() fleetstatus.Kind { return fleetstatus.Job(j.name) }
func (j jobCommand) String() string         { return fmt.Sprintf("job %q", j.name) }
func (j jobCommand) identity() []string     { return []string{"job", j.name, j.value} }
func (j jobCommand) has(d fleetstatus.Device) bool {
	return d.Found && j.matches(d.Value)
}

// matches reports whether a job value read on a device is this one (a value
// not echoed matches: it cannot be told apart).
func (j jobCommand) matches(v json.RawMessage) bool {
	got := string(jsonvalue.Compact(v, nil))
	return got == "" || got == "null" || jsonvalue.Equal(got, j.value)
}

func (j jobCommand) replaced(d fleetstatus.Device) string {
	if d.Found && !j.matches(d.Value) {
		return "replaced by another value"
	}
	return ""
}
func (j jobCommand) send(ctx context.Context, c *client.Client, id string) error {
	_, err := c.ScheduleJob(ctx, id, j.name, json.RawMessage(j.value))
	return err
}
func (j jobCommand) shows(ctx context.Context, c *client.Client, id string) bool {
	got, err := c.GetJob(ctx, id, j.name)
	return err == nil && j.matches(got.Value)
}
func (j jobCommand) noun() string  { return "job" }
func (j jobCommand) check() string { return "the device's job (zdm_device_job)" }
func (j jobCommand) waitOptions(o *fleetstatus.WaitOptions) {
	o.Replaced = func(d fleetstatus.Device) string { return j.replaced(d) }
}
func (j jobCommand) notDoneFails() bool { return true }
