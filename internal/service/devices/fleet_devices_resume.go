package devices

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
// by a lookup, and only for a create of the same workspace whose map gives
// each of them the same key and name (and the same fleet when it sets one).

// partialCreates holds the objects created in part that this provider
// configuration read or forgot, by workspace. It lives on providerData,
// which each configuration of the provider makes anew: one graph walk, as
// one provider process serves it (and as a test's long-lived server does
// too). Its zero value is ready to use.
type partialCreates struct {
	mu sync.Mutex
	m  map[string][]fleetDevicesObject
}

// remember records an object created in part.
func (p *partialCreates) remember(o *fleetDevicesObject) {
	if !o.workspaceID.IsKnown() || len(heldKeys(o.entries())) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string][]fleetDevicesObject{}
	}
	ws := o.workspaceID.S
	for i, prev := range p.m[ws] {
		if prev.fleetID == o.fleetID && slices.Equal(heldKeys(prev.entries()), heldKeys(o.entries())) {
			p.m[ws][i] = *o
			return
		}
	}
	p.m[ws] = append(p.m[ws], *o)
}

// match returns the one remembered object that a create of plan (and cfg,
// its configuration) resumes: same workspace, same fleet when cfg sets one,
// and every device of the object under the same key and name in the plan.
// Two candidates resume nothing.
func (p *partialCreates) match(cfg, plan *fleetDevicesObject) (fleetDevicesObject, bool) {
	if !plan.workspaceID.IsKnown() || plan.devices.Null || plan.devices.Unknown {
		return fleetDevicesObject{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var found []fleetDevicesObject
	for _, o := range p.m[plan.workspaceID.S] {
		if !cfg.fleetID.Null && (!cfg.fleetID.IsKnown() || cfg.fleetID.S != o.fleetID.S) {
			continue
		}
		ok := true
		for k, e := range o.entries() {
			if name, in := plan.devices.M[k]; e.id != "" && (!in || !name.IsKnown() || name.S != e.name) {
				ok = false
				break
			}
		}
		if ok {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		return fleetDevicesObject{}, false
	}
	return found[0], true
}

// planResume plans a create that resumes a remembered object: the IDs of
// its devices are known, and so is its fleet. d is the provider's
// configuration (nil before it is known).
func planResume(d *connection.ProviderData, cfg, plan *fleetDevicesObject, diags *diag.Diagnostics) {
	if d == nil {
		return
	}
	o, ok := connection.Registry[partialCreates](d).match(cfg, plan)
	if !ok {
		return
	}
	entries := o.entries()
	held := heldKeys(entries)
	for _, k := range held {
		plan.deviceIDs.M[k] = protoval.KnownString(entries[k].id)
	}
	if cfg.fleetID.Null {
		plan.fleetID = o.fleetID
	}
	if plan.includeDetails.B {
		for _, k := range held {
			if d, ok := plan.details.m[k]; ok {
				d.id = protoval.KnownString(entries[k].id)
				plan.details.m[k] = d
			}
		}
	}
	missing := len(plan.devices.M) - len(held)
	diags.AddWarning("Resuming a zdm_fleet_devices created in part",
		fmt.Sprintf("The create of %s failed for some devices, so Terraform replaces it. The replacement keeps the %d "+
			"devices that exist, without writing them (%s), and creates the %d keys without a device.",
			describeFleetDevices(o.workspaceID.S, o.fleetID.S), len(held), devicesRef(entries, held), missing))
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
	byID := devicesByID(all)
	var gone []string
	for _, k := range slices.Sorted(maps.Keys(plan.deviceIDs.M)) {
		id := plan.deviceIDs.M[k]
		if !id.IsKnown() {
			continue
		}
		if dev, ok := byID[id.S]; ok {
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
