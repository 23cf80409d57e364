package fleetdevices

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices"
)

// Twins of a zdm_fleet_devices' devices (devices/twins.go): right after
// the writes of an apply, and at each refresh.

// checkTwins lists the fleet of state afresh after an apply that created
// devices (prior is nil for a create) and fails the apply on another device
// of the name of a device the apply created, renamed or moved, which no
// resource of this configuration holds (devices.ReportTwins). An apply
// that created nothing (a no-op, renames, moves) sends nothing for it.
func checkTwins(ctx context.Context, d *connection.ProviderData, prior, state *fleetDevicesObject, diags *diag.Diagnostics) {
	if state.allowDuplicates.B || !state.fleetID.IsKnown() || state.fleetID.S == "" {
		return
	}
	moved := prior != nil && prior.fleetID.S != state.fleetID.S
	ours := map[string]string{}
	created := prior == nil
	for k, id := range state.deviceIDs.M {
		if !id.IsKnown() {
			continue
		}
		name := state.devices.M[k]
		if prior != nil && !moved && prior.deviceIDs.M[k] == id && prior.devices.M[k] == name {
			continue // kept as it was
		}
		if prior != nil && prior.deviceIDs.M[k] != id {
			created = true // a new key's device (or one carried over to it)
		}
		ours[name.S] = id.S
	}
	if len(ours) == 0 || !created {
		return
	}
	ws, fleet := state.workspaceID.S, state.fleetID.S
	twins, err := devices.FreshTwins(ctx, d, ws, fleet, ours)
	devices.ReportTwins(describeFleetDevices(ws, fleet), ws, fleet, dropHeld(twins, state), err, diags)
}

// warnTwins warns, at a refresh, of devices of fleet in all (the list the
// refresh read) that have the name of a device of found (the state's
// devices, by key) but are not held by the state. A fleet whose devices are
// all the state's costs no more than a count.
func warnTwins(state *fleetDevicesObject, all []client.Device, found map[string]*client.Device, diags *diag.Diagnostics) {
	fleet := state.fleetID.S
	if state.allowDuplicates.B || fleet == "" {
		return
	}
	inFleet, ours := 0, 0
	for i := range all {
		if all[i].FleetID() == fleet {
			inFleet++
		}
	}
	for _, dev := range found {
		if dev.FleetID() == fleet {
			ours++
		}
	}
	if inFleet <= ours {
		return // every device of the fleet may be the state's
	}
	names := make(map[string]string, ours)
	for _, dev := range found {
		if dev.FleetID() == fleet {
			names[dev.Name] = dev.ID
		}
	}
	devices.WarnTwins(describeFleetDevices(state.workspaceID.S, fleet), state.workspaceID.S, fleet,
		dropHeld(devices.FindTwins(all, fleet, names, nil), state), diags)
}

// dropHeld returns twins without those whose other device state holds
// (under another key of the same name).
func dropHeld(twins []devices.Twin, state *fleetDevicesObject) []devices.Twin {
	if len(twins) == 0 {
		return nil
	}
	other := make(map[string]bool, len(twins))
	for _, t := range twins {
		other[t.Other] = true
	}
	held := map[string]bool{}
	for _, id := range state.deviceIDs.M {
		if id.IsKnown() && other[id.S] {
			held[id.S] = true
		}
	}
	out := twins[:0:0]
	for _, t := range twins {
		if !held[t.Other] {
			out = append(out, t)
		}
	}
	return out
}

// priorOrNil is prior, or nil when it is null (a create).
func priorOrNil(prior *fleetDevicesObject, null bool) *fleetDevicesObject {
	if null {
		return nil
	}
	return prior
}
