package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

var (
	_ datasource.DataSource              = (*devicesDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*devicesDataSource)(nil)
)

func newDevicesDataSource() datasource.DataSource {
	return &devicesDataSource{}
}

// devicesDataSource lists the devices of a workspace, optionally filtered.
type devicesDataSource struct {
	data *providerData
}

// devicesModel maps the zdm_devices data source.
type devicesModel struct {
	WorkspaceID types.String  `tfsdk:"workspace_id"`
	FleetID     types.String  `tfsdk:"fleet_id"`
	Name        types.String  `tfsdk:"name"`
	Devices     []deviceModel `tfsdk:"devices"`
}

func (d *devicesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_devices"
}

func (d *devicesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	filter := []validator.String{stringvalidator.LengthAtLeast(1), notBlank{}}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the devices of a workspace (one API call), optionally only those of one fleet " +
			"or with one name.",
		Attributes: map[string]schema.Attribute{
			"workspace_id": workspaceLookupAttribute(),
			"fleet_id": schema.StringAttribute{
				MarkdownDescription: "Only list the devices of this fleet.",
				Optional:            true,
				Validators:          filter,
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Only list the devices with exactly this name.",
				Optional:            true,
				Validators:          filter,
			},
			"devices": schema.ListNestedAttribute{
				MarkdownDescription: "The matching devices, in the order of the service.",
				Computed:            true,
				NestedObject:        schema.NestedAttributeObject{Attributes: deviceAttributes()},
			},
		},
	}
}

func (d *devicesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData("Data Source", req.ProviderData, &resp.Diagnostics)
}

func (d *devicesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	var cfg devicesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ws := d.data.workspaceOrDefault(cfg.WorkspaceID, path.Root("workspace_id"), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	all, err := d.data.client.ListDevices(ctx, ws)
	if err != nil {
		resp.Diagnostics.AddError("Cannot list the devices of workspace "+ws, err.Error())
		return
	}
	cfg.WorkspaceID = types.StringValue(ws)
	cfg.Devices = filterDevices(all, cfg.FleetID.ValueString(), cfg.Name.ValueString(), ws)
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

// filterDevices flattens the devices of fleetID (any fleet when empty) named
// name (any name when empty).
func filterDevices(all []client.Device, fleetID, name, workspaceID string) []deviceModel {
	out := make([]deviceModel, 0, len(all))
	for i := range all {
		if (fleetID == "" || all[i].FleetID == fleetID) && (name == "" || all[i].Name == name) {
			out = append(out, flattenDevice(&all[i], workspaceID))
		}
	}
	return out
}
