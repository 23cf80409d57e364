package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

var (
	_ datasource.DataSource                     = (*fleetDataSource)(nil)
	_ datasource.DataSourceWithConfigure        = (*fleetDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*fleetDataSource)(nil)
)

func newFleetDataSource() datasource.DataSource {
	return &fleetDataSource{}
}

// fleetDataSource reads one fleet of a workspace by ID or name.
type fleetDataSource struct {
	data *providerData
}

func (d *fleetDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_fleet"
}

func (d *fleetDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := fleetAttributes()
	attrs["workspace_id"] = workspaceLookupAttribute()
	attrs["id"] = lookupAttribute("ID of the fleet to read. Exactly one of `id` and `name` must be set.")
	attrs["name"] = lookupAttribute("Name of the fleet to read; it must be unique in the workspace. " +
		"Exactly one of `id` and `name` must be set.")
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads one fleet of a workspace, by ID or by name.",
		Attributes:          attrs,
	}
}

func (d *fleetDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("name")),
	}
}

func (d *fleetDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData("Data Source", req.ProviderData, &resp.Diagnostics)
}

func (d *fleetDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	var cfg fleetModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ws := workspaceOrDefault(d.data, cfg.WorkspaceID, path.Root("workspace_id"), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	f := lookupByIDOrName("fleet", "workspace "+ws, cfg.ID, cfg.Name,
		func(id string) (*client.Fleet, error) { return d.data.client.GetFleet(ctx, ws, id) },
		func() ([]client.Fleet, error) { return d.data.client.ListFleets(ctx, ws) },
		func(f client.Fleet) string { return f.Name }, func(f client.Fleet) string { return f.ID },
		&resp.Diagnostics)
	if f == nil {
		return
	}
	state := flattenFleet(f, ws)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}
