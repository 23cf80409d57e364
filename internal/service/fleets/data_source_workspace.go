package fleets

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
	_ datasource.DataSource                     = (*workspaceDataSource)(nil)
	_ datasource.DataSourceWithConfigure        = (*workspaceDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*workspaceDataSource)(nil)
)

func NewWorkspaceDataSource() datasource.DataSource {
	return &workspaceDataSource{DataSourceBase: objects.DataSourceBase{TypeSuffix: "_workspace"}}
}

// workspaceDataSource reads one workspace of the key's account by ID or name.
type workspaceDataSource struct {
	objects.DataSourceBase
}

func (d *workspaceDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := WorkspaceAttributes()
	attrs["id"] = objects.LookupAttribute("ID of the workspace to read. Exactly one of `id` and `name` must be set.")
	attrs["name"] = objects.LookupAttribute("Name of the workspace to read; it must be unique in the account. " +
		"Exactly one of `id` and `name` must be set.")
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads one workspace of the API key's account, by ID or by name.",
		Attributes:          attrs,
	}
}

func (d *workspaceDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("name")),
	}
}

func (d *workspaceDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	cfg, ok := connection.Decode[WorkspaceModel](ctx, d.Data, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	all, err := d.Data.Client.ListWorkspaces(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Cannot list workspaces", err.Error())
		return
	}
	var found []client.Workspace
	var attr, want string
	if !cfg.ID.IsNull() {
		attr, want = "id", cfg.ID.ValueString()
		for _, w := range all {
			if w.ID == want {
				found = append(found, w)
			}
		}
	} else {
		attr, want = "name", cfg.Name.ValueString()
		for _, w := range all {
			if w.Name == want {
				found = append(found, w)
			}
		}
	}
	ids := make([]string, 0, len(found))
	for _, w := range found {
		ids = append(ids, w.ID)
	}
	if !objects.CheckUnique(&resp.Diagnostics, "workspace", attr, want, "the account", ids) {
		return
	}
	state := FlattenWorkspace(&found[0])
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}
