package devices

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/zdm/terraform-provider-zdm/internal/client"
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
//     allow_duplicate_names is true. The same rule holds for the names
//     that devices the resource keeps take by a rename, or keep while they
//     move into another fleet (FleetNames): two devices of one name in one
//     fleet are the copy refused, however the second one got there.
//
// Only the devices the plan keeps under a key count as held: a device
// whose key the plan removes is forgotten, and its name is free only once
// it is carried over. The gate runs in every plan that creates, renames or
// moves devices, so also in Terraform's final plan at apply, once values
// unknown at plan time are known, right before the write; a plan that
// gives no device a new name or fleet sends no request for it. A list the
// check cannot read fails the plan (objects.CheckListFailed); so does a
// create in the default fleet when the provider cannot tell that fleet
// (no fleet, or several, named "default") and a device of the workspace
// has one of the names.
//
// The refusal by the service's devices, FleetNames.Refuse, is here, for
// both resources; resume and carry over, which only zdm_fleet_devices
// has, are in package fleetdevices, which calls FleetNames.Refuse last.

// AllowDuplicateNamesAttr is the opt-in attribute of both resources.
const AllowDuplicateNamesAttr = "allow_duplicate_names"

// AllowDuplicateNamesDescription is the description of
// AllowDuplicateNamesAttr in the schemas of both resources.
const AllowDuplicateNamesDescription = "Set to `true` to create devices, or rename or move them, even when the " +
	"target fleet already has devices of the same names that this resource does not hold. By default such a plan " +
	"fails, because the API cannot delete a device: a create that repeats an existing device (after `terraform taint`, " +
	"`-replace`, a renamed `for_each` key, a changed resource address or an apply killed before it saved the state) " +
	"would leave a second copy forever, and a rename or move to a taken name makes the same twins. It also skips the " +
	"service read of that check, so a plan with it does not fail when the devices cannot be listed. Set it only when " +
	"you want several devices with one name."

// FleetNames are the names a plan gives devices in one fleet, for the
// check of the names taken there: the names it creates, and the names that
// devices the resource holds take by a rename, or keep while they move into
// the fleet. One rule covers both: two devices of one name in one fleet are
// the copy the check refuses, however the second one got there.
type FleetNames struct {
	// Attr is the attribute the refusal is reported on.
	Attr path.Path
	// Ws is the workspace; Fleet the fleet, "" for the workspace's default
	// fleet (a create without fleet_id).
	Ws, Fleet string
	// Created are the names the plan creates; Arriving those that devices
	// it holds take by a rename or a move into Fleet.
	Created, Arriving map[string]bool
	// Held are the IDs of the devices the plan keeps: never a clash.
	Held map[string]bool
	// Import says how the devices found (in fleet) come under the
	// resource: a sentence, then import blocks.
	Import func(fleet string, found []objects.NameClash) string
}

// defaultFleetUnknown is the answer of existingNames when the devices go
// to the workspace's default fleet and the provider cannot tell it:
// named are the fleets named "default" (none, or several).
type defaultFleetUnknown struct{ named []string }

// existingNames returns the devices of fleet (the default fleet of ws when
// fleet is "") whose name is in names and whose ID is not in held (sorted
// by name and ID), and the fleet it looked in. When the default fleet
// cannot be told (no fleet, or several, named "default"), the devices of
// the whole workspace are compared instead, since the device may go to any
// fleet, and the answer says which fleets are named "default".
func existingNames(ctx context.Context, d *connection.ProviderData, ws, fleet string, names map[string]bool,
	held map[string]bool) ([]objects.NameClash, string, *defaultFleetUnknown, error) {
	if len(names) == 0 || mutantNoGate {
		return nil, fleet, nil, nil
	}
	var unknown *defaultFleetUnknown
	if fleet == "" {
		fleets, err := d.ListFleets(ctx, ws)
		if err != nil {
			return nil, "", nil, err
		}
		if fleet = objects.DefaultFleetOf(fleets); fleet == "" {
			unknown = &defaultFleetUnknown{}
			for _, f := range fleets {
				if f.Name == "default" {
					unknown.named = append(unknown.named, f.ID)
				}
			}
			slices.Sort(unknown.named)
		}
	}
	// A list that holds every device of fleet answers: a name clash is
	// only ever within the fleet (within the workspace when the fleet is
	// not known).
	all, err := d.FleetDevices(ctx, ws, fleet)
	if err != nil {
		return nil, fleet, nil, err
	}
	d.SawWorkspace(ws)
	var in []*client.Device // the devices of the names, in the fleet
	for i := range all {
		if names[all[i].Name] && (fleet == "" || all[i].FleetID() == fleet) {
			in = append(in, &all[i])
		}
	}
	clashes := objects.SameNames(in, names, held, func(dev *client.Device) string { return dev.Name },
		func(dev *client.Device) string { return dev.ID })
	if unknown != nil && len(clashes) > 0 {
		byID := make(map[string]string, len(in))
		for _, dev := range in {
			byID[dev.ID] = dev.FleetID()
		}
		for i := range clashes {
			clashes[i].ID += ", fleet " + byID[clashes[i].ID]
		}
	}
	return clashes, fleet, unknown, nil
}

