package jobs

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

var (
	_ datasource.DataSource              = (*deviceJobsDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*deviceJobsDataSource)(nil)
)

func NewDeviceJobsDataSource() datasource.DataSource {
	return &deviceJobsDataSource{DataSourceBase: objects.DataSourceBase{TypeSuffix: "_device_jobs"}}
}

// deviceJobsDataSource lists the jobs of a device.
type deviceJobsDataSource struct {
	objects.DataSourceBase
}

// deviceJobsModel maps the zdm_device_jobs data source.
type deviceJobsModel struct {
	DeviceID types.String   `tfsdk:"device_id"`
	Status   types.String   `tfsdk:"status"`
	Jobs     []JobItemModel `tfsdk:"jobs"`
}

func (d *deviceJobsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the jobs of a device (one API call), optionally only the `pending` or the `done` ones.",
		Attributes: map[string]schema.Attribute{
			"device_id": objects.DeviceIDAttribute("ID of the device whose jobs are listed. An unknown device is an error."),
			"status": schema.StringAttribute{
				MarkdownDescription: "Only list the jobs with this status: `pending` or `done`. All jobs when not set.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(client.JobStatusPending, client.JobStatusDone)},
			},
			"jobs": schema.ListNestedAttribute{
				MarkdownDescription: "The jobs of the device, sorted by name (the same order whatever order the service answers in).",
				Computed:            true,
				NestedObject:        schema.NestedAttributeObject{Attributes: JobItemAttributes()},
			},
		},
	}
}

func (d *deviceJobsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	cfg, ok := connection.Decode[deviceJobsModel](ctx, d.Data, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	dev := cfg.DeviceID.ValueString()
	jobs, err := d.Data.Client.ListJobs(ctx, dev, cfg.Status.ValueString())
	if client.IsNotFound(err) {
		resp.Diagnostics.AddAttributeError(path.Root("device_id"), "Device not found", objects.UnknownDevice(dev))
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot list the jobs of device "+dev, err.Error())
		return
	}
	objects.SortJobs(jobs)
	cfg.Jobs = make([]JobItemModel, len(jobs))
	for i := range jobs {
		cfg.Jobs[i] = FlattenJobItem(&jobs[i])
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
