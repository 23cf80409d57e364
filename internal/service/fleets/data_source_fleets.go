package fleets

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

var (
	_ datasource.DataSource              = (*fleetsDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*fleetsDataSource)(nil)
)

func NewFleetsDataSource() datasource.DataSource {
	return &fleetsDataSource{DataSourceBase: objects.DataSourceBase{TypeSuffix: "_fleets"}}
}

// fleetsDataSource lists the fleets of a workspace.
type fleetsDataSource struct {
	objects.DataSourceBase
}

// fleetsModel maps the zdm_fleets data source.
type fleetsModel struct {
	WorkspaceID types.String `tfsdk:"workspace_id"`
	Fleets      []FleetModel `tfsdk:"fleets"`
}

func (d *fleetsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the fleets of a workspace (one API call), including its default fleet.",
		Attributes: map[string]schema.Attribute{
			"workspace_id": objects.WorkspaceLookupAttribute(),
			"fleets": schema.ListNestedAttribute{
				MarkdownDescription: "The fleets, sorted by name, then by ID (the same order whatever order the service answers in).",
				Computed:            true,
				NestedObject:        schema.NestedAttributeObject{Attributes: FleetAttributes()},
			},
		},
	}
}

func (d *fleetsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	cfg, ok := connection.Decode[fleetsModel](ctx, d.Data, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	ws := objects.WorkspaceOrDefault(d.Data, cfg.WorkspaceID, path.Root("workspace_id"), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	all, err := d.Data.Client.ListFleets(ctx, ws)
	if err != nil {
		resp.Diagnostics.AddError("Cannot list the fleets of workspace "+ws, err.Error())
		return
	}
	objects.SortFleets(all)
	state := fleetsModel{WorkspaceID: types.StringValue(ws), Fleets: make([]FleetModel, 0, len(all))}
	for i := range all {
		state.Fleets = append(state.Fleets, FlattenFleet(&all[i], ws))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}
