package devices

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/protoval"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// The gate of device creates.
//
// The API cannot delete a device, so a create that repeats a device that
// already exists makes a copy nobody can remove. Every plan of zdm_device
// and zdm_fleet_devices that would create devices passes one gate, here,
// which decides for each device to create whether it is one the resource
// already had (its record), one the service already holds, or new:
//
//   - Resume: the create of a zdm_fleet_devices that replaces an object
//     whose create failed in part takes that object's devices
//     (fleet_devices_resume.go), whatever changed meanwhile.
//   - Carry over: a key the plan adds whose name is the name of exactly
//     one device of the record whose key the plan removes (a key renamed,
//     the name kept; or the keys by name of an import given other keys)
//     takes that device: no create, at most a rename or a move.
//   - Refuse: a name that still needs a create and that a device of the
//     record being dropped has, without a one-to-one match, or that a
//     device of the target fleet has which the resource does not keep,
//     fails the plan with the devices and the ways out, unless
//     allow_duplicate_names is true.
//
// Only the devices the plan keeps under a key count as held: a device
// whose key the plan removes is forgotten, and its name is free only once
// it is carried over. The gate runs in every plan that creates devices, so
// also in Terraform's final plan at apply, once values unknown at plan
// time are known, right before the create; a plan that creates nothing
// sends no request for it.

// allowDuplicateNamesAttr is the opt-in attribute of both resources.
const allowDuplicateNamesAttr = "allow_duplicate_names"

const allowDuplicateNamesDescription = "Set to `true` to create devices even when the target fleet already has " +
	"devices of the same names that this resource does not hold. By default such a plan fails, because the API cannot " +
	"delete a device: a create that repeats an existing device (after `terraform taint`, `-replace`, a renamed " +
	"`for_each` key or a changed resource address) would leave a second copy forever. Set it only when you want " +
	"several devices with one name."

// nameClash is a device of the target fleet that has a name a create would use.
type nameClash struct{ name, id string }

