package devices

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
	_ datasource.DataSource                     = (*deviceDataSource)(nil)
	_ datasource.DataSourceWithConfigure        = (*deviceDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*deviceDataSource)(nil)
)

func NewDeviceDataSource() datasource.DataSource {
	return &deviceDataSource{DataSourceBase: objects.DataSourceBase{TypeSuffix: "_device"}}
}

// deviceDataSource reads one device of a workspace by ID or name.
type deviceDataSource struct {
	objects.DataSourceBase
}

func (d *deviceDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := DeviceAttributes()
	attrs["workspace_id"] = objects.WorkspaceLookupAttribute()
	attrs["id"] = objects.LookupAttribute("ID of the device to read. Exactly one of `id`, `name` and `phys_id` must be set.")
	attrs["name"] = objects.LookupAttribute("Name of the device to read; it must be unique in the workspace (when " +
		"several devices have it, the error lists their IDs). Exactly one of `id`, `name` and `phys_id` must be set.")
	attrs["phys_id"] = objects.LookupAttribute("Physical ID of the device to read (the ID printed on the hardware); it " +
		"must be unique in the workspace (when several devices have it, the error lists their IDs). Exactly one " +
		"of `id`, `name` and `phys_id` must be set.")
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads one device of a workspace, by ID, by name or by physical ID (`phys_id`).",
		Attributes:          attrs,
	}
}

func (d *deviceDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("name"), path.MatchRoot("phys_id")),
	}
}

func (d *deviceDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	cfg, ok := connection.Decode[DeviceModel](ctx, d.Data, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	ws := objects.WorkspaceOrDefault(d.Data, cfg.WorkspaceID, path.Root("workspace_id"), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	var dev *client.Device
	if !cfg.PhysID.IsNull() {
		dev = objects.LookupByAttribute("device", "workspace "+ws, "phys_id", cfg.PhysID.ValueString(),
			func() ([]client.Device, error) { return d.Data.Client.ListDevices(ctx, ws) },
			func(dev client.Device) string { return dev.PhysID }, func(dev client.Device) string { return dev.ID },
			&resp.Diagnostics)
	} else {
		dev = objects.LookupByIDOrName("device", "workspace "+ws, cfg.ID, cfg.Name,
			func(id string) (*client.Device, error) { return d.Data.Client.GetDevice(ctx, ws, id) },
			func() ([]client.Device, error) { return d.Data.Client.ListDevices(ctx, ws) },
			func(dev client.Device) string { return dev.Name }, func(dev client.Device) string { return dev.ID },
			&resp.Diagnostics)
	}
	if dev == nil {
		return
	}
	state := FlattenDevice(dev, ws)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}