// Refuse fails the plan at n.Attr when a name that n gives devices in
// their fleet is the name of a device there that the resource does not
// hold, unless allow_duplicate_names (which the callers check: it skips
// the read). A list that cannot be read fails the plan too
// (objects.CheckListFailed), and so does a create in the default fleet
// when the provider cannot tell that fleet and a device of the workspace
// has one of the names.
func (n FleetNames) Refuse(ctx context.Context, d *connection.ProviderData, diags *diag.Diagnostics) {
	names := make(map[string]bool, len(n.Created)+len(n.Arriving))
	for name := range n.Created {
		names[name] = true
	}
	for name := range n.Arriving {
		names[name] = true
	}
	clashes, fleet, unknown, err := existingNames(ctx, d, n.Ws, n.Fleet, names, n.Held)
	listing := "devices of workspace " + connection.Quote(n.Ws)
	if n.Fleet == "" {
		listing = "fleets and devices of workspace " + connection.Quote(n.Ws) // to tell the default fleet
	}
	if objects.CheckListFailed(ctx, n.Attr, "device", n.Ws, err, "This plan creates, renames or moves devices, and "+
		"before it the provider makes sure that no other device of the fleet has their names, because the API cannot "+
		"delete a copy.", listing, diags) {
		return
	}
	if len(clashes) == 0 {
		return
	}
	items := make([]string, 0, len(clashes))
	for _, c := range clashes {
		items = append(items, connection.Quote(c.Name)+" ("+c.ID+")")
	}
	if unknown != nil {
		which := "no fleet of the workspace is named \"default\""
		if len(unknown.named) > 0 {
			which = fmt.Sprintf("%d fleets are named \"default\": %s", len(unknown.named), ListSome(unknown.named))
		}
		diags.AddAttributeError(n.Attr, "Cannot tell the default fleet",
			fmt.Sprintf("These devices go to the default fleet of workspace %s, since fleet_id is not set, and the "+
				"provider cannot tell which fleet that is: %s. The workspace already has devices of their names, "+
				"which this resource does not hold: %s. Since they may be in the default fleet, creating the devices "+
				"could leave second copies forever (the API cannot delete a device). Nothing was sent.\n\n"+
				"Set fleet_id to the fleet the devices belong in: the check then looks in that fleet only. To create "+
				"them without the check, set %s = true.",
				connection.Quote(n.Ws), which, ListSome(items), AllowDuplicateNamesAttr))
		return
	}
	var created, arriving []string
	for _, c := range clashes {
		if n.Created[c.Name] {
			created = append(created, connection.Quote(c.Name)+" ("+c.ID+")")
		}
		if n.Arriving[c.Name] {
			arriving = append(arriving, connection.Quote(c.Name)+" ("+c.ID+")")
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Fleet %s of workspace %s already has %d devices with names that this plan gives devices of "+
		"this resource, and this resource does not hold them. The API cannot delete a device, so two devices of one "+
		"name would stay in the fleet forever, and nothing could tell them apart by name. Nothing was sent.",
		connection.Quote(fleet), connection.Quote(n.Ws), len(clashes))
	if len(created) > 0 {
		fmt.Fprintf(&b, "\n\nTo be created: %s. If they are this resource's devices, keep them: after terraform taint, "+
			"run terraform untaint on the address; drop -replace; for a renamed for_each key or a changed resource "+
			"address, add a moved block from the old address to the new one. If an apply was killed or timed out "+
			"after it created them (a CI runner's timeout, an out-of-memory kill: the devices exist, the state was "+
			"never written), or they were made outside this resource, import them %s",
			ListSome(created), n.Import(fleet, clashesOf(clashes, n.Created)))
	}
	if len(arriving) > 0 {
		fmt.Fprintf(&b, "\n\nTo be given by a rename, or by a move into the fleet: %s. Give the device another name "+
			"or fleet, or rename or move the existing device first.", ListSome(arriving))
	}
	fmt.Fprintf(&b, "\n\nTo have second devices with the same names anyway, set %s = true.", AllowDuplicateNamesAttr)
	diags.AddAttributeError(n.Attr, "Devices with these names already exist", b.String())
}

// clashesOf returns the clashes of the names in names.
func clashesOf(clashes []objects.NameClash, names map[string]bool) []objects.NameClash {
	var out []objects.NameClash
	for _, c := range clashes {
		if names[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

// maxImportBlocks is how many import blocks a refusal writes in full.
const maxImportBlocks = 5

// ImportBlocks writes an import block of resource type typ for each ID of
// ids, at most maxImportBlocks, with to, the address (or a placeholder for
// it), and the import ID idOf(id).
func ImportBlocks(typ, to string, ids []string, idOf func(id string) string) string {
	var b strings.Builder
	for i, id := range ids {
		if i == maxImportBlocks {
			fmt.Fprintf(&b, "\n(and %d more devices)", len(ids)-i)
			break
		}
		fmt.Fprintf(&b, "\n\nimport {\n  to = %s\n  id = %q\n}", to, idOf(id))
	}
	return b.String()
}
