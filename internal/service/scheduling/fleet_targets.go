package scheduling

import (
	"context"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
)

// The targets of fleet-wide schedulings: never implied (a scheduling names
// its fleets or opts into every fleet with all_fleets = true), and a change
// of the targets alone sends the command only to the fleets it adds.

// ValidateFleetTargets checks the targets of a fleet-wide scheduling:
// exactly one of fleet_ids and all_fleets = true. what names what is
// scheduled ("the job", "the firmware"). Unknown values are checked at
// apply.
func ValidateFleetTargets(fleetIDs types.Set, allFleets types.Bool, what string, diags *diag.Diagnostics) {
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

// SameTargets reports whether a fleet-wide scheduling planned with fleetIDs
// and allFleets targets what the state's prior fleet IDs did (a null set
// in the state is every fleet, as written before all_fleets existed).
func SameTargets(prior, fleetIDs types.Set, allFleets types.Bool) bool {
	if allFleets.ValueBool() {
		return prior.IsNull()
	}
	return prior.Equal(fleetIDs)
}

// addedFleets returns the fleets a change of the targets alone adds to the
// prior fleets (a null prior set: every fleet, so nothing is added). When
// the new targets are every fleet, the workspace's fleets are listed.
func addedFleets(ctx context.Context, c *client.Client, ws string, prior, planned types.Set, all types.Bool, diags *diag.Diagnostics) []string {
	if prior.IsNull() {
		return nil
	}
	had := values.SetStrings(ctx, prior, diags)
	var want []string
	if all.ValueBool() {
		fleets, err := c.ListFleets(ctx, ws)
		if err != nil {
			diags.AddError("Cannot list the fleets of workspace "+ws, err.Error())
			return nil
		}
		for _, f := range fleets {
			want = append(want, f.ID)
		}
	} else {
		want = values.SetStrings(ctx, planned, diags)
	}
	var added []string
	for _, id := range want {
		if !slices.Contains(had, id) {
			added = append(added, id)
		}
	}
	slices.Sort(added)
	return added
}

// FleetsToSend tells which fleets an update of a fleet-wide scheduling sends
// to (the gate of SendFleetCommand then reads their devices and sends only
// to those that lack the command): after
// a change of the command (command true), every targeted fleet (send, with
// only nil); after a change of the targets alone, the fleets it adds (send,
// with only those), or nothing when it adds none. ok is false, with an
// error in diags, when the fleets could not be listed: the update then
// keeps the prior state.
func FleetsToSend(ctx context.Context, c *client.Client, ws string, command bool, prior, planned types.Set, all types.Bool, diags *diag.Diagnostics) (send bool, only []string, ok bool) {
	if command {
		return true, nil, true
	}
	added := addedFleets(ctx, c, ws, prior, planned, all, diags)
	if diags.HasError() {
		return false, nil, false
	}
	return len(added) > 0, added, true
}

// WarnTargetsOnly adds the plan-time warning of a change of the targets
// alone of a fleet-wide scheduling (what: "job", "firmware update"): which
// fleets get it, and that the others do not get it again.
func WarnTargetsOnly(ctx context.Context, what string, prior, planned types.Set, all types.Bool, diags *diag.Diagnostics) {
	if planned.IsUnknown() || all.IsUnknown() || SameTargets(prior, planned, all) {
		return
	}
	if slices.ContainsFunc(planned.Elements(), attr.Value.IsUnknown) {
		// A fleet known only at apply (one replaced in the same plan): the
		// added fleets are not known yet, and the gate still reads every
		// device of them before any send.
		return
	}
	had := values.SetStrings(ctx, prior, diags)
	var detail string
	switch {
	case prior.IsNull():
		detail = "The " + what + " was scheduled on every fleet of the workspace: nothing is sent; the devices keep it."
	case all.ValueBool():
		detail = "Only the fleets of the workspace other than " + strings.Join(had, ", ") + " get the " + what +
			" (they are listed at apply), and only their devices that lack it" + gateHint(what) + " The devices of " +
			strings.Join(had, ", ") + " already have it and do not run it again."
	default:
		var added []string
		for _, id := range values.SetStrings(ctx, planned, diags) {
			if !slices.Contains(had, id) {
				added = append(added, id)
			}
		}
		if len(added) == 0 {
			detail = "No fleet is added: nothing is sent; the devices of the fleets left out keep the " + what + "."
		} else {
			detail = "Only the added fleets " + strings.Join(added, ", ") + " get the " + what + ", and only their " +
				"devices that lack it" + gateHint(what) + " The devices of " + strings.Join(had, ", ") +
				" already have it and do not run it again."
		}
	}
	diags.AddAttributeWarning(path.Root("fleet_ids"), "Only added fleets get the "+what,
		connection.Sentence(detail)+" To send it again to every targeted device, change triggers.")
}

// gateHint is the part of the warning of WarnTargetsOnly that tells what
// the apply decides from the service (SendFleetCommand): the plan cannot
// know it.
func gateHint(what string) string {
	return ": at apply, each device of the added fleets is read first, and a device that already has the " + what +
		" (one moved there from a fleet that had it, or a device of a fleet removed earlier and added back) does " +
		"not get it again; when any device has it, the others get it one request each instead of one fleet-wide " +
		"request."
}

// MergeDevices is the sorted union of the devices of a list value and more.
func MergeDevices(ctx context.Context, prior types.List, more types.List, diags *diag.Diagnostics) types.List {
	var a, b []string
	diags.Append(prior.ElementsAs(ctx, &a, false)...)
	diags.Append(more.ElementsAs(ctx, &b, false)...)
	all := append(a, b...)
	slices.Sort(all)
	return values.StringList(slices.Compact(all))
}

// FleetUpdate is what the update of a fleet-wide scheduling resource
// (zdm_fleet_job, zdm_fota) says of its plan and prior state, for
// UpdateFleetScheduling.
type FleetUpdate struct {
	// Command tells whether the command itself changed (value, firmware,
	// triggers): every target gets it again.
	Command bool
	// Workspace, the prior and planned fleet_ids, and all_fleets.
	Workspace               string
	PriorFleets, PlanFleets types.Set
	AllFleets               types.Bool
	// PriorDevices and the planned devices, which a send to added fleets
	// merges.
	PriorDevices types.List
	PlanDevices  *types.List
	// Schedule sends to every target (added nil) or to the added fleets,
	// through gate (SendFleetCommand), and tells whether the service shows
	// it scheduled.
	Schedule func(added []string, gate *Gate) bool
	// PriorScheduledAt is the state's scheduled_at, for the gate.
	PriorScheduledAt string
	// KeepPrior gives the plan the prior scheduling when nothing is sent,
	// and tells whether the plan still waits for it.
	KeepPrior func() bool
	// Wait waits for the devices; Save saves the plan (and identity);
	// MarkWait records how the wait ended.
	Wait     func() bool
	Save     func()
	MarkWait func(ok bool)
}

// UpdateFleetScheduling is the Update of a fleet-wide scheduling resource
// whose model is M: a change of the command sends it again to every
// target; a change of the targets alone sends it only to the fleets added
// (FleetsToSend), and nothing for fleets removed or a wait setting; then,
// with wait, the devices are waited for. When nothing is shown scheduled,
// the state keeps the prior scheduling.
func UpdateFleetScheduling[M any](ctx context.Context, d *connection.ProviderData, req resource.UpdateRequest, resp *resource.UpdateResponse,
	update func(plan, prior *M) FleetUpdate) {
	plan, prior, ok := connection.DecodeUpdate[M](ctx, d, req.Plan, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	u := update(&plan, &prior)
	send, added, ok := FleetsToSend(ctx, d.Client, u.Workspace, u.Command, u.PriorFleets, u.PlanFleets, u.AllFleets, &resp.Diagnostics)
	if !ok {
		resp.State.Raw = req.State.Raw.Copy()
		return
	}
	if send {
		if !u.Schedule(added, UpdateGate(u.Command, u.PriorScheduledAt, ListStrings(ctx, u.PriorDevices, &resp.Diagnostics))) {
			// Nothing shown scheduled: the state keeps the prior scheduling.
			resp.State.Raw = req.State.Raw.Copy()
			return
		}
		if added != nil {
			*u.PlanDevices = MergeDevices(ctx, u.PriorDevices, *u.PlanDevices, &resp.Diagnostics)
		}
	} else if !u.KeepPrior() {
		// No fleet added (fleets removed, all_fleets = true written for a
		// scheduling of every fleet, or only the wait attributes changed):
		// nothing is sent again, and nothing is left to wait for.
		u.Save()
		return
	}
	ok = u.Wait()
	u.Save()
	u.MarkWait(ok)
}
