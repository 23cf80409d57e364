package firmware

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

// The id of a zdm_fota, and its import.
//
// The update of one device has the device ID as its id (and import ID). The
// update of fleets has "<workspace_id>/<firmware_id>/<firmware_version>"
// (values.JoinID: a "/" inside a part is %2F), so two fleet updates of one
// workspace have different ids, and the id imports back. Schema version 0
// gave fleet updates the workspace ID; the state upgrade rewrites it.

// fotaSchemaVersion is the schema version of zdm_fota.
const fotaSchemaVersion = 1

// fleetFOTAID is the id of the update of fleets of workspace ws.
func fleetFOTAID(ws, fw, ver string) string { return values.JoinID(ws, fw, ver) }

// setID sets the id of m from its target and firmware.
func (m *fotaModel) setID() {
	if m.deviceMode() {
		m.ID = m.DeviceID
		return
	}
	m.ID = types.StringValue(fleetFOTAID(m.WorkspaceID.ValueString(), m.FirmwareID.ValueString(), m.FirmwareVersion.ValueString()))
}

// planID plans the id: known once its parts are.
func planID(ctx context.Context, resp *resource.ModifyPlanResponse) {
	if resp.Plan.Raw.IsNull() || resp.Diagnostics.HasError() {
		return
	}
	var plan fotaModel
	resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := types.StringUnknown()
	switch {
	case plan.DeviceID.IsUnknown() || plan.WorkspaceID.IsUnknown():
	case plan.deviceMode():
		id = plan.DeviceID
	case !plan.FirmwareID.IsUnknown() && !plan.FirmwareVersion.IsUnknown():
		plan.setID()
		id = plan.ID
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), id)...)
}

func (r *fotaResource) UpgradeState(ctx context.Context) map[int64]resource.StateUpgrader {
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	prior := sr.Schema
	return map[int64]resource.StateUpgrader{
		0: {
			PriorSchema: &prior,
			StateUpgrader: func(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
				var m fotaModel
				resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
				if resp.Diagnostics.HasError() {
					return
				}
				m.setID()
				resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
			},
		},
	}
}

// importFleets imports the update of firmware fw ver on the fleets of
// workspace ws: every device of the workspace whose current update is that
// firmware, as the update of all fleets. It reports false, with nothing
// set, when the workspace cannot be listed (the ID may then be a device ID
// with "/" in it).
func (r *fotaResource) importFleets(ctx context.Context, ws, fw, ver string, resp *resource.ImportStateResponse) bool {
	if r.data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return true
	}
	summary := fmt.Sprintf("Cannot import firmware update %s %s of workspace %s", fw, ver, connection.Quote(ws))
	devices, err := r.data.Client.ListDevices(ctx, ws)
	var apiErr *client.APIError
	if errors.As(err, &apiErr) && (apiErr.StatusCode == http.StatusNotFound || apiErr.StatusCode == http.StatusForbidden) {
		return false
	}
	if err != nil {
		resp.Diagnostics.AddError(summary, connection.DescribeError(err, ws))
		return true
	}
	got, err := fleetstatus.ReadDevices(ctx, r.data.Client, devices, fleetstatus.FOTA, 0)
	if err != nil {
		resp.Diagnostics.AddError(summary, "Reading the firmware update of each device failed: "+err.Error())
		return true
	}
	matches := scheduling.FirmwareMatches(fw, ver)
	var reached []string
	latest := ""
	for _, d := range got {
		if !d.Found || !matches(d) {
			continue
		}
		reached = append(reached, d.ID)
		if latest == "" || scheduling.ScheduledLater(d.ScheduledAt, latest) {
			latest = d.ScheduledAt
		}
	}
	if len(reached) == 0 {
		resp.Diagnostics.AddError(summary, fmt.Sprintf("No device of workspace %s has firmware %s %s as its current "+
			"update. The import ID of an update of fleets is <workspace_id>/<firmware_id>/<firmware_version> (a \"/\" "+
			"inside a part written %%2F); that of the update of one device is its device ID.", connection.Quote(ws), fw, ver))
		return true
	}
	m := fotaModel{
		DeviceID: types.StringNull(), WorkspaceID: types.StringValue(ws),
		FleetIDs: types.SetNull(types.StringType), AllFleets: types.BoolValue(true),
		FirmwareID: types.StringValue(fw), FirmwareVersion: types.StringValue(ver),
		Triggers: types.MapNull(types.StringType), Status: types.StringValue(client.JobStatusPending),
		ScheduledAt: types.StringValue(latest), Devices: values.SortedList(reached),
		// Read fills the progress.
		StatusCounts: types.MapNull(types.Int64Type), DevicesNotDone: types.ListNull(types.StringType),
		WaitModel: scheduling.NullWaitModel(),
	}
	m.setID()
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	objects.SetIdentity(ctx, resp.Identity, objects.NewFOTAIdentity(m.DeviceID, m.WorkspaceID), &resp.Diagnostics)
	return true
}
