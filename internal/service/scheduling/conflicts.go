package scheduling

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
)

// One value of a command per fleet in a configuration.
//
// A device holds one value of a job of a given name, and one firmware. Two
// resources of one configuration that send the same job with different
// values (or different firmware) to the devices of one fleet undo each
// other, and the gate cannot keep them from sending a value twice: the
// service shows only the value a device holds now, so once the second
// value replaced the first, a third send of the first (another rollout of
// it, a new salt, a fleet added) finds the devices without it and sends it
// again. Which devices each one sent it to is in the other resource's
// state, which a plan of this one does not read. So such a configuration is
// refused at plan, before any send: every fleet-wide resource that sends a
// command (zdm_fleet_job, fleet-wide zdm_fota, zdm_job_rollout,
// zdm_fota_rollout) claims its command, value and fleets in the plan's
// graph walk (connection.Registry), and a claim of another value of the
// same command on a shared fleet is an error. Terraform plans every
// resource of the configuration in one walk, so whichever is planned second
// reports it. A resource planned for destroy claims nothing, so replacing
// one resource by another of a new value in one edit is allowed.
//
// A resource that sends to one device (zdm_device_job, device-mode
// zdm_fota) claims its command for that device and, where the device's
// fleet is known at plan (a device of the provider's workspace, read only
// when a fleet-wide claim of another value meets it), for the device of
// that fleet: another value of the same command for its fleet, or for every
// fleet, or for the same device, is refused the same way.
//
// Fleets unknown at plan (created in the same apply), devices whose fleet
// cannot be read at plan, and resources of other configurations (other
// states, other provider configurations, a -target apply) are not
// compared: there, the sender's own record keeps the gate from sending a
// value twice (sent_record.go).

// CommandClaim is what one planned resource sends: Command names the job
// or the firmware (`job "reboot"`, "firmware"), Value the value (the
// job's compact JSON, the firmware's ID and version), Fleets its fleets
// (every fleet of the workspace when All). Owner names the resource in
// the error (`zdm_job_rollout with salt "s1"`). Values are compared as
// JSON (jsonvalue.Equal), other text as it is. Device, when not "", is the
// one device the command goes to; Fleets then holds its fleet, when known.
type CommandClaim struct {
	Workspace string
	Command   string
	Value     string
	Fleets    []string
	All       bool
	Device    string
	Owner     string
}

// commandClaims holds the claims of one walk by workspace and command;
// its zero value is ready.
type commandClaims struct {
	mu sync.Mutex
	m  map[string][]CommandClaim
}

// overlap returns the targets both claims send to, fleets ("every fleet"
// when both are every fleet) or a device ("device D of fleet F"), nil when
// none.
func (c CommandClaim) overlap(o CommandClaim) []string {
	switch {
	case c.Device != "" && o.Device != "":
		if c.Device == o.Device {
			return []string{"device " + c.Device}
		}
		return nil
	case o.Device != "":
		return o.overlap(c)
	case c.Device != "":
		if len(o.Fleets) == 0 && !o.All || len(c.Fleets) == 0 || !o.All && !slices.Contains(o.Fleets, c.Fleets[0]) {
			return nil
		}
		return []string{"device " + c.Device + " of fleet " + c.Fleets[0]}
	case c.All && o.All:
		return []string{"every fleet"}
	case c.All:
		return o.Fleets
	case o.All:
		return c.Fleets
	}
	var both []string
	for _, f := range c.Fleets {
		if slices.Contains(o.Fleets, f) {
			both = append(both, f)
		}
	}
	return both
}

// ClaimCommand records that the planned resource c sends its command, and
// adds an error when another resource of this walk sends the same command
// with another value to one of its fleets, or to its device (see above).
// The fleet of a device claim is the one c gives.
func ClaimCommand(d *connection.ProviderData, c CommandClaim, diags *diag.Diagnostics) {
	claim(d, c, nil, diags)
}

