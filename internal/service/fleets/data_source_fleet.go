package fleets

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

var (
	_ datasource.DataSource                     = (*fleetDataSource)(nil)
	_ datasource.DataSourceWithConfigure        = (*fleetDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*fleetDataSource)(nil)
)

func NewFleetDataSource() datasource.DataSource {
	return &fleetDataSource{DataSourceBase: objects.DataSourceBase{TypeSuffix: "_fleet"}}
}

// fleetDataSource reads one fleet of a workspace by ID or name.
type fleetDataSource struct {
	objects.DataSourceBase
}

func (d *fleetDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := FleetAttributes()
	attrs["workspace_id"] = objects.WorkspaceLookupAttribute()
	attrs["id"] = objects.LookupAttribute("ID of the fleet to read. Exactly one of `id` and `name` must be set.")
	attrs["name"] = objects.LookupAttribute("Name of the fleet to read; it must be unique in the workspace. " +
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

func (d *fleetDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	cfg, ok := connection.Decode[FleetModel](ctx, d.Data, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	ws := objects.WorkspaceOrDefault(d.Data, cfg.WorkspaceID, path.Root("workspace_id"), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	f := objects.LookupByIDOrName("fleet", "workspace "+ws, cfg.ID, cfg.Name,
		func(id string) (*client.Fleet, error) { return d.Data.Client.GetFleet(ctx, ws, id) },
		func() ([]client.Fleet, error) { return d.Data.Client.ListFleets(ctx, ws) },
		func(f client.Fleet) string { return f.Name }, func(f client.Fleet) string { return f.ID },
		&resp.Diagnostics)
	if f == nil {
		return
	}
	state := FlattenFleet(f, ws)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}
