package firmware

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

var (
	_ datasource.DataSource              = (*fotaStatusDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*fotaStatusDataSource)(nil)
)

func NewFOTAStatusDataSource() datasource.DataSource {
	return &fotaStatusDataSource{DataSourceBase: objects.DataSourceBase{TypeSuffix: "_fota_status"}}
}

// fotaStatusDataSource reads the firmware update status of a device.
type fotaStatusDataSource struct {
	objects.DataSourceBase
}

// fotaStatusModel maps the zdm_fota_status data source.
type fotaStatusModel struct {
	DeviceID        types.String `tfsdk:"device_id"`
	Scheduled       types.Bool   `tfsdk:"scheduled"`
	ScheduledAt     types.String `tfsdk:"scheduled_at"`
	Status          types.String `tfsdk:"status"`
	FirmwareID      types.String `tfsdk:"firmware_id"`
	FirmwareVersion types.String `tfsdk:"firmware_version"`
}

func (d *fotaStatusDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads the current firmware-over-the-air (FOTA) update of a device: which firmware, " +
			"when it was scheduled and its status. A device that never had an update is not an error: `scheduled` " +
			"is `false` and the other attributes are null. An unknown device is an error.",
		Attributes: map[string]schema.Attribute{
			"device_id": objects.DeviceIDAttribute("ID of the device to read."),
			"scheduled": schema.BoolAttribute{
				MarkdownDescription: "Whether the device has a firmware update; `false` when it never had one " +
					"(then every other attribute is null).",
				Computed: true,
			},
			"scheduled_at": schema.StringAttribute{
				MarkdownDescription: "When the current update was scheduled (RFC 3339); null without an update.",
				Computed:            true,
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "Status of the current update as the service reports it: `pending` after " +
					"scheduling, then for example `done`; null without an update.",
				Computed: true,
			},
			"firmware_id": schema.StringAttribute{
				MarkdownDescription: "ID of the firmware of the current update; null without an update.",
				Computed:            true,
			},
			"firmware_version": schema.StringAttribute{
				MarkdownDescription: "Version of the firmware of the current update; null without an update.",
				Computed:            true,
			},
		},
	}
}

func (d *fotaStatusDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	cfg, ok := connection.Decode[fotaStatusModel](ctx, d.Data, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	dev := cfg.DeviceID.ValueString()
	f, err := d.Data.Client.GetFOTA(ctx, dev)
	if client.IsNotFound(err) {
		// Either the device is unknown or it never had an update.
		exists, lerr := objects.DeviceExists(ctx, d.Data.Client, dev)
		switch {
		case lerr != nil:
			resp.Diagnostics.AddError("Cannot read the firmware update of device "+dev, lerr.Error())
			return
		case !exists:
			resp.Diagnostics.AddAttributeError(path.Root("device_id"), "Device not found", objects.UnknownDevice(dev))
			return
		}
		f, err = nil, nil
	}
	if client.IsNeverScheduled(err) {
		// The service answered without a record: the device never had one.
		f, err = nil, nil
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the firmware update of device "+dev, err.Error())
		return
	}
	state := flattenFOTAStatus(dev, f)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// flattenFOTAStatus copies the FOTA of a device into the model; nil means the
// device never had a firmware update.
func flattenFOTAStatus(deviceID string, f *client.FOTA) fotaStatusModel {
	if f == nil {
		return fotaStatusModel{
			DeviceID: types.StringValue(deviceID), Scheduled: types.BoolValue(false),
			ScheduledAt: types.StringNull(), Status: types.StringNull(),
			FirmwareID: types.StringNull(), FirmwareVersion: types.StringNull(),
		}
	}
	return fotaStatusModel{
		DeviceID:        types.StringValue(deviceID),
		Scheduled:       types.BoolValue(true),
		ScheduledAt:     types.StringValue(f.ScheduledAt),
		Status:          types.StringValue(f.Status),
		FirmwareID:      types.StringValue(f.Value.FirmwareID),
		FirmwareVersion: types.StringValue(f.Value.FirmwareVersion),
	}
}
