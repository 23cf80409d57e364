package devices

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

var (
	_ datasource.DataSource                     = (*devicesDataSource)(nil)
	_ datasource.DataSourceWithConfigure        = (*devicesDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*devicesDataSource)(nil)
)

func NewDevicesDataSource() datasource.DataSource {
	return &devicesDataSource{DataSourceBase: objects.DataSourceBase{TypeSuffix: "_devices"}}
}

// devicesDataSource lists the devices of a workspace, optionally filtered.
type devicesDataSource struct {
	objects.DataSourceBase
}

// devicesModel maps the zdm_devices data source.
type devicesModel struct {
	WorkspaceID types.String `tfsdk:"workspace_id"`
	deviceFilterModel
	Devices []DeviceModel `tfsdk:"devices"`
}

func (d *devicesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		"workspace_id": objects.WorkspaceLookupAttribute(),
		"devices": schema.ListNestedAttribute{
			MarkdownDescription: "The matching devices, sorted by name, then by ID (the same order whatever order " +
				"the service answers in).",
			Computed:     true,
			NestedObject: schema.NestedAttributeObject{Attributes: DeviceAttributes()},
		},
	}
	for name, a := range deviceFilterArgs() {
		attrs[name] = schema.StringAttribute{MarkdownDescription: a.Description, Optional: true, Validators: a.Validators}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the devices of a workspace (one API call), optionally only those of one fleet, " +
			"with one physical ID, or whose name matches (exactly, by prefix or by regular expression). The " +
			"filters are those of the `zdm_device` list resource.",
		Attributes: attrs,
	}
}

func (d *devicesDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{datasourcevalidator.Conflicting(deviceNameFilters()...)}
}

func (d *devicesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	cfg, ok := connection.Decode[devicesModel](ctx, d.Data, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	ws := objects.WorkspaceOrDefault(d.Data, cfg.WorkspaceID, path.Root("workspace_id"), &resp.Diagnostics)
	match, err := cfg.matcher()
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name_regex"), "Invalid name_regex", err.Error())
	}
	if resp.Diagnostics.HasError() {
		return
	}
	all, err := d.Data.Client.ListDevices(ctx, ws)
	if err != nil {
		resp.Diagnostics.AddError("Cannot list the devices of workspace "+ws, err.Error())
		return
	}
	objects.SortDevices(all)
	cfg.WorkspaceID = types.StringValue(ws)
	cfg.Devices = make([]DeviceModel, 0, len(all))
	for i := range all {
		if match(&all[i]) {
			cfg.Devices = append(cfg.Devices, FlattenDevice(&all[i], ws))
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
