package kit

import (
	"bytes"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
)

// Models shared by resources, data sources and list resources, and the
// flatten functions that fill them from the client's objects.

// JobItemModel is one job of a device in data sources.
type JobItemModel struct {
	Name        types.String `tfsdk:"name"`
	Status      types.String `tfsdk:"status"`
	ScheduledAt types.String `tfsdk:"scheduled_at"`
	Value       types.String `tfsdk:"value"`
}

// FlattenJobItem copies an API job into the model; the value is compact
// JSON with sorted keys, whatever order the service echoes them in.
func FlattenJobItem(j *client.Job) JobItemModel {
	return JobItemModel{
		Name:        types.StringValue(j.Name),
		Status:      types.StringValue(j.Status),
		ScheduledAt: types.StringValue(j.ScheduledAt),
		Value:       types.StringValue(values.SortedJSON(j.Value)),
	}
}

// WorkspaceModel maps the zdm_workspace resource and data source.
type WorkspaceModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Description types.String `tfsdk:"description"`
	AccountID   types.String `tfsdk:"account_id"`
	CreatedAt   types.String `tfsdk:"created_at"`
}

// FlattenWorkspace copies an API workspace into the model.
func FlattenWorkspace(w *client.Workspace) WorkspaceModel {
	return WorkspaceModel{
		ID:          types.StringValue(w.ID),
		Name:        types.StringValue(w.Name),
		Description: types.StringValue(w.Description),
		AccountID:   types.StringValue(w.AccountID),
		CreatedAt:   types.StringValue(w.CreatedAt),
	}
}

// FleetModel maps the zdm_fleet resource and data source.
type FleetModel struct {
	ID          types.String `tfsdk:"id"`
	WorkspaceID types.String `tfsdk:"workspace_id"`
	Name        types.String `tfsdk:"name"`
	Description types.String `tfsdk:"description"`
	AccountID   types.String `tfsdk:"account_id"`
	CreatedAt   types.String `tfsdk:"created_at"`
}

// FlattenFleet copies an API fleet into the model. The workspace of the
// request is used when the answer does not name one.
func FlattenFleet(f *client.Fleet, workspaceID string) FleetModel {
	ws := f.WorkspaceID
	if ws == "" {
		ws = workspaceID
	}
	return FleetModel{
		ID:          types.StringValue(f.ID),
		WorkspaceID: types.StringValue(ws),
		Name:        types.StringValue(f.Name),
		Description: types.StringValue(f.Description),
		AccountID:   types.StringValue(f.AccountID),
		CreatedAt:   types.StringValue(f.CreatedAt),
	}
}

// DeviceModel maps the zdm_device resource and data source.
type DeviceModel struct {
	ID            types.String `tfsdk:"id"`
	WorkspaceID   types.String `tfsdk:"workspace_id"`
	Name          types.String `tfsdk:"name"`
	FleetID       types.String `tfsdk:"fleet_id"`
	FleetName     types.String `tfsdk:"fleet_name"`
	WorkspaceName types.String `tfsdk:"workspace_name"`
	AccountID     types.String `tfsdk:"account_id"`
	CreatedAt     types.String `tfsdk:"created_at"`
	PhysID        types.String `tfsdk:"phys_id"`
	Identities    types.String `tfsdk:"identities"`
}

// FlattenDevice copies an API device into the model. The workspace of the
// request is used when the answer does not name one.
func FlattenDevice(d *client.Device, workspaceID string) DeviceModel {
	ws := d.WorkspaceID()
	if ws == "" {
		ws = workspaceID
	}
	return DeviceModel{
		ID:            types.StringValue(d.ID),
		WorkspaceID:   types.StringValue(ws),
		Name:          types.StringValue(d.Name),
		FleetID:       types.StringValue(d.FleetID()),
		FleetName:     types.StringValue(d.FleetName()),
		WorkspaceName: types.StringValue(d.WorkspaceName()),
		AccountID:     types.StringValue(d.AccountID()),
		CreatedAt:     types.StringValue(d.CreatedAt),
		PhysID:        types.StringValue(d.PhysID),
		Identities:    FlattenIdentities(d.Identities),
	}
}

// FlattenIdentities returns the identities as compact JSON, or null when the
// device has none (field absent, null or an empty array).
func FlattenIdentities(raw json.RawMessage) types.String {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return types.StringNull()
	}
	// Text that is not JSON is kept as the service sent it.
	c := string(jsonvalue.Compact(trimmed, nil))
	if c == "[]" {
		return types.StringNull()
	}
	return types.StringValue(c)
}
