package devices

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
)

// The device model of the zdm_device resource, data sources and list
// resources, the flatten functions that fill it from the client's device,
// and the read-only attributes of a device in data sources.

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

// Workspace implements InWorkspace.
func (m DeviceModel) Workspace() types.String { return m.WorkspaceID }

// Key implements InWorkspace.
func (m DeviceModel) Key() (ws, id string) { return m.WorkspaceID.ValueString(), m.ID.ValueString() }

// DeviceAttributes are the read-only attributes of a device in data sources.
func DeviceAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":             schema.StringAttribute{MarkdownDescription: "Device ID.", Computed: true},
		"workspace_id":   schema.StringAttribute{MarkdownDescription: "ID of the workspace of the device.", Computed: true},
		"name":           schema.StringAttribute{MarkdownDescription: "Device name.", Computed: true},
		"fleet_id":       schema.StringAttribute{MarkdownDescription: "ID of the fleet of the device.", Computed: true},
		"fleet_name":     schema.StringAttribute{MarkdownDescription: "Name of the fleet of the device.", Computed: true},
		"workspace_name": schema.StringAttribute{MarkdownDescription: "Name of the workspace of the device.", Computed: true},
		"account_id":     schema.StringAttribute{MarkdownDescription: "ID of the account that owns the device.", Computed: true},
		"created_at":     schema.StringAttribute{MarkdownDescription: "Creation time (RFC 3339).", Computed: true},
		"phys_id":        schema.StringAttribute{MarkdownDescription: "Physical device ID.", Computed: true},
		"identities": schema.StringAttribute{
			MarkdownDescription: "Identities of the device as a JSON array (decode it with `jsondecode`); null when it has none.",
			Computed:            true,
		},
	}
}

// FleetNameUnchanged keeps the fleet_name of the state while neither the
// fleet nor the name of the device changes; otherwise fleet_name stays
// unknown until the update answers.
type FleetNameUnchanged struct{}

func (FleetNameUnchanged) Description(context.Context) string {
	return "Keeps the value of the state while fleet_id and name do not change."
}

func (m FleetNameUnchanged) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (FleetNameUnchanged) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || !req.PlanValue.IsUnknown() {
		return
	}
	for _, p := range []path.Path{path.Root("fleet_id"), path.Root("name")} {
		var planned, prior types.String
		resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, p, &planned)...)
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, p, &prior)...)
		if resp.Diagnostics.HasError() || planned.IsUnknown() || !planned.Equal(prior) {
			return
		}
	}
	resp.PlanValue = req.StateValue
}
