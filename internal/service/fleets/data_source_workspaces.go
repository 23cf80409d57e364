package fleets

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

var (
	_ datasource.DataSource              = (*workspacesDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*workspacesDataSource)(nil)
)

func NewWorkspacesDataSource() datasource.DataSource {
	return &workspacesDataSource{DataSourceBase: objects.DataSourceBase{TypeSuffix: "_workspaces"}}
}

// workspacesDataSource lists the workspaces of the key's account.
type workspacesDataSource struct {
	objects.DataSourceBase
}

// workspacesModel maps the zdm_workspaces data source.
type workspacesModel struct {
	Workspaces []WorkspaceModel `tfsdk:"workspaces"`
}

func (d *workspacesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the workspaces of the API key's account (one API call).",
		Attributes: map[string]schema.Attribute{
			"workspaces": schema.ListNestedAttribute{
				MarkdownDescription: "The workspaces, sorted by name, then by ID (the same order whatever order the service answers in).",
				Computed:            true,
				NestedObject:        schema.NestedAttributeObject{Attributes: WorkspaceAttributes()},
			},
		},
	}
}

func (d *workspacesDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.Data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	all, err := d.Data.Client.ListWorkspaces(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot list workspaces", err.Error())
		return
	}
	objects.SortWorkspaces(all)
	state := workspacesModel{Workspaces: make([]WorkspaceModel, 0, len(all))}
	for i := range all {
		state.Workspaces = append(state.Workspaces, FlattenWorkspace(&all[i]))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}
