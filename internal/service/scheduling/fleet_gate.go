package scheduling

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// The gate of the fleet-wide sends of an update (see DESIGN.md, "Device
// commands are sent exactly as often as the configuration asks"): the
// service is the ledger. Right before a fleet-wide request, every device of
// the fleets it would reach is read (the fleet-status reader); the request
// is sent only when none of them already holds the command. Otherwise the
// command goes, one request each, to exactly the devices that lack it: a
// device moved into an added fleet from a fleet that had the command, or
// the devices of a fleet that was removed and added back, never run it
// twice.

// Gate tells how the gate of an update counts a device's record as the
// command already there.
type Gate struct {
	// Since, when not "", counts only a record scheduled after it (a change
	// of the command: the state's scheduling, at Since, is the old command;
	// a later matching record was sent by an earlier attempt of this
	// change). When "", any record of the command counts (a change of the
	// targets alone: the command is the one the state records).
	Since string
	// Record is the sender's own record of this very command: the devices
	// it reached with it (the state's devices, kept when fleets are
	// removed; on a replacement, those the Delete handed over: TakeSent).
	// Each counts as holding the command whatever the service shows now:
	// another value may have replaced it since, or the service purged the
	// record (DESIGN.md: the service for the present, the record for the
	// past). Empty after a change of the command.
	Record []string
}

// UpdateGate is the gate of an update whose command changed (command) or
// not, from the state's scheduled_at prior and the devices it recorded:
// the record counts only for the command it was made with.
func UpdateGate(command bool, prior string, recorded []string) *Gate {
	if command {
		return &Gate{Since: prior}
	}
	return &Gate{Record: recorded}
}

// recorded tells whether dev is in the gate's record (sorted).
func (g *Gate) recorded(dev string) bool {
	_, ok := slices.BinarySearch(g.Record, dev)
	return ok
}

// Sent is what a scheduling reached: the devices that hold the command,
// the latest scheduled_at, the status answered and, for a job, the value
// the service answered (nil when not told).
type Sent struct {
	Devices     []string
	ScheduledAt string
	Status      string
	Value       json.RawMessage
}

// FleetCommand is a fleet-wide send through the gate.
type FleetCommand struct {
	// Scope is the workspace and the fleets the request targets (none:
	// every fleet of the workspace).
	Scope fleetstatus.Scope
	// Kind and Matches tell the command: the record read on each device,
	// and whether it is this command (job value, firmware and version).
	Kind    fleetstatus.Kind
	Matches func(fleetstatus.Device) bool
	// What names the command in messages ("job \"sync\"").
	What string
	// Prior is the state's scheduled_at, for the read-back of a
	// per-device request whose answer was lost.
	Prior string
	// Fleet sends the fleet-wide request (with its own read-back); nil,
	// with an error in diags, when it failed.
	Fleet func() *Sent
	// Device sends the command to one device on ctx (which finishes a
	// request once sent).
	Device func(ctx context.Context, dev string) (scheduledAt, status string, err error)
}

