package devices

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// One configuration that names a device twice.
//
// The gate (duplicates.go) compares a create with the devices the service
// holds; two resources of one configuration that create devices of one
// name in one fleet (two zdm_device, a zdm_device and a key of a
// zdm_fleet_devices, two zdm_fleet_devices of one fleet) each pass it. So
// every plan that creates, renames or moves devices claims their names in
// their fleet for the walk (objects.NameClaims), and a name claimed twice
// fails the plan of the resource planned second. Only the devices a plan
// writes claim (none in a no-op plan), with their key: a create of a
// million devices holds a million claims of 24 bytes.

// ClaimDeviceNames records that the plan of owner puts the devices of
// names into fleet of ws ("": the workspace's default fleet, found in the
// walk's shared list of fleets), and fails the plan at attr when another
// resource of the walk puts a device of one of these names there too.
func ClaimDeviceNames(ctx context.Context, d *connection.ProviderData, attr path.Path, ws, fleet, owner string,
	names []objects.PlannedName, diags *diag.Diagnostics) {
	if d == nil || len(names) == 0 {
		return
	}
	where := "the default fleet of workspace " + connection.Quote(ws)
	if fleet == "" {
		// The default fleet by its ID, so that a resource that names it
		// and one that leaves fleet_id out meet. Unlisted, they meet as
		// "the default fleet" only.
		if fleets, err := d.ListFleets(ctx, ws); err == nil {
			fleet = objects.DefaultFleetOf(fleets)
		}
	}
	if fleet != "" {
		where = "fleet " + connection.Quote(fleet) + " of workspace " + connection.Quote(ws)
	}
	claimed := connection.Registry[objects.NameClaims](d).Claim("device\x00"+ws+"\x00"+fleet, owner, names)
	if len(claimed) == 0 {
		return
	}
	summary, detail := objects.NamedTwiceError("device", where, objects.ClaimedItems(claimed))
	diags.AddAttributeError(attr, summary, detail)
}

// claimName claims the name of a zdm_device that the plan creates, renames
// or moves (see ClaimDeviceNames). A replacement claims in the plan of its
// create (no prior state), which Terraform makes after the plan that
// asked for the replacement; unknown values wait for the final plan at
// apply; allow_duplicate_names claims nothing.
func (r *DeviceResource) claimName(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if resp.Diagnostics.HasError() || req.Plan.Raw.IsNull() || r.Data == nil || len(resp.RequiresReplace) > 0 {
		return
	}
	var plan DeviceResourceModel
	if diags := resp.Plan.Get(ctx, &plan); diags.HasError() {
		return
	}
	if plan.AllowDuplicateNames.ValueBool() || plan.AllowDuplicateNames.IsUnknown() || !known(plan.WorkspaceID) ||
		!known(plan.Name) || plan.FleetID.IsUnknown() && !fleetUnset(ctx, req) {
		return
	}
	name, fleet := plan.Name.ValueString(), plan.FleetID.ValueString()
	owner := "zdm_device " + connection.Quote(name)
	if !req.State.Raw.IsNull() {
		var prior DeviceResourceModel
		if diags := req.State.Get(ctx, &prior); diags.HasError() {
			return
		}
		if prior.Name.Equal(plan.Name) && (plan.FleetID.IsUnknown() || prior.FleetID.Equal(plan.FleetID)) {
			return // neither renamed nor moved
		}
		if plan.FleetID.IsUnknown() {
			fleet = prior.FleetID.ValueString()
		}
		owner = "zdm_device " + connection.Quote(name) + " (device " + prior.ID.ValueString() + ", renamed or moved)"
	}
	ClaimDeviceNames(ctx, r.Data, path.Root("name"), plan.WorkspaceID.ValueString(), fleet, owner,
		[]objects.PlannedName{{Name: name}}, &resp.Diagnostics)
}

// known tells whether v is neither null nor unknown.
func known(v interface {
	IsNull() bool
	IsUnknown() bool
}) bool {
	return !v.IsNull() && !v.IsUnknown()
}
