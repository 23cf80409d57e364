package devices

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/listresourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

var (
	_ list.ListResource                     = (*deviceListResource)(nil)
	_ list.ListResourceWithConfigure        = (*deviceListResource)(nil)
	_ list.ListResourceWithConfigValidators = (*deviceListResource)(nil)
)

func NewDeviceListResource() list.ListResource {
	return &deviceListResource{ListResourceBase: objects.ListResourceBase{TypeSuffix: "_device"}}
}

// deviceListResource lists the devices of a workspace for terraform query,
// with one API call per list block.
type deviceListResource struct {
	objects.ListResourceBase
}

// deviceListModel maps the config block of a zdm_device list block.
type deviceListModel struct {
	WorkspaceID types.String `tfsdk:"workspace_id"`
	deviceFilterModel
}

func (r *deviceListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	attrs := map[string]schema.Attribute{
		"workspace_id": schema.StringAttribute{
			MarkdownDescription: "Workspace to list; defaults to the provider's `workspace_id`.",
			Optional:            true,
			Validators:          validators.NotEmpty(),
		},
	}
	for name, a := range deviceFilterArgs() {
		attrs[name] = schema.StringAttribute{MarkdownDescription: a.Description, Optional: true, Validators: a.Validators}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the devices of a workspace for `terraform query`, with one API call per " +
			"`list` block, optionally only those of one fleet, with one physical ID, or whose name matches (the " +
			"filters of the `zdm_devices` data source). Results come sorted by name, then by ID, so that `limit` " +
			"keeps the same devices whatever order the service answers in. Each result is identified by " +
			"`workspace_id` and `id` and displayed as `name (id)`; with `include_resource = true` (implied by " +
			"`-generate-config-out`) it carries the whole device. Terraform returns at most `limit` results " +
			"(100 unless the `list` block sets `limit`).",
		Attributes: attrs,
	}
}

func (r *deviceListResource) ListResourceConfigValidators(context.Context) []list.ConfigValidator {
	return []list.ConfigValidator{listresourcevalidator.Conflicting(deviceNameFilters()...)}
}

func (r *deviceListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg deviceListModel
	if !objects.ListConfig(ctx, r.Data, req, stream, &cfg) {
		return
	}
	var diags diag.Diagnostics
	ws := objects.WorkspaceOrDefault(r.Data, cfg.WorkspaceID, path.Root("workspace_id"), &diags)
	match, err := cfg.matcher()
	if err != nil {
		diags.AddAttributeError(path.Root("name_regex"), "Invalid name_regex", err.Error())
	}
	if !objects.ListOK(stream, diags) {
		return
	}

	all, err := r.Data.Client.ListDevices(ctx, ws)
	if err != nil {
		objects.ListError(stream, "Cannot list the devices of workspace "+ws, err.Error())
		return
	}
	objects.SortDevices(all)
	stream.Results = objects.StreamResults(ctx, req, all, match,
		func(d *client.Device) (string, string, any) {
			return d.Name, d.ID, objects.NewInWorkspaceIdentity(ws, d.ID)
		},
		objects.WithModel(ctx, func(d *client.Device) DeviceResourceModel {
			return DeviceResourceModel{DeviceModel: FlattenDevice(d, ws), AllowDuplicateNames: types.BoolNull()}
		}))
}