// SendFleetCommand sends c through gate (nil on a create: any record of the
// command counts, as with a change of the targets alone). Every device of
// the scope is read first; with none holding the command, the fleet-wide
// request is sent; else the command is sent one device at a time to those that lack
// it, and the result holds the devices that had it and those it reached.
// It returns nil, with an error in diags, when the read or a send failed:
// the devices reached are named, and a new apply reads them again and does
// not resend to them.
func SendFleetCommand(ctx context.Context, d *connection.ProviderData, c FleetCommand, gate *Gate, diags *diag.Diagnostics) *Sent {
	if gate == nil {
		gate = &Gate{}
	}
	gate = &Gate{Since: gate.Since, Record: union(nil, gate.Record)}
	// The fleets hold still from the read to the fleet-wide request's
	// answer: a device moved in meanwhile would get the command twice.
	defer d.HoldFleets(c.Scope.WorkspaceID, c.Scope.FleetIDs)()
	target := objects.DescribeFleets(c.Scope.WorkspaceID, c.Scope.FleetIDs)
	summary := "Cannot schedule the " + c.What + " on " + target
	have, lack, at, err := gateFleet(ctx, d, c.Scope, c.Kind, c.Matches, gate)
	if err != nil {
		diags.AddError(summary, "Before a fleet-wide request, the provider reads the "+c.Kind.String()+" of every device of "+
			target+" so that no device runs it twice; that read failed, and nothing was sent: "+err.Error()+
			". Applying again reads them again.")
		return nil
	}
	tflog.Debug(ctx, "fleet-wide send gate", map[string]any{"what": c.What, "have": len(have), "lack": len(lack)})
	if len(have) == 0 {
		sent := c.Fleet()
		if sent != nil {
			// Devices recorded outside the fleets (moved away, or of a
			// fleet removed) stay in the record.
			sent.Devices = union(sent.Devices, gate.Record)
		}
		return sent
	}
	detail := fmt.Sprintf("%d devices of %s already have the %s (%s): the service shows it on them, or this "+
		"resource's record says it reached them; a fleet-wide request would run it on them again. ",
		len(have), target, c.What, connection.Abbreviate(have))
	if len(lack) == 0 {
		detail += "Every device of the fleets has it: nothing is sent."
	} else {
		detail += fmt.Sprintf("It is sent to the %d other devices (%s), one request each; devices that join the "+
			"fleets later do not get it until it is scheduled again.", len(lack), connection.Abbreviate(lack))
	}
	diags.AddWarning("The "+c.What+" is sent only to the devices that lack it", detail)
	// scheduled_at is never set back: a later change of the command counts
	// only records after it as already sent.
	res := &Sent{Devices: slices.Clone(have), ScheduledAt: at, Status: client.JobStatusPending}
	if c.Prior != "" && ScheduledLater(c.Prior, at) {
		res.ScheduledAt = c.Prior
	}
	for i, dev := range lack {
		got, ok := sendDevice(ctx, d, c, dev, summary, diags)
		if !ok {
			if len(res.Devices) > len(have) {
				diags.AddError(summary, fmt.Sprintf("The %s reached %d of the %d devices that lacked it (%s) before "+
					"this failure; %d were not sent to (%s). The state keeps its prior scheduling; applying again "+
					"reads every device and sends only to those that still lack it.", c.What, len(res.Devices)-len(have),
					len(lack), connection.Abbreviate(res.Devices[len(have):]), len(lack)-i, connection.Abbreviate(lack[i:])))
			}
			return nil
		}
		res.Devices = append(res.Devices, dev)
		if res.ScheduledAt == "" || ScheduledLater(got.ScheduledAt, res.ScheduledAt) {
			res.ScheduledAt = got.ScheduledAt
		}
	}
	res.Devices = union(res.Devices, gate.Record)
	return res
}

// union is the sorted set of the devices of a and b.
func union(a, b []string) []string {
	all := append(slices.Clone(a), b...)
	slices.Sort(all)
	return slices.Compact(all)
}

// sendDevice sends the command of c to dev and returns what the service
// shows; a lost answer is resolved by reading the device back.
func sendDevice(ctx context.Context, d *connection.ProviderData, c FleetCommand, dev, summary string, diags *diag.Diagnostics) (fleetstatus.Device, bool) {
	sent := time.Now()
	at, status, err := c.Device(client.FinishOnceSent(ctx), dev)
	switch {
	case errors.Is(err, client.ErrNotSent):
		diags.AddError(summary, NotSent(c.What, err))
		return fleetstatus.Device{}, false
	case errors.Is(err, client.ErrAmbiguous):
		s := SentSchedule{Cause: err, Sent: sent, Prior: c.Prior}
		got, ok, seen := ReadBackDevice(ctx, d, s, dev, c.Kind, c.Matches)
		if !ok {
			diags.AddError(summary, DeviceMaySchedule(d.Client, s, c.What, dev, seen,
				FleetStatusCheck(fleetstatus.Scope{WorkspaceID: c.Scope.WorkspaceID, DeviceIDs: []string{dev}}, c.Kind.Job)))
			return fleetstatus.Device{}, false
		}
		return got, true
	case err != nil:
		diags.AddError(summary, "Device "+dev+": "+err.Error())
		return fleetstatus.Device{}, false
	}
	return fleetstatus.Device{ID: dev, Found: true, ScheduledAt: at, Status: status}, true
}

