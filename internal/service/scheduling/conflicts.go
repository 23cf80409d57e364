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
// fleet is known at plan (a device of the provider's workspace, read
// through the batched device list), for the device of that fleet: another
// value of the same command for its fleet, or for every fleet, or for the
// same device, is refused the same way.
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
// with another value to one of its fleets (see above).
func ClaimCommand(d *connection.ProviderData, c CommandClaim, diags *diag.Diagnostics) {
	if d == nil {
		return
	}
	r := connection.Registry[commandClaims](d)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string][]CommandClaim{}
	}
	key := c.Workspace + "\x00" + c.Command
	for _, o := range r.m[key] {
		if jsonvalue.Equal(o.Value, c.Value) {
			continue
		}
		if fleets := c.overlap(o); len(fleets) > 0 {
			sort.Strings(fleets)
			diags.AddError("Two values of "+c.Command+" for one fleet",
				"This configuration sends "+c.Command+" to "+describeTargets(fleets)+
					" (workspace "+c.Workspace+") with two values: "+o.Value+" ("+o.Owner+") and "+c.Value+
					" ("+c.Owner+"). A device holds one value of a job and one firmware, so each would replace "+
					"the other's, and the next send of a value a device no longer shows would reach it a second "+
					"time. Nothing was sent. Keep one value per fleet: change the value of one of these resources "+
					"(a new value is a new rollout) and remove the others from the configuration (the API cannot "+
					"cancel what they sent; removing them only forgets it), or give them fleets (or devices) of their own.")
			return
		}
	}
	r.m[key] = append(r.m[key], c)
}

// describeTargets names the shared targets of overlap in the error.
func describeTargets(targets []string) string {
	if strings.HasPrefix(targets[0], "device ") {
		return strings.Join(targets, ", ")
	}
	return "the devices of " + strings.Join(targets, ", ")
}

// ClaimDevice is ClaimCommand for a resource that sends to device dev (when
// known) of the provider's workspace: the device's fleet is read through the
// batched device list (connection.ProviderData.ReadDevice). Nothing is
// claimed while the device or the value are unknown, or without a provider
// workspace_id; a device that cannot be read at plan (created in the same
// apply, or of another workspace) is claimed without a fleet.
func ClaimDevice(ctx context.Context, d *connection.ProviderData, dev types.String, command, value, owner string, diags *diag.Diagnostics) {
	if d == nil || !values.Known(dev) || value == "" {
		return
	}
	c := CommandClaim{Workspace: d.WorkspaceID, Command: command, Value: value, Device: dev.ValueString(), Owner: owner}
	if d.WorkspaceID != "" {
		if got, err := d.ReadDevice(ctx, d.WorkspaceID, c.Device); err == nil && got != nil && got.FleetID() != "" {
			c.Fleets = []string{got.FleetID()}
		} else if err != nil {
			tflog.Debug(ctx, "device not read for the claim of its command", map[string]any{"device_id": c.Device, "error": err.Error()})
		}
	}
	ClaimCommand(d, c, diags)
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
	ClaimCommand(d, CommandClaim{Workspace: ws.ValueString(), Command: command, Value: value, Fleets: ids,
		All: all.ValueBool(), Owner: owner}, diags)
}
