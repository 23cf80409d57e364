package fleets

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// Twins of a fleet found after the fact (objects/twins.go): right after
// its create, and at each refresh.

// stopUsingFleet says how a configuration stops managing a fleet.
const stopUsingFleet = "a removed block with lifecycle { destroy = false }, after moving its devices"

// fleetTwins returns the fleets of all named name other than id, except
// those skip holds (nil: none), as objects.TwinItem.
func fleetTwins(all []client.Fleet, name, id string, skip func(string) bool) []string {
	var items []string
	for _, f := range all {
		if f.Name == name && f.ID != id && (skip == nil || !skip(f.ID)) {
			items = append(items, objects.TwinItem(name, id, f.ID))
		}
	}
	return items
}

// checkTwins lists the fleets of the workspace afresh right after Create
// wrote the fleet into resp's state, and fails the apply on another fleet
// of its name that no resource of this configuration holds.
func (r *FleetResource) checkTwins(ctx context.Context, resp *resource.CreateResponse) {
	if resp.Diagnostics.HasError() || resp.State.Raw.IsNull() || r.Data == nil {
		return
	}
	var state FleetResourceModel
	if diags := resp.State.Get(ctx, &state); diags.HasError() || state.AllowDuplicateNames.ValueBool() {
		return
	}
	ws, name, id := state.WorkspaceID.ValueString(), state.Name.ValueString(), state.ID.ValueString()
	all, err := r.Data.Client.ListFleets(ctx, ws)
	twins := fleetTwins(all, name, id, func(id string) bool { return r.Data.Owns("fleet", id) })
	objects.ReportTwins("fleet", "workspace "+connection.Quote(ws), ws, "zdm_fleet "+connection.Quote(name),
		twins, err, stopUsingFleet, &resp.Diagnostics)
	if len(twins) > 0 {
		// Its refreshes check for twins even without a list at hand.
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, twinsPrivateKey, []byte("true"))...)
	}
}

// twinsPrivateKey marks, in the private state of a zdm_fleet, a fleet
// whose create met a twin.
const twinsPrivateKey = "twins"

// warnTwins warns, at a refresh, of other fleets of the name of the fleet
// Read wrote into resp's state, from the list of fleets that the reads of
// the walk hold already: no request of its own. The first read of a
// workspace is a GET, with no list; it is checked only for a fleet whose
// create met a twin, which then asks for the walk's shared list.
func (r *FleetResource) warnTwins(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if resp.Diagnostics.HasError() || resp.State.Raw.IsNull() || r.Data == nil {
		return
	}
	var state FleetResourceModel
	if diags := resp.State.Get(ctx, &state); diags.HasError() || state.AllowDuplicateNames.ValueBool() {
		return
	}
	ws, name := state.WorkspaceID.ValueString(), state.Name.ValueString()
	all, ok := r.Data.ListedFleets(ws)
	if !ok {
		if flag, diags := req.Private.GetKey(ctx, twinsPrivateKey); diags.HasError() || len(flag) == 0 {
			return
		}
		var err error
		if all, err = r.Data.ListFleets(ctx, ws); err != nil {
			return // the read succeeded; the next refresh checks again
		}
	}
	objects.WarnTwins("fleet", "workspace "+connection.Quote(ws), "zdm_fleet "+connection.Quote(name),
		fleetTwins(all, name, state.ID.ValueString(), nil), stopUsingFleet, &resp.Diagnostics)
}