// existingNames returns the devices of fleet (the default fleet of ws when
// fleet is "") whose name is in names and whose ID is not in held, sorted
// by name and ID, and the fleet it looked in.
func existingNames(ctx context.Context, d *connection.ProviderData, ws, fleet string, names map[string]bool,
	held map[string]bool) ([]nameClash, string, error) {
	if len(names) == 0 || mutantNoGate {
		return nil, fleet, nil
	}
	if fleet == "" {
		fleets, err := d.ListFleets(ctx, ws)
		if err != nil {
			return nil, "", err
		}
		if fleet = objects.DefaultFleetOf(fleets); fleet == "" {
			return nil, "", nil // no default fleet: the create fails anyway
		}
	}
	// A list that holds every device of fleet answers: a name clash is
	// only ever within the fleet.
	all, err := d.FleetDevices(ctx, ws, fleet)
	if err != nil {
		return nil, fleet, err
	}
	d.SawWorkspace(ws)
	var out []nameClash
	for i := range all {
		dev := &all[i]
		if dev.FleetID() == fleet && names[dev.Name] && !held[dev.ID] {
			out = append(out, nameClash{name: dev.Name, id: dev.ID})
		}
	}
	slices.SortFunc(out, func(a, b nameClash) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	return out, fleet, nil
}

// refuseDuplicates fails the plan at attr when a create of names in fleet
// (the default fleet when "") of ws would repeat devices that exist and that
// the resource does not hold (held). importHint says how the devices come
// under the resource by import, given the fleet.
func refuseDuplicates(ctx context.Context, d *connection.ProviderData, attr path.Path, ws, fleet string,
	names, held map[string]bool, importHint func(fleet string) string, diags *diag.Diagnostics) {
	clashes, fleet, err := existingNames(ctx, d, ws, fleet, names, held)
	if objects.CheckListFailed(ctx, attr, "device", ws, err, "This plan creates devices, and before any create the "+
		"provider makes sure that none of them exists already, because the API cannot delete a copy.",
		"devices of workspace "+connection.Quote(ws), diags) {
		return
	}
	if len(clashes) == 0 {
		return
	}
	items := make([]string, 0, len(clashes))
	for _, c := range clashes {
		items = append(items, connection.Quote(c.name)+" ("+c.id+")")
	}
	diags.AddAttributeError(attr, "Devices with these names already exist",
		fmt.Sprintf("Fleet %s of workspace %s already has %d devices with names that this plan would create again, "+
			"and this resource does not hold them: %s. The API cannot delete a device, so creating them would leave "+
			"second copies forever. Nothing was sent.\n\n"+
			"If they are this resource's devices (after terraform taint, -replace, a renamed for_each key or a changed "+
			"resource address), keep them: run terraform untaint on the address, drop -replace, or add a moved block "+
			"from the old address to the new one. If they were made outside this resource, import them %s "+
			"To create second devices with the same names anyway, set %s = true.",
			connection.Quote(fleet), connection.Quote(ws), len(clashes), listSome(items), importHint(fleet), allowDuplicateNamesAttr))
}

// gate is the gate of a plan of zdm_fleet_devices (prior is nil for a
// create): it plans the IDs of the devices resumed or carried over, warns
// about the devices forgotten, and refuses second copies. It plans
// nothing while devices is unknown: Terraform's final plan at apply,
// which knows it, passes the gate then.
func (s *fleetDevicesServer) gate(ctx context.Context, prior, cfg, plan *fleetDevicesObject, diags *diag.Diagnostics) {
	if plan.devices.Unknown || plan.deviceIDs.Unknown {
		return
	}
	if prior == nil {
		planResume(s.data(), cfg, plan, diags) // carries over the devices of the object it resumes
	} else {
		entries := prior.entries()
		carried := carryOver(entries, plan, diags)
		from := make(map[string]bool, len(carried))
		for _, k := range carried {
			from[k] = true
		}
		var removed []string
		for _, k := range slices.Sorted(maps.Keys(entries)) {
			if _, ok := plan.devices.M[k]; !ok && entries[k].id != "" && !from[k] {
				removed = append(removed, k)
			}
		}
		if len(removed) > 0 {
			diags.AddWarning("Removed devices are only forgotten",
				fmt.Sprintf("The ZDM API has no delete operation: the %d devices removed from the devices map stay in the "+
					"service, and Terraform stops managing them: %s.", len(removed), devicesRef(entries, removed)))
		}
		warnCarried(entries, carried, diags)
	}
	if diags.HasError() {
		return
	}
	s.refuseDuplicates(ctx, cfg, plan, diags)
}

// carryOver gives the keys that plan adds the devices of record (the
// resource's devices by key, as its state holds them) whose keys the plan
// drops, where one such device and one added key have the same name: it
// plans their IDs, and returns the new key of each device carried over
// with its key in record. A name that several added keys or several
// dropped devices share carries nothing, and fails the plan unless
// allow_duplicate_names allows second copies.
func carryOver(record map[string]fleetDevice, plan *fleetDevicesObject, diags *diag.Diagnostics) map[string]string {
	planned := map[string]bool{}
	for _, id := range plan.deviceIDs.M {
		if id.IsKnown() {
			planned[id.S] = true
		}
	}
	dropped := map[string][]string{} // name -> keys of record whose device the plan drops
	for _, k := range slices.Sorted(maps.Keys(record)) {
		if e := record[k]; e.id != "" && !planned[e.id] {
			if _, kept := plan.devices.M[k]; !kept {
				dropped[e.name] = append(dropped[e.name], k)
			}
		}
	}
	if len(dropped) == 0 {
		return nil
	}
	added := map[string][]string{} // name -> keys the plan adds with that name
	for _, k := range slices.Sorted(maps.Keys(plan.deviceIDs.M)) {
		if name := plan.devices.M[k]; !plan.deviceIDs.M[k].IsKnown() && name.IsKnown() && len(dropped[name.S]) > 0 {
			added[name.S] = append(added[name.S], k)
		}
	}
	carried := map[string]string{}
	var unclear []string
	for _, name := range slices.Sorted(maps.Keys(added)) {
		keys, old := added[name], dropped[name]
		if len(keys) == 1 && len(old) == 1 {
			e := record[old[0]]
			carried[keys[0]] = old[0]
			plan.deviceIDs.M[keys[0]] = protoval.KnownString(e.id)
			if d, ok := plan.details.m[keys[0]]; ok {
				d.id = protoval.KnownString(e.id)
				plan.details.m[keys[0]] = d
			}
			continue
		}
		ids := make([]string, len(old))
		for i, k := range old {
			ids[i] = record[k].id
		}
		unclear = append(unclear, fmt.Sprintf("%s (%s) for keys %s", connection.Quote(name), strings.Join(ids, ", "),
			strings.Join(quoteAll(keys), ", ")))
	}
	if len(unclear) > 0 && !plan.allowDuplicates.B && !plan.allowDuplicates.Unknown {
		diags.AddAttributeError(path.Root("devices"), "Devices with these names already exist",
			fmt.Sprintf("This plan removes the keys of %d device names from devices and adds keys with the same names, "+
				"but not one key for one device, so which key keeps which device is not clear: %s. The API cannot "+
				"delete a device, so creating them would leave second copies forever. Nothing was sent.\n\n"+
				"Give each existing device one key: a key renamed with its name kept keeps its device. Give the other "+
				"keys other names. To create second devices with the same names anyway, set %s = true.",
				len(unclear), listSome(unclear), allowDuplicateNamesAttr))
	}
	return carried
}

// warnCarried says which devices of entries carryOver gave new keys.
func warnCarried(entries map[string]fleetDevice, carried map[string]string, diags *diag.Diagnostics) {
	if len(carried) == 0 {
		return
	}
	items := make([]string, 0, len(carried))
	for _, k := range slices.Sorted(maps.Keys(carried)) {
		e := entries[carried[k]]
		items = append(items, fmt.Sprintf("%s (%s): %s to %s", connection.Quote(e.name), e.id,
			connection.Quote(carried[k]), connection.Quote(k)))
	}
	diags.AddWarning("Renamed keys keep their devices",
		fmt.Sprintf("The keys of %d devices change and their names stay, so each new key takes the existing device "+
			"instead of creating a second one: %s.", len(items), listSome(items)))
}
