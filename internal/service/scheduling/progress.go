package scheduling

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
)

// The progress of a fleet-wide scheduling as Terraform values: counts by
// status and the devices not done, read through the fleet-status reader.

// ProgressAttributes are the computed attributes of that progress.
var ProgressAttributes = []string{"status_counts", "devices_not_done"}

// FleetProgress returns the status counts and the devices not done (whose
// status is not "done"), sorted, of the devices of a scheduling: from the
// reads when res is not nil, else all with status (what the scheduling
// answered). For a firmware update (fw not nil), a device whose update is
// another firmware counts as "replaced".
func FleetProgress(devices []string, status string, res []fleetstatus.Device, fw *fleetstatus.Firmware, done []string) (types.Map, types.List) {
	counts := map[string]int{}
	var notDone []string
	add := func(id, st string) {
		counts[st]++
		if !slices.Contains(done, st) {
			notDone = append(notDone, id)
		}
	}
	if res == nil {
		for _, id := range devices {
			add(id, status)
		}
	}
	for _, d := range res {
		switch {
		case !d.Found:
			add(d.ID, NoRecord)
		case fw != nil && !d.Has(*fw):
			add(d.ID, "replaced")
		default:
			add(d.ID, d.Status)
		}
	}
	return CountsMap(counts), values.SortedList(notDone)
}

// ReadProgress reads the status of kind on devices (bounded concurrent
// reads) for a Read; a failure is a warning and returns ok false: progress
// is information, and the state keeps its last values.
func ReadProgress(ctx context.Context, d *connection.ProviderData, devices []string, kind fleetstatus.Kind, diags *diag.Diagnostics) ([]fleetstatus.Device, bool) {
	if len(devices) == 0 {
		return []fleetstatus.Device{}, true
	}
	res, err := fleetstatus.ReadIDs(ctx, d.Client, devices, kind, 0)
	if err != nil {
		diags.AddWarning("Cannot read the progress of the "+kind.String(),
			"Reading the "+kind.String()+" of its devices failed: "+err.Error()+". status_counts and devices_not_done "+
				"keep their last values.")
		return nil, false
	}
	return res, true
}

// ProgressSchema are the schema attributes of that progress.
func ProgressSchema(what string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"status_counts": schema.MapAttribute{
			MarkdownDescription: "How many of `devices` report each status of the " + what + ", read on every " +
				"refresh (one read per device, 16 at a time). `\"" + NoRecord + "\"` counts devices that show no " +
				"record of it (the service may purge finished records).",
			ElementType: types.Int64Type,
			Computed:    true,
		},
		"devices_not_done": schema.ListAttribute{
			MarkdownDescription: "The devices of `devices` whose " + what + " is not in a success status (`success_statuses`, " +
				"default `done`) at the last refresh, sorted.",
			ElementType: types.StringType,
			Computed:    true,
		},
	}
}
