package fleetdevices

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/protoval"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// Resuming a zdm_fleet_devices whose create failed in part.
//
// When some creates of the first apply fail, the state keeps the devices
// created and Terraform taints the object; the next apply replaces it: a
// Delete of the tainted object (which only forgets) and a Create. Creating
// every device again would duplicate the ones that exist, so the
// replacement resumes the tainted object instead:
//
//   - Terraform refreshes the tainted object right before it plans the
//     replacement, in the same provider process: the read remembers it
//     (its private state says its create failed), and the plan of the
//     create plans the IDs of its devices as known values. Create then
//     writes only the keys without an ID.
//   - With -refresh=false there is no read: the Delete of the tainted
//     object, which Terraform runs before the Create of the replacement in
//     the same apply, remembers it, and Terraform's second plan of the
//     create (at apply time) plans the known IDs.
//   - With create_before_destroy, the Create comes before that Delete: its
//     apply-time plan lacks the IDs planned earlier, and Terraform stops
//     with "Provider produced inconsistent final plan" before anything is
//     sent. Only create_before_destroy with -refresh=false finds nothing.
//
// The devices resumed are the object's own (from its state), never found
// by a lookup, and only for a create in the same workspace. Whatever else
// changed meanwhile, the replacement finishes the object instead of
// starting again: a device whose name or fleet the configuration (or a
// change outside Terraform) made different is renamed or moved, and a key
// no longer in the map is forgotten, as an update would. An object is
// resumed by one create only (the first plan that matches it claims it);
// a create that matches two objects resumes neither. Either way, the
// duplicate check (devices.FleetNames.Refuse) refuses a create that would repeat a
// device the resource does not hold, so a plan the rule cannot tie to the
// object fails instead of duplicating it (so, for instance, with
// -refresh=false, where nothing is read before the plan).

// partialCreates holds the objects created in part that this provider
// configuration read or forgot, by workspace. It lives on providerData,
// which each configuration of the provider makes anew: one graph walk, as
// one provider process serves it (and as a test's long-lived server does
// too). Its zero value is ready to use.
type partialCreates struct {
	mu sync.Mutex
	m  map[string][]*partialCreate
}

// partialCreate is a remembered object, and whether a create claimed it.
type partialCreate struct {
	obj fleetDevicesObject
	// applied are the names of obj as its apply wrote them, before a read
	// recorded names changed outside Terraform (nil when not read).
	applied map[string]protoval.String
	claimed bool
}

// remember records an object created in part; applied are its names as
// the state held them before the read that found o (nil without a read).
func (p *partialCreates) remember(o *fleetDevicesObject, applied map[string]protoval.String) {
	if !o.workspaceID.IsKnown() || len(heldKeys(o.entries())) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string][]*partialCreate{}
	}
	ws := o.workspaceID.S
	for _, prev := range p.m[ws] {
		if prev.obj.fleetID == o.fleetID && slices.Equal(heldKeys(prev.obj.entries()), heldKeys(o.entries())) {
			prev.obj = *o
			if applied != nil {
				prev.applied = applied
			}
			return
		}
	}
	p.m[ws] = append(p.m[ws], &partialCreate{obj: *o, applied: applied})
}

// resumes tells whether a create of plan (and cfg, its configuration)
// finishes o: some device of o keeps its key in the plan, and either the
// fleet is the same (or left to o) or some such device keeps its name (as
// the service shows it, or as the apply wrote it). Names, fleet and drift
// may change together; a plan that changes the fleet and every name is a
// new object.
func resumes(o *partialCreate, cfg, plan *fleetDevicesObject) bool {
	overlap, someName := false, false
	for k, e := range o.obj.entries() {
		if e.id == "" {
			continue
		}
		name, in := plan.devices.M[k]
		if !in {
			continue
		}
		overlap = true
		someName = someName || name.IsKnown() && (name.S == e.name || name.S == o.applied[k].S)
	}
	sameFleet := cfg.fleetID.Null || (cfg.fleetID.IsKnown() && cfg.fleetID.S == o.obj.fleetID.S)
	return overlap && (sameFleet || someName)
}

