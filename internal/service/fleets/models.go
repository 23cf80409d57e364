package fleets

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// The workspace and fleet models of the zdm_workspace and zdm_fleet
// resources, data sources and list resources, the flatten functions that
// fill them from the client's objects, and their read-only attributes in
// data sources.

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

// Workspace implements InWorkspace.
func (m FleetModel) Workspace() types.String { return m.WorkspaceID }

// Key implements InWorkspace.
func (m FleetModel) Key() (ws, id string) { return m.WorkspaceID.ValueString(), m.ID.ValueString() }

// WorkspaceAttributes are the read-only attributes of a workspace in data
// sources; lookup attributes are made optional by the caller.
func WorkspaceAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":          schema.StringAttribute{MarkdownDescription: "Workspace ID.", Computed: true},
		"name":        schema.StringAttribute{MarkdownDescription: "Workspace name.", Computed: true},
		"description": schema.StringAttribute{MarkdownDescription: "Workspace description.", Computed: true},
		"account_id":  schema.StringAttribute{MarkdownDescription: "ID of the account that owns the workspace.", Computed: true},
		"created_at":  schema.StringAttribute{MarkdownDescription: "Creation time (RFC 3339).", Computed: true},
	}
}

// FleetAttributes are the read-only attributes of a fleet in data sources.
func FleetAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":           schema.StringAttribute{MarkdownDescription: "Fleet ID.", Computed: true},
		"workspace_id": schema.StringAttribute{MarkdownDescription: "ID of the workspace of the fleet.", Computed: true},
		"name":         schema.StringAttribute{MarkdownDescription: "Fleet name.", Computed: true},
		"description":  schema.StringAttribute{MarkdownDescription: "Fleet description.", Computed: true},
		"account_id":   schema.StringAttribute{MarkdownDescription: "ID of the account that owns the fleet.", Computed: true},
		"created_at":   schema.StringAttribute{MarkdownDescription: "Creation time (RFC 3339).", Computed: true},
	}
}