// gateFleet reads the record of kind on every device of scope and splits
// them into the devices that hold the command and those that lack it,
// sorted, with the latest scheduled_at the service shows of those that hold
// it. A device holds it when the service shows it (the service for the
// present: matches, and scheduled after gate.Since when that is not ""), or
// when the gate's record has it (the record for the past). With no fleets
// in scope, only the devices of a fleet count (a request to every fleet
// reaches no other).
func gateFleet(ctx context.Context, d *connection.ProviderData, scope fleetstatus.Scope, kind fleetstatus.Kind, matches func(fleetstatus.Device) bool, gate *Gate) (have, lack []string, at string, err error) {
	since := gate.Since
	res, err := ReadFleetStatus(ctx, d.Client, scope, kind, 0)
	if err != nil {
		return nil, nil, "", err
	}
	for _, dev := range res.Devices {
		switch {
		case len(scope.FleetIDs) == 0 && dev.FleetID == "":
			continue
		case mutantNoGate:
			return nil, nil, "", nil // the positive control's hole: nobody has it, one fleet-wide request
		case dev.Found && matches(dev) && (since == "" || ScheduledLater(dev.ScheduledAt, since)):
			have = append(have, dev.ID)
			if at == "" || ScheduledLater(dev.ScheduledAt, at) {
				at = dev.ScheduledAt
			}
		case gate.recorded(dev.ID):
			have = append(have, dev.ID)
		default:
			lack = append(lack, dev.ID)
		}
	}
	return have, lack, at, nil
}

// HeldOnDevice is the gate of a create on one device: right before the
// command is sent, the device's record of kind is read. When it already
// holds the command (matches: the same job value, or the same firmware and
// version), the record is returned with true and a warning: the create
// adopts it and sends nothing (a replacement, a taint, or a resource
// removed and added back never runs it twice). When the service does not
// show it but recorded (the sender's own record, handed over by the Delete
// of a replacement: TakeSent; nil when none) has the device, the device
// counts as holding it all the same, with the record's scheduled_at and
// status: the service may have purged the record, or another value
// replaced it since. A new resource has no prior triggers, so triggers set
// on a create do not send it either; changing them later does. It returns
// false, with an error in diags when the read failed (nothing was sent),
// otherwise when the command is to be sent.
func HeldOnDevice(ctx context.Context, d *connection.ProviderData, dev string, kind fleetstatus.Kind, matches func(fleetstatus.Device) bool, what string, recorded *Sent, diags *diag.Diagnostics) (fleetstatus.Device, bool) {
	got, err := fleetstatus.ReadIDs(ctx, d.Client, []string{dev}, kind, 1)
	if err != nil {
		diags.AddError("Cannot schedule the "+what+" on device "+dev, "Before sending, the provider reads the "+
			kind.String()+" of device "+dev+" so that it never runs twice; that read failed, and nothing was sent: "+
			err.Error()+". Applying again reads it again.")
		return fleetstatus.Device{}, false
	}
	if len(got) != 1 || !got[0].Found || !matches(got[0]) {
		if recorded == nil || !slices.Contains(recorded.Devices, dev) {
			return fleetstatus.Device{}, false
		}
		tflog.Debug(ctx, "device recorded as reached", map[string]any{"what": what, "device_id": dev})
		diags.AddWarning("The "+what+" was already sent to device "+dev+": not sent again",
			fmt.Sprintf("The resource being replaced recorded the %s as sent to device %s, scheduled at %s, and the "+
				"command is unchanged, so the replacement takes it into the state without sending it: the service no "+
				"longer shows it on the device (its record was purged, or another value or firmware replaced it since), "+
				"but sending it would run it again. Changing triggers sends it again.", what, dev, recorded.ScheduledAt))
		return fleetstatus.Device{ID: dev, ScheduledAt: recorded.ScheduledAt, Status: recorded.Status}, true
	}
	tflog.Debug(ctx, "device already holds the command", map[string]any{"what": what, "device_id": dev})
	diags.AddWarning("The "+what+" is already scheduled on device "+dev+": not sent again",
		fmt.Sprintf("Device %s already holds the %s, scheduled at %s (status %s), so it is taken into the state "+
			"without sending it: sending it would run it again. Changing triggers sends it again.",
			dev, what, got[0].ScheduledAt, got[0].Status))
	return got[0], true
}
