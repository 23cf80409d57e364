package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// Scheduling: the rules the job and firmware-update resources and actions
// share (see DESIGN.md, "Device commands are sent exactly as often as the
// configuration asks"):
//
//   - targets are never implied: a fleet-wide scheduling names its fleets or
//     opts into every fleet with all_fleets = true (validateFleetTargets);
//   - a job or update record that the service no longer returns while its
//     device exists keeps its state, with a warning: only a change of the
//     configuration schedules again (recordMissing);
//   - the device itself is gone only when a 404 is proven (deviceGone).

// validateFleetTargets checks the targets of a fleet-wide scheduling:
// exactly one of fleet_ids and all_fleets = true. what names what is
// scheduled ("the job", "the firmware"). Unknown values are checked at
// apply.
func validateFleetTargets(fleetIDs types.Set, allFleets types.Bool, what string, diags *diag.Diagnostics) {
	if fleetIDs.IsUnknown() || allFleets.IsUnknown() {
		return
	}
	all := allFleets.ValueBool()
	switch {
	case all && !fleetIDs.IsNull():
		diags.AddAttributeError(path.Root("all_fleets"), "Conflicting all_fleets and fleet_ids",
			"Set fleet_ids to name the fleets, or all_fleets = true for every fleet of the workspace, not both.")
	case !all && fleetIDs.IsNull():
		diags.AddAttributeError(path.Root("fleet_ids"), "Missing fleet_ids",
			"Name the fleets whose devices get "+what+" with fleet_ids, or set all_fleets = true for every fleet "+
				"of the workspace. A scheduling never targets every fleet unless asked.")
	}
}

// deviceGone tells whether a device is proven gone after a 404 on one of its
// paths (a job or firmware update): the device's own job list answers 404,
// and the device answers 404 in the provider's workspace while that
// workspace is visible to this base_url and key (the rule of
// visibility.go). It returns false, nil when the device exists, and an error
// when neither can be shown: the caller then keeps the state.
func (d *providerData) deviceGone(ctx context.Context, dev string, notFound error) (bool, error) {
	_, err := d.client.ListJobs(ctx, dev, client.JobStatusDone)
	switch {
	case err == nil:
		return false, nil
	case !client.IsNotFound(err):
		return false, err
	}
	ws := d.workspaceID
	if ws == "" {
		return false, errors.New("the service answered " + notFound.Error() + " for device " + quote(dev) +
			", but without the provider's workspace_id (or " + envWorkspaceID + ") the provider cannot show that " +
			"the device is gone rather than out of reach of this base_url and API key, so the state is kept. Set " +
			"workspace_id in the provider block")
	}
	_, err = d.client.GetDevice(ctx, ws, dev)
	switch {
	case err == nil:
		return false, nil
	case !client.IsNotFound(err):
		return false, err
	}
	if perr := d.confirmGone(ctx, "device", ws, dev, err); perr != nil {
		return false, perr
	}
	return true, nil
}

// recordMissing is the warning of a job or firmware update record that the
// service no longer returns while its device exists: the state keeps its
// last-read status, and nothing is scheduled again.
func recordMissing(what, dev, change string) (string, string) {
	return "The " + what + " of device " + dev + " is no longer returned by the service",
		"Device " + dev + " exists, but the service no longer returns its " + what + " (a service may purge " +
			"finished records). The state keeps its last-read status, and the " + what + " is not scheduled again: " +
			"only a change of " + change + " schedules it again."
}

// sameTargets reports whether a fleet-wide scheduling planned with fleetIDs
// and allFleets targets what the state's prior fleet IDs did (a null set
// in the state is every fleet, as written before all_fleets existed).
func sameTargets(prior, fleetIDs types.Set, allFleets types.Bool) bool {
	if allFleets.ValueBool() {
		return prior.IsNull()
	}
	return prior.Equal(fleetIDs)
}

// scheduledLater reports whether the RFC 3339 time a is after b (compared as
// text when either cannot be read).
func scheduledLater(a, b string) bool {
	ta, errA := parseRFC3339(a)
	tb, errB := parseRFC3339(b)
	if errA != nil || errB != nil {
		return a > b
	}
	return ta.After(tb)
}
