package fleets

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

var (
	_ list.ListResource              = (*fleetListResource)(nil)
	_ list.ListResourceWithConfigure = (*fleetListResource)(nil)
)

func NewFleetListResource() list.ListResource {
	return &fleetListResource{ListResourceBase: objects.ListResourceBase{TypeSuffix: "_fleet"}}
}

// fleetListResource lists the fleets of a workspace for terraform query,
// with one API call per list block.
type fleetListResource struct {
	objects.ListResourceBase
}

// fleetListModel maps the config block of a zdm_fleet list block.
type fleetListModel struct {
	WorkspaceID types.String `tfsdk:"workspace_id"`
	Name        types.String `tfsdk:"name"`
}

func (r *fleetListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	filter := validators.NotEmpty()
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the fleets of a workspace for `terraform query`, with one API call per " +
			"`list` block. Results come sorted by name, then by ID, so that `limit` keeps the same fleets whatever " +
			"order the service answers in. Each result is identified by `workspace_id` and `id` and displayed as `name (id)`; " +
			"with `include_resource = true` (implied by `-generate-config-out`) it carries the whole fleet. " +
			"The workspace's `default` fleet is listed too.",
		Attributes: map[string]schema.Attribute{
			"workspace_id": schema.StringAttribute{
				MarkdownDescription: "Workspace to list; defaults to the provider's `workspace_id`.",
				Optional:            true,
				Validators:          filter,
			},
			"name": schema.StringAttribute{
				MarkdownDescription: "Only list the fleets with exactly this name.",
				Optional:            true,
				Validators:          filter,
			},
		},
	}
}

func (r *fleetListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg fleetListModel
	ws, ok := objects.ListInWorkspace(ctx, r.Data, req, stream, &cfg, func() types.String { return cfg.WorkspaceID })
	if !ok {
		return
	}
	all, ok := objects.ListFleets(ctx, r.Data, ws, stream)
	if !ok {
		return
	}
	name := cfg.Name.ValueString()
	stream.Results = objects.StreamResults(ctx, req, all,
		func(f *client.Fleet) bool { return name == "" || f.Name == name },
		func(f *client.Fleet) (string, string, any) {
			return f.Name, f.ID, objects.NewInWorkspaceIdentity(ws, f.ID)
		},
		objects.WithModel(ctx, func(f *client.Fleet) FleetResourceModel {
			return FleetResourceModel{FleetModel: FlattenFleet(f, ws)}
		}))
}
