package kit

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

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
