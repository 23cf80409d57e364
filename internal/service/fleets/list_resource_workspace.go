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
	_ list.ListResource              = (*workspaceListResource)(nil)
	_ list.ListResourceWithConfigure = (*workspaceListResource)(nil)
)

func NewWorkspaceListResource() list.ListResource {
	return &workspaceListResource{ListResourceBase: objects.ListResourceBase{TypeSuffix: "_workspace"}}
}

// workspaceListResource lists the workspaces of the API key's account for
// terraform query, with one API call per list block.
type workspaceListResource struct {
	objects.ListResourceBase
}

// workspaceListModel maps the config block of a zdm_workspace list block.
type workspaceListModel struct {
	Name types.String `tfsdk:"name"`
}

func (r *workspaceListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the workspaces of the API key's account for `terraform query`, with one API " +
			"call per `list` block. Results come sorted by name, then by ID, so that `limit` keeps the same " +
			"workspaces whatever order the service answers in. Each result is identified by `id` and displayed as `name (id)`; with " +
			"`include_resource = true` (implied by `-generate-config-out`) it carries the whole workspace.",
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{
				MarkdownDescription: "Only list the workspaces with exactly this name.",
				Optional:            true,
				Validators:          validators.NotEmpty(),
			},
		},
	}
}

func (r *workspaceListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg workspaceListModel
	if !objects.ListConfig(ctx, r.Data, req, stream, &cfg) {
		return
	}
	all, err := r.Data.Client.ListWorkspaces(ctx)
	if err != nil {
		objects.ListError(stream, "Cannot list the workspaces", err.Error())
		return
	}
	name := cfg.Name.ValueString()
	objects.SortWorkspaces(all)
	stream.Results = objects.StreamResults(ctx, req, all,
		func(w *client.Workspace) bool { return name == "" || w.Name == name },
		func(w *client.Workspace) (string, string, any) {
			return w.Name, w.ID, objects.WorkspaceIdentityModel{ID: types.StringValue(w.ID)}
		},
		objects.WithModel(ctx, func(w *client.Workspace) WorkspaceResourceModel {
			return WorkspaceResourceModel{WorkspaceModel: FlattenWorkspace(w)}
		}))
}
