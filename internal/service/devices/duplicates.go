package devices

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// The gate of device creates.
//
// The API cannot delete a device, so a create that repeats a device that
// already exists makes a copy nobody can remove. Every plan of zdm_device
// and zdm_fleet_devices that would create devices passes one gate, which
// decides for each device to create whether it is one the resource
// already had (its record), one the service already holds, or new:
//
//   - Resume: the create of a zdm_fleet_devices that replaces an object
//     whose create failed in part takes that object's devices
//     (fleetdevices/fleet_devices_resume.go), whatever changed meanwhile.
//   - Carry over: a key the plan adds whose name is the name of exactly
//     one device of the record whose key the plan removes (a key renamed,
//     the name kept; or the keys by name of an import given other keys)
//     takes that device: no create, at most a rename or a move
//     (fleetdevices/fleet_devices_gate.go).
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
//
// The refusal by the service's devices, RefuseDuplicates, is here, for
// both resources; resume and carry over, which only zdm_fleet_devices
// has, are in package fleetdevices, which calls RefuseDuplicates last.

// AllowDuplicateNamesAttr is the opt-in attribute of both resources.
const AllowDuplicateNamesAttr = "allow_duplicate_names"

// AllowDuplicateNamesDescription is the description of
// AllowDuplicateNamesAttr in the schemas of both resources.
const AllowDuplicateNamesDescription = "Set to `true` to create devices even when the target fleet already has " +
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

// RefuseDuplicates fails the plan at attr when a create of names in fleet
// (the default fleet when "") of ws would repeat devices that exist and that
// the resource does not hold (held). importHint says how the devices come
// under the resource by import, given the fleet.
func RefuseDuplicates(ctx context.Context, d *connection.ProviderData, attr path.Path, ws, fleet string,
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
			connection.Quote(fleet), connection.Quote(ws), len(clashes), ListSome(items), importHint(fleet), AllowDuplicateNamesAttr))
}
