package jobs

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

var (
	_ list.ListResource              = (*deviceJobListResource)(nil)
	_ list.ListResourceWithConfigure = (*deviceJobListResource)(nil)
)

func NewDeviceJobListResource() list.ListResource {
	return &deviceJobListResource{ListResourceBase: objects.ListResourceBase{TypeSuffix: "_device_job"}}
}

// deviceJobListResource lists the jobs of a device for terraform query, with
// one API call per list block.
type deviceJobListResource struct {
	objects.ListResourceBase
}

// deviceJobListModel maps the config block of a zdm_device_job list block.
type deviceJobListModel struct {
	DeviceID types.String `tfsdk:"device_id"`
	Status   types.String `tfsdk:"status"`
}

func (r *deviceJobListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the jobs of a device for `terraform query`, with one API call per `list` block, " +
			"optionally only the `pending` or the `done` ones, so that they can be imported in bulk. Results come " +
			"sorted by job name. Each result is identified by `device_id` and `name` and displayed as " +
			"`name (device_id)`; with `include_resource = true` (implied by `-generate-config-out`) it carries the " +
			"job as the service answers it (`triggers` are not known to the service). Terraform returns at most " +
			"`limit` results (100 unless the `list` block sets `limit`).",
		Attributes: map[string]schema.Attribute{
			"device_id": schema.StringAttribute{
				MarkdownDescription: "ID of the device whose jobs are listed. An unknown device is an error.",
				Required:            true,
				Validators:          validators.NotEmpty(),
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "Only list the jobs with this status: `pending` or `done`. All jobs when not set.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(client.JobStatusPending, client.JobStatusDone)},
			},
		},
	}
}

func (r *deviceJobListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg deviceJobListModel
	if !objects.ListConfig(ctx, r.Data, req, stream, &cfg) {
		return
	}
	dev := cfg.DeviceID.ValueString()
	jobs, err := r.Data.Client.ListJobs(ctx, dev, cfg.Status.ValueString())
	if client.IsNotFound(err) {
		var diags diag.Diagnostics
		diags.AddAttributeError(path.Root("device_id"), "Device not found", objects.UnknownDevice(dev))
		objects.ListOK(stream, diags)
		return
	}
	if err != nil {
		objects.ListError(stream, "Cannot list the jobs of device "+dev, err.Error())
		return
	}
	objects.SortJobs(jobs)
	stream.Results = objects.StreamResults(ctx, req, jobs,
		func(*client.Job) bool { return true },
		func(j *client.Job) (string, string, any) {
			return j.Name, dev, objects.DeviceJobIdentityModel{DeviceID: types.StringValue(dev), Name: types.StringValue(j.Name)}
		},
		objects.WithAttributes(ctx, func(j *client.Job) map[string]attr.Value {
			attrs := map[string]attr.Value{
				"id":           types.StringValue(objects.DeviceJobID(dev, j.Name)),
				"device_id":    types.StringValue(dev),
				"name":         types.StringValue(j.Name),
				"status":       types.StringValue(j.Status),
				"scheduled_at": types.StringValue(j.ScheduledAt),
			}
			// Keys sorted, so that the generated configuration does not depend
			// on the order the service echoes them in (Read compares values
			// as JSON); a list without the value (which a service need not
			// echo) leaves it null.
			if v := values.SortedJSON(j.Value); v != "null" {
				attrs["value"] = types.DynamicValue(types.StringValue(v))
			}
			return attrs
		}))
}
