package jobs

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

var (
	_ datasource.DataSource              = (*deviceJobDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*deviceJobDataSource)(nil)
)

func NewDeviceJobDataSource() datasource.DataSource {
	return &deviceJobDataSource{DataSourceBase: objects.DataSourceBase{TypeSuffix: "_device_job"}}
}

// deviceJobDataSource reads one job of a device.
type deviceJobDataSource struct {
	objects.DataSourceBase
}

// deviceJobDataModel maps the zdm_device_job data source.
type deviceJobDataModel struct {
	DeviceID    types.String `tfsdk:"device_id"`
	Name        types.String `tfsdk:"name"`
	Status      types.String `tfsdk:"status"`
	ScheduledAt types.String `tfsdk:"scheduled_at"`
	Value       types.String `tfsdk:"value"`
}

func (d *deviceJobDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := JobItemAttributes()
	attrs["device_id"] = objects.DeviceIDAttribute("ID of the device that has the job. An unknown device is an error.")
	attrs["name"] = schema.StringAttribute{
		MarkdownDescription: "Name of the job to read. A device without a job of this name is an error.",
		Required:            true,
		Validators:          validators.NotEmpty(),
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads one job of a device by name: its status, when it was scheduled and its arguments.",
		Attributes:          attrs,
	}
}

func (d *deviceJobDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	cfg, ok := connection.Decode[deviceJobDataModel](ctx, d.Data, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	dev, name := cfg.DeviceID.ValueString(), cfg.Name.ValueString()
	job, err := d.Data.Client.GetJob(ctx, dev, name)
	if client.IsNotFound(err) {
		// Either the device or the job is unknown: tell which.
		exists, lerr := objects.DeviceExists(ctx, d.Data.Client, dev)
		switch {
		case lerr != nil:
			resp.Diagnostics.AddError("Cannot read job "+connection.Quote(name)+" of device "+dev, lerr.Error())
		case !exists:
			resp.Diagnostics.AddAttributeError(path.Root("device_id"), "Device not found", objects.UnknownDevice(dev))
		default:
			resp.Diagnostics.AddAttributeError(path.Root("name"), "Job not found",
				"Device "+dev+" has no job named "+connection.Quote(name)+". The zdm_device_jobs data source lists its jobs.")
		}
		return
	}
	if client.IsNeverScheduled(err) {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Job not found",
			"Device "+dev+" has no job named "+connection.Quote(name)+" (the service answered without a job). The "+
				"zdm_device_jobs data source lists its jobs.")
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read job "+connection.Quote(name)+" of device "+dev, err.Error())
		return
	}
	item := FlattenJobItem(job)
	cfg.Status, cfg.ScheduledAt, cfg.Value = item.Status, item.ScheduledAt, item.Value
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
