package fleetdevices

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/zdm/terraform-provider-zdm/internal/service/devices"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// claimNames claims, for the walk, the names of the devices that the plan
// of a zdm_fleet_devices creates, renames or moves into its fleet, and
// fails the plan when another resource of the walk writes a device of one
// of these names into that fleet (devices.ClaimDeviceNames). A key whose
// device keeps its name and fleet claims nothing, so a no-op plan claims
// nothing; nor does a plan with allow_duplicate_names, nor one whose
// fleet is not known yet (the final plan at apply claims then).
func (s *fleetDevicesServer) claimNames(ctx context.Context, prior, cfg, plan *fleetDevicesObject, diags *diag.Diagnostics) {
	d := s.data()
	if d == nil || diags.HasError() {
		return
	}
	fleet, ok := namesToCheck(cfg, plan)
	if !ok {
		return
	}
	moved := prior != nil && fleet != "" && prior.fleetID.S != fleet
	var priorEntries map[string]fleetDevice
	if prior != nil {
		priorEntries = prior.entries()
	}
	var names []objects.PlannedName
	for k, name := range plan.devices.M {
		if !name.IsKnown() {
			continue
		}
		id := plan.deviceIDs.M[k]
		if id.IsKnown() {
			// An existing device: renamed, moved, or brought back from
			// another fleet. A resumed create's devices (prior nil) are
			// this resource's already.
			e, ok := priorEntries[k]
			if prior == nil || ok && e.id == id.S && e.name == name.S && e.elsewhere == "" && !moved {
				continue
			}
			if !ok && !moved {
				continue // carried over from another key, its name kept
			}
		}
		names = append(names, objects.PlannedName{Name: name.S, Key: k})
	}
	devices.ClaimDeviceNames(ctx, d, path.Root("devices"), plan.workspaceID.S, fleet,
		describeFleetDevices(plan.workspaceID.S, fleet), names, diags)
}
