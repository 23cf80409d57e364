package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
)

// Streaming of list-resource results.

// displayName is the display name of a listed object: "name (id)".
func displayName(name, id string) string {
	return name + " (" + id + ")"
}

// streamResults streams the objects of all that match accepts as list
// results, at most req.Limit of them: each with the display name and identity
// that describe gives, and with include_resource the resource model that
// model builds from the same list answer (no request per object).
func streamResults[T, M any](ctx context.Context, req list.ListRequest, all []T, match func(*T) bool,
	describe func(*T) (name, id string, identity any), model func(*T) M) func(push func(list.ListResult) bool) {
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
			setIdentity(ctx, result.Identity, identity, &result.Diagnostics)
			if req.IncludeResource {
				m := model(o)
				result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
			}
			if !push(result) {
				return
			}
		}
	}
}