// claim is ClaimCommand. fleetOf, when not nil, reads the fleet of a device
// whose claim names none ("" when not known): only for a device claim and a
// fleet-wide claim of another value of the same command, after the claim
// is recorded (never under the registry's lock). Whichever of the two comes
// second reads it, so a plan reads no device unless two values of a
// command meet.
func claim(d *connection.ProviderData, c CommandClaim, fleetOf func(dev string) string, diags *diag.Diagnostics) {
	if d == nil {
		return
	}
	r := connection.Registry[commandClaims](d)
	r.mu.Lock()
	if r.m == nil {
		r.m = map[string][]CommandClaim{}
	}
	key := c.Workspace + "\x00" + c.Command
	var unresolved []CommandClaim
	for _, o := range r.m[key] {
		if jsonvalue.Equal(o.Value, c.Value) {
			continue
		}
		if targets := c.overlap(o); len(targets) > 0 {
			r.mu.Unlock()
			claimConflict(c, o, targets, diags)
			return
		}
		if fleetOf != nil && (c.Device == "") != (o.Device == "") &&
			(c.Device == "" || len(c.Fleets) == 0) && (o.Device == "" || len(o.Fleets) == 0) {
			unresolved = append(unresolved, o)
		}
	}
	r.m[key] = append(r.m[key], c)
	r.mu.Unlock()
	fleets := map[string]string{}
	resolve := func(x CommandClaim) CommandClaim {
		if x.Device == "" || len(x.Fleets) > 0 {
			return x
		}
		f, ok := fleets[x.Device]
		if !ok {
			f = fleetOf(x.Device)
			fleets[x.Device] = f
		}
		if f != "" {
			x.Fleets = []string{f}
		}
		return x
	}
	for _, o := range unresolved {
		a, b := resolve(c), resolve(o)
		if targets := a.overlap(b); len(targets) > 0 {
			claimConflict(a, b, targets, diags)
			return
		}
	}
}

// claimConflict adds the error of claim c meeting the earlier claim o of
// another value on targets.
func claimConflict(c, o CommandClaim, targets []string, diags *diag.Diagnostics) {
	sort.Strings(targets)
	diags.AddError("Two values of "+c.Command+" for one fleet",
		"This configuration sends "+c.Command+" to "+describeTargets(targets)+
			" (workspace "+c.Workspace+") with two values: "+o.Value+" ("+o.Owner+") and "+c.Value+
			" ("+c.Owner+"). A device holds one value of a job and one firmware, so each would replace "+
			"the other's, and the next send of a value a device no longer shows would reach it a second "+
			"time. Nothing was sent. Keep one value per fleet: change the value of one of these resources "+
			"(a new value is a new rollout) and remove the others from the configuration (the API cannot "+
			"cancel what they sent; removing them only forgets it), or give them fleets (or devices) of their own.")
}

// deviceFleet is the fleetOf of claim for the provider d: the fleet of a
// device of the provider's workspace, read with one request ("" without a
// provider workspace_id, or when the device cannot be read: created in the
// same apply, or of another workspace).
func deviceFleet(ctx context.Context, d *connection.ProviderData) func(dev string) string {
	return func(dev string) string {
		if d.WorkspaceID == "" {
			return ""
		}
		got, err := d.Client.GetDevice(ctx, d.WorkspaceID, dev)
		if err != nil || got == nil {
			if err != nil {
				tflog.Debug(ctx, "device not read for the claim of its command", map[string]any{"device_id": dev, "error": err.Error()})
			}
			return ""
		}
		return got.FleetID()
	}
}

// describeTargets names the shared targets of overlap in the error.
func describeTargets(targets []string) string {
	if strings.HasPrefix(targets[0], "device ") {
		return strings.Join(targets, ", ")
	}
	return "the devices of " + strings.Join(targets, ", ")
}

// ClaimDevice is ClaimCommand for a resource that sends to device dev (when
// known) of the provider's workspace. The device's fleet is read only when
// a fleet-wide claim of another value of the command meets it (deviceFleet).
// Nothing is claimed while the device or the value are unknown.
func ClaimDevice(ctx context.Context, d *connection.ProviderData, dev types.String, command, value, owner string, diags *diag.Diagnostics) {
	if d == nil || !values.Known(dev) || value == "" {
		return
	}
	claim(d, CommandClaim{Workspace: d.WorkspaceID, Command: command, Value: value, Device: dev.ValueString(), Owner: owner},
		deviceFleet(ctx, d), diags)
}

// ClaimFleets is ClaimCommand for a resource whose targets are fleetIDs or
// all: nothing is claimed while the workspace, the targets or the value
// are unknown (value "").
func ClaimFleets(ctx context.Context, d *connection.ProviderData, ws types.String, fleetIDs types.Set, all types.Bool,
	command, value, owner string, diags *diag.Diagnostics) {
	if ws.IsUnknown() || ws.IsNull() || fleetIDs.IsUnknown() || all.IsUnknown() || value == "" {
		return
	}
	var ids []string
	for _, e := range fleetIDs.Elements() {
		if e.IsUnknown() {
			return
		}
	}
	ids = values.SetStrings(ctx, fleetIDs, diags)
	claim(d, CommandClaim{Workspace: ws.ValueString(), Command: command, Value: value, Fleets: ids,
		All: all.ValueBool(), Owner: owner}, deviceFleet(ctx, d), diags)
}
