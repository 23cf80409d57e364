package values

import (
	"context"
	"slices"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Terraform values: known strings, and sets and lists of strings.

// SetStrings returns the elements of a set of strings, sorted; nil when the
// set is null or unknown.
func SetStrings(ctx context.Context, s types.Set, diags *diag.Diagnostics) []string {
	if s.IsNull() || s.IsUnknown() {
		return nil
	}
	var out []string
	diags.Append(s.ElementsAs(ctx, &out, false)...)
	sort.Strings(out)
	return out
}

// SortedList returns a list value of the strings, sorted.
func SortedList(items []string) types.List {
	return StringList(slices.Sorted(slices.Values(items)))
}

// StringList returns a list value of the strings.
func StringList(items []string) types.List {
	elems := make([]attr.Value, len(items))
	for i, s := range items {
		elems[i] = types.StringValue(s)
	}
	return types.ListValueMust(types.StringType, elems)
}

// Known reports whether s is neither null nor unknown.
func Known(s types.String) bool {
	return !s.IsNull() && !s.IsUnknown()
}
