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
	return &workspacesDataSource{}
}

// workspacesDataSource lists the workspaces of the key's account.
type workspacesDataSource struct {
	data *connection.ProviderData
}

// workspacesModel maps the zdm_workspaces data source.
type workspacesModel struct {
	Workspaces []WorkspaceModel `tfsdk:"workspaces"`
}

func (d *workspacesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workspaces"
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

func (d *workspacesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = connection.ConfigureData("Data Source", req.ProviderData, &resp.Diagnostics)
}

func (d *workspacesDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	all, err := d.data.Client.ListWorkspaces(ctx)
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
