package objects

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// Streaming of list-resource results.

// ListConfig reads the config block of a List into cfg. It returns false,
// with the stream set to the diagnostics, when the provider is not
// configured or the block cannot be read.
func ListConfig(ctx context.Context, data *connection.ProviderData, req list.ListRequest, stream *list.ListResultsStream, cfg any) bool {
	var diags diag.Diagnostics
	if data == nil {
		connection.NotConfigured(&diags)
	} else {
		diags.Append(req.Config.Get(ctx, cfg)...)
	}
	return ListOK(stream, diags)
}

// ListOK tells whether diags hold no error; otherwise it sets the stream to
// them.
func ListOK(stream *list.ListResultsStream, diags diag.Diagnostics) bool {
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return false
	}
	return true
}

// ListError ends a List with one error.
func ListError(stream *list.ListResultsStream, summary, detail string) {
	var diags diag.Diagnostics
	diags.AddError(summary, detail)
	stream.Results = list.ListResultsStreamDiagnostics(diags)
}

// displayName is the display name of a listed object: "name (id)".
func displayName(name, id string) string {
	return name + " (" + id + ")"
}

// StreamResults streams the objects of all that match accepts as list
// results, at most req.Limit of them: each with the display name and identity
// that describe gives, and with include_resource the resource that fill
// writes from the same list answer (no request per object).
func StreamResults[T any](ctx context.Context, req list.ListRequest, all []T, match func(*T) bool,
	describe func(*T) (name, id string, identity any), fill func(*T, *tfsdk.Resource) diag.Diagnostics) func(push func(list.ListResult) bool) {
	return func(push func(list.ListResult) bool) {
		var n int64
		for i := range all {
			o := &all[i]
			if !match(o) {
				continue
			}
			if req.Limit > 0 && n >= req.Limit {
				return
			}
			n++
			name, id, identity := describe(o)
			result := req.NewListResult(ctx)
			result.DisplayName = displayName(name, id)
			SetIdentity(ctx, result.Identity, identity, &result.Diagnostics)
			if req.IncludeResource {
				result.Diagnostics.Append(fill(o, result.Resource)...)
			}
			if !push(result) {
				return
			}
		}
	}
}

// WithModel is a fill of streamResults that sets the whole resource from the
// model that model builds (the same conversion as the resource's Read).
func WithModel[T, M any](ctx context.Context, model func(*T) M) func(*T, *tfsdk.Resource) diag.Diagnostics {
	return func(o *T, r *tfsdk.Resource) diag.Diagnostics {
		m := model(o)
		return r.Set(ctx, &m)
	}
}

// WithAttributes is a fill of streamResults that sets the attributes that
// attrs gives (the others stay null).
func WithAttributes[T any](ctx context.Context, attrs func(*T) map[string]attr.Value) func(*T, *tfsdk.Resource) diag.Diagnostics {
	return func(o *T, r *tfsdk.Resource) diag.Diagnostics {
		var diags diag.Diagnostics
		for name, v := range attrs(o) {
			diags.Append(r.SetAttribute(ctx, path.Root(name), v)...)
		}
		return diags
	}
}

// ListResourceBase gives a list resource its type name and the provider's
// configuration: a list resource embeds it and sets TypeSuffix.
type ListResourceBase struct {
	// TypeSuffix follows the provider's type name: "_fleet".
	TypeSuffix string
	// Data is what the provider's Configure made; nil before it is known.
	Data *connection.ProviderData
}

// Metadata implements list.ListResource.
func (b *ListResourceBase) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + b.TypeSuffix
}

// Configure implements list.ListResourceWithConfigure.
func (b *ListResourceBase) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	b.Data = connection.ConfigureData("List Resource", req.ProviderData, &resp.Diagnostics)
}

// ListInWorkspace starts the List of objects of a workspace: it reads the
// config block into cfg (ListConfig) and returns the workspace to list, its
// workspace_id or the provider's. It returns false after it set the stream
// to the error.
func ListInWorkspace(ctx context.Context, d *connection.ProviderData, req list.ListRequest, stream *list.ListResultsStream, cfg any, workspace func() types.String) (string, bool) {
	if !ListConfig(ctx, d, req, stream, cfg) {
		return "", false
	}
	var diags diag.Diagnostics
	ws := WorkspaceOrDefault(d, workspace(), path.Root("workspace_id"), &diags)
	return ws, ListOK(stream, diags)
}

// ListFleets lists the fleets of ws, sorted (SortFleets), for a List. It
// returns false after it set the stream to the error.
func ListFleets(ctx context.Context, d *connection.ProviderData, ws string, stream *list.ListResultsStream) ([]client.Fleet, bool) {
	fleets, err := d.Client.ListFleets(ctx, ws)
	if err != nil {
		ListError(stream, "Cannot list the fleets of workspace "+ws, err.Error())
		return nil, false
	}
	SortFleets(fleets)
	return fleets, true
}
