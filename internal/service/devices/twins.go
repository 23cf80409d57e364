package devices

import (
	"context"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// Twins found after the fact.
//
// The checks before a create (the gate, duplicates.go, and the claims of
// the walk, name_claims.go) cannot see a create made at the same time by
// another process: two states applied together (a CI matrix over shards
// that share a device name), a provider alias, a person in the console. Both
// pass their checks and both create. So right after its writes, a
// resource that created (or renamed, or moved) devices lists its fleet
// again, afresh (never the shared list of the walk, which holds our writes
// but not the other process's), and another device of one of its names
// fails the apply, naming both. Of two creates at the same time, the one
// answered later lists after both exist, so at least one of the applies
// fails. The refresh of zdm_fleet_devices and zdm_device warns of such
// twins from then on, from the list it already has.

// Twin is a device of the fleet (Other) with the name of a device we wrote
// (Ours).
type Twin struct{ Name, Ours, Other string }

// FindTwins returns the devices of fleet in all whose name is that of a
// device in ours (name to its ID) and whose ID is another, except those
// skip holds (nil: none), sorted by name and ID.
func FindTwins(all []client.Device, fleet string, ours map[string]string, skip func(id string) bool) []Twin {
	var out []Twin
	for i := range all {
		dev := &all[i]
		if dev.FleetID() != fleet {
			continue
		}
		if id, ok := ours[dev.Name]; ok && id != dev.ID && (skip == nil || !skip(dev.ID)) {
			out = append(out, Twin{Name: dev.Name, Ours: id, Other: dev.ID})
		}
	}
	slices.SortFunc(out, func(a, b Twin) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Other, b.Other)
	})
	return out
}

// FreshTwins lists the devices of fleet of ws afresh, right after our
// writes (a list that starts after this call, shared with the checks of
// the walk that arrive before it starts: fresh_lists.go), and returns the twins of ours (name to ID) that no resource of
// this configuration holds (see FindTwins).
func FreshTwins(ctx context.Context, d *connection.ProviderData, ws, fleet string, ours map[string]string) ([]Twin, error) {
	if len(ours) == 0 || fleet == "" || mutantNoGate {
		return nil, nil
	}
	all, err := fleetDevicesAfter(ctx, d, ws, fleet)
	if err != nil {
		return nil, err
	}
	return FindTwins(all, fleet, ours, func(id string) bool { return d.Owns("device", id) }), nil
}

// twinItems formats twins for objects.ReportTwins and objects.WarnTwins.
func twinItems(twins []Twin) []string {
	items := make([]string, len(twins))
	for i, t := range twins {
		items[i] = objects.TwinItem(t.Name, t.Ours, t.Other)
	}
	return items
}

// stopUsingDevice says how a configuration stops managing a device.
const stopUsingDevice = "a removed block with lifecycle { destroy = false } for a zdm_device, or the key deleted from a " +
	"zdm_fleet_devices map"

// ReportTwins fails the apply of owner, which just wrote devices into fleet
// of ws, on the twins FreshTwins found, or warns when the list failed (err):
// the devices written are in the state either way (objects.ReportTwins).
func ReportTwins(owner, ws, fleet string, twins []Twin, err error, diags *diag.Diagnostics) {
	objects.ReportTwins("device", "fleet "+connection.Quote(fleet)+" of workspace "+connection.Quote(ws), ws, owner,
		twinItems(twins), err, stopUsingDevice, diags)
}

// WarnTwins warns, at a refresh, of the twins of the devices of owner
// (objects.WarnTwins).
func WarnTwins(owner, ws, fleet string, twins []Twin, diags *diag.Diagnostics) {
	objects.WarnTwins("device", "fleet "+connection.Quote(fleet)+" of workspace "+connection.Quote(ws), owner,
		twinItems(twins), stopUsingDevice, diags)
}

// checkTwins lists the fleet of the device that Create just wrote into
// resp's state, and reports its twins (see ReportTwins).
func (r *DeviceResource) checkTwins(ctx context.Context, resp *resource.CreateResponse) {
	if resp.Diagnostics.HasError() || resp.State.Raw.IsNull() || r.Data == nil {
		return
	}
	var state DeviceResourceModel
	if diags := resp.State.Get(ctx, &state); diags.HasError() || state.AllowDuplicateNames.ValueBool() {
		return
	}
	ws, fleet, name := state.WorkspaceID.ValueString(), state.FleetID.ValueString(), state.Name.ValueString()
	twins, err := FreshTwins(ctx, r.Data, ws, fleet, map[string]string{name: state.ID.ValueString()})
	ReportTwins("zdm_device "+connection.Quote(name), ws, fleet, twins, err, &resp.Diagnostics)
	if len(twins) > 0 {
		// Its refreshes check for twins even without a list at hand.
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, twinsPrivateKey, []byte("true"))...)
	}
}

// twinsPrivateKey marks, in the private state of a zdm_device, a device
// whose create met a twin.
const twinsPrivateKey = "twins"

// warnTwins warns of the twins of the device that Read just wrote into
// resp's state, from the list of its fleet that the reads of the walk hold
// already: no request of its own. The first read of a workspace is a GET,
// with no list; it is checked only for a device whose create met a twin,
// which then asks for the walk's shared list (one per plan).
func (r *DeviceResource) warnTwins(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if resp.Diagnostics.HasError() || resp.State.Raw.IsNull() || r.Data == nil {
		return
	}
	var state DeviceResourceModel
	if diags := resp.State.Get(ctx, &state); diags.HasError() || state.AllowDuplicateNames.ValueBool() {
		return
	}
	ws, fleet, name := state.WorkspaceID.ValueString(), state.FleetID.ValueString(), state.Name.ValueString()
	all, ok := r.Data.ListedFleetDevices(ws, fleet)
	if !ok {
		if flag, diags := req.Private.GetKey(ctx, twinsPrivateKey); diags.HasError() || len(flag) == 0 {
			return
		}
		var err error
		if all, err = r.Data.FleetDevices(ctx, ws, fleet); err != nil {
			return // the read succeeded; the next refresh checks again
		}
	}
	WarnTwins("zdm_device "+connection.Quote(name), ws, fleet,
		FindTwins(all, fleet, map[string]string{name: state.ID.ValueString()}, nil), &resp.Diagnostics)
}
