package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

var (
	_ datasource.DataSource                     = (*workspaceDataSource)(nil)
	_ datasource.DataSourceWithConfigure        = (*workspaceDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*workspaceDataSource)(nil)
)

func newWorkspaceDataSource() datasource.DataSource {
	return &workspaceDataSource{}
}

// workspaceDataSource reads one workspace of the key's account by ID or name.
type workspaceDataSource struct {
	data *providerData
}

// workspaceAttributes are the read-only attributes of a workspace in data
// sources; lookup attributes are made optional by the caller.
func workspaceAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":          schema.StringAttribute{MarkdownDescription: "Workspace ID.", Computed: true},
		"name":        schema.StringAttribute{MarkdownDescription: "Workspace name.", Computed: true},
		"description": schema.StringAttribute{MarkdownDescription: "Workspace description.", Computed: true},
		"account_id":  schema.StringAttribute{MarkdownDescription: "ID of the account that owns the workspace.", Computed: true},
		"created_at":  schema.StringAttribute{MarkdownDescription: "Creation time (RFC 3339).", Computed: true},
	}
}

// lookupAttribute is an optional string that selects the object to read.
func lookupAttribute(description string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: description,
		Optional:            true,
		Computed:            true,
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1), notBlank{}},
	}
}

func (d *workspaceDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workspace"
}

func (d *workspaceDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := workspaceAttributes()
	attrs["id"] = lookupAttribute("ID of the workspace to read. Exactly one of `id` and `name` must be set.")
	attrs["name"] = lookupAttribute("Name of the workspace to read; it must be unique in the account. " +
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

func (d *workspaceDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = configureData("Data Source", req.ProviderData, &resp.Diagnostics)
}

func (d *workspaceDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	if d.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	var cfg workspaceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	all, err := d.data.client.ListWorkspaces(ctx)
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
	if !checkUnique(&resp.Diagnostics, "workspace", attr, want, "the account", ids) {
		return
	}
	state := flattenWorkspace(&found[0])
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// lookupByIDOrName reads the kind object of scope named by id (when not
// null) with one get, or else by name with one list, where the name must be
// unique. It reports what went wrong on diags and returns nil then.
func lookupByIDOrName[T any](kind, scope string, id, name types.String, get func(string) (*T, error), list func() ([]T, error), nameOf, idOf func(T) string, diags *diag.Diagnostics) *T {
	if !id.IsNull() {
		want := id.ValueString()
		o, err := get(want)
		if client.IsNotFound(err) {
			checkUnique(diags, kind, "id", want, scope, nil)
			return nil
		}
		if err != nil {
			diags.AddError("Cannot read "+kind+" "+want+" of "+scope, err.Error())
			return nil
		}
		return o
	}
	want := name.ValueString()
	all, err := list()
	if err != nil {
		diags.AddError("Cannot list the "+kind+"s of "+scope, err.Error())
		return nil
	}
	var found []T
	var ids []string
	for _, o := range all {
		if nameOf(o) == want {
			found = append(found, o)
			ids = append(ids, idOf(o))
		}
	}
	if !checkUnique(diags, kind, "name", want, scope, ids) {
		return nil
	}
	return &found[0]
}

// checkUnique reports an error on attr when the lookup of kind by attr =
// want in scope found no object or several (listed by ID); it tells whether
// exactly one was found.
func checkUnique(diags *diag.Diagnostics, kind, attr, want, scope string, ids []string) bool {
	switch len(ids) {
	case 1:
		return true
	case 0:
		diags.AddAttributeError(path.Root(attr), "No "+kind+" found",
			"No "+kind+" with "+attr+" "+quote(want)+" exists in "+scope+".")
	default:
		diags.AddAttributeError(path.Root(attr), "Several "+kind+"s found",
			"The "+kind+" "+attr+" "+quote(want)+" is not unique in "+scope+": it matches "+
				strings.Join(ids, ", ")+". Look the "+kind+" up by id instead.")
	}
	return false
}
