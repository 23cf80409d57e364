package fleetdevices

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
	"github.com/zdm/terraform-provider-zdm/internal/service/devices"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// The steps of the gate of device creates that only zdm_fleet_devices has:
// resume (fleet_devices_resume.go) and carry over, before the refusal of a
// second copy that it shares with zdm_device (devices.FleetNames.Refuse; the
// gate as a whole is described in devices/duplicates.go).

// gate is the gate of a plan of zdm_fleet_devices (prior is nil for a
// create): it plans the IDs of the devices resumed or carried over, warns
// about the devices forgotten, and refuses second copies, by a create, a
// rename or a move. It plans
// nothing while devices is unknown: Terraform's final plan at apply,
// which knows it, passes the gate then.
func (s *fleetDevicesServer) gate(ctx context.Context, prior, cfg, plan *fleetDevicesObject, diags *diag.Diagnostics) {
	if plan.devices.Unknown || plan.deviceIDs.Unknown {
		return
	}
	record := prior // the devices the plan keeps come from it
	if prior == nil {
		record = planResume(s.data(), cfg, plan, diags) // carries over the devices of the object it resumes
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
	s.refuseDuplicates(ctx, record, cfg, plan, diags)
	s.claimNames(ctx, prior, cfg, plan, diags) // names another resource of the walk writes too (fleet_devices_claims.go)
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
			strings.Join(objects.QuoteAll(keys), ", ")))
	}
	if len(unclear) > 0 && !plan.allowDuplicates.B && !plan.allowDuplicates.Unknown {
		diags.AddAttributeError(path.Root("devices"), "Devices with these names already exist",
			fmt.Sprintf("This plan removes the keys of %d device names from devices and adds keys with the same names, "+
				"but not one key for one device, so which key keeps which device is not clear: %s. The API cannot "+
				"delete a device, so creating them would leave second copies forever. Nothing was sent.\n\n"+
				"Give each existing device one key: a key renamed with its name kept keeps its device. Give the other "+
				"keys other names. To create second devices with the same names anyway, set %s = true.",
				len(unclear), devices.ListSome(unclear), devices.AllowDuplicateNamesAttr))
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
			"instead of creating a second one: %s.", len(items), devices.ListSome(items)))
}