// claim returns the one remembered object, not claimed yet, that a create
// of plan resumes, and claims it. Two candidates resume nothing.
func (p *partialCreates) claim(cfg, plan *fleetDevicesObject) (fleetDevicesObject, bool) {
	if !plan.workspaceID.IsKnown() || plan.devices.Null || plan.devices.Unknown {
		return fleetDevicesObject{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var found []*partialCreate
	for _, o := range p.m[plan.workspaceID.S] {
		if !o.claimed && resumes(o, cfg, plan) {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		return fleetDevicesObject{}, false
	}
	found[0].claimed = true
	return found[0].obj, true
}

// planResume plans a create that resumes a remembered object: the IDs of
// its devices still in the map are known, and so is its fleet when the
// configuration sets none. d is the provider's configuration (nil before
// it is known). It returns the object resumed, nil when none.
func planResume(d *connection.ProviderData, cfg, plan *fleetDevicesObject, diags *diag.Diagnostics) *fleetDevicesObject {
	if d == nil {
		return nil
	}
	o, ok := connection.Registry[partialCreates](d).claim(cfg, plan)
	if !ok {
		return nil
	}
	entries := o.entries()
	var kept, changed []string
	for _, k := range heldKeys(entries) {
		if _, in := plan.devices.M[k]; !in {
			continue
		}
		kept = append(kept, k)
		plan.deviceIDs.M[k] = protoval.KnownString(entries[k].id)
	}
	if cfg.fleetID.Null {
		plan.fleetID = o.fleetID
	}
	if plan.includeDetails.B {
		for _, k := range kept {
			if d, ok := plan.details.m[k]; ok {
				d.id = protoval.KnownString(entries[k].id)
				plan.details.m[k] = d
			}
		}
	}
	// The devices of keys no longer in the map go to new keys of their
	// names, as in an update (fleet_devices_gate.go), or are forgotten.
	carried := carryOver(entries, plan, diags)
	from := map[string]string{}
	for k, old := range carried {
		from[old] = k
	}
	var dropped []string
	for _, k := range heldKeys(entries) {
		if _, in := plan.devices.M[k]; !in && from[k] == "" {
			dropped = append(dropped, k)
		}
	}
	moved := cfg.fleetID.IsKnown() && cfg.fleetID.S != o.fleetID.S
	for _, k := range kept {
		if plan.devices.M[k].S != entries[k].name || moved {
			changed = append(changed, k)
		}
	}
	detail := fmt.Sprintf("The create of %s failed for some devices, so Terraform replaces it. The replacement finishes "+
		"it: it keeps the %d devices that exist (%s) and creates the %d keys without a device.",
		describeFleetDevices(o.workspaceID.S, o.fleetID.S), len(kept)+len(carried), devicesRef(entries, append(kept, slices.Sorted(maps.Values(carried))...)),
		len(plan.devices.M)-len(kept)-len(carried))
	if len(changed) > 0 {
		detail += fmt.Sprintf(" It renames or moves the %d of them whose name or fleet changed since: %s.", len(changed),
			devices.ListSome(objects.QuoteAll(changed)))
	}
	if len(dropped) > 0 {
		detail += fmt.Sprintf(" The %d devices of keys no longer in devices stay in the service and are forgotten: %s.",
			len(dropped), devicesRef(entries, dropped))
	}
	diags.AddWarning("Resuming a zdm_fleet_devices created in part", detail)
	return &o
}

// resumed returns the devices of the keys a create plans with a known ID
// (planResume), read with one list of the workspace, and the IDs of all
// of them (which an ambiguous create never adopts). A device the list
// lacks is an error of its key.
func resumed(ctx context.Context, d *connection.ProviderData, ws string, plan *fleetDevicesObject,
	diags *diag.Diagnostics) (map[string]*client.Device, map[string]bool) {
	found := map[string]*client.Device{}
	held := map[string]bool{}
	for _, id := range plan.deviceIDs.M {
		if id.IsKnown() {
			held[id.S] = true
		}
	}
	if len(held) == 0 {
		return found, held
	}
	all, err := d.Client.ListDevices(ctx, ws)
	if err != nil {
		diags.AddError("Cannot read the devices created earlier",
			"Resuming the create of "+describeFleetDevices(ws, plan.fleetID.S)+" needs the devices it created, and "+
				"listing the devices of the workspace failed: "+connection.DescribeError(err, ws)+" Apply again.")
		return found, held
	}
	d.SawWorkspace(ws)
	byID := connection.IndexDevices(all)
	var gone []string
	for _, k := range slices.Sorted(maps.Keys(plan.deviceIDs.M)) {
		id := plan.deviceIDs.M[k]
		if !id.IsKnown() {
			continue
		}
		if dev, ok := byID.Get(id.S); ok {
			found[k] = dev
			continue
		}
		gone = append(gone, fmt.Sprintf("%s (%s)", connection.Quote(k), id.S))
	}
	if len(gone) > 0 {
		diags.AddError("Devices created earlier are missing",
			"These devices, created by the earlier apply of "+describeFleetDevices(ws, plan.fleetID.S)+", are not in the "+
				"list of the workspace: "+strings.Join(gone, ", ")+". Apply again: the next refresh confirms that they are "+
				"gone, and the apply creates their keys again.")
	}
	return found, held
}
