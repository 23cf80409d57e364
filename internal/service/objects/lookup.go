package objects

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// Lookups shared by data sources: by ID or by name, and whether a device exists.

// DeviceExists tells whether the service knows a device, for the error of a
// 404 on a device-addressed path that may mean either an unknown device or
// an unknown job or update. Listing the device's jobs needs no workspace.
func DeviceExists(ctx context.Context, c *client.Client, deviceID string) (bool, error) {
	_, err := c.ListJobs(ctx, deviceID, client.JobStatusDone)
	switch {
	case client.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	default:
		return true, nil
	}
}

// LookupByIDOrName reads the kind object of scope named by id (when not
// null) with one get, or else by name with one list, where the name must be
// unique. It reports what went wrong on diags and returns nil then.
func LookupByIDOrName[T any](kind, scope string, id, name types.String, get func(string) (*T, error), list func() ([]T, error), nameOf, idOf func(T) string, diags *diag.Diagnostics) *T {
	if !id.IsNull() {
		want := id.ValueString()
		o, err := get(want)
		if client.IsNotFound(err) {
			CheckUnique(diags, kind, "id", want, scope, nil)
			return nil
		}
		if err != nil {
			diags.AddError("Cannot read "+kind+" "+want+" of "+scope, err.Error())
			return nil
		}
		return o
	}
	return LookupByAttribute(kind, scope, "name", name.ValueString(), list, nameOf, idOf, diags)
}

// LookupByAttribute finds, with one list, the one kind object of scope whose
// attr (such as "name" or "phys_id", as valueOf reads it) is want. It
// reports no match or several matches on attr and returns nil then.
func LookupByAttribute[T any](kind, scope, attr, want string, list func() ([]T, error), valueOf, idOf func(T) string, diags *diag.Diagnostics) *T {
	all, err := list()
	if err != nil {
		diags.AddError("Cannot list the "+kind+"s of "+scope, err.Error())
		return nil
	}
	var found []T
	var ids []string
	for _, o := range all {
		if valueOf(o) == want {
			found = append(found, o)
			ids = append(ids, idOf(o))
		}
	}
	if !CheckUnique(diags, kind, attr, want, scope, ids) {
		return nil
	}
	return &found[0]
}

// CheckUnique reports an error on attr when the lookup of kind by attr =
// want in scope found no object or several (listed by ID); it tells whether
// exactly one was found.
func CheckUnique(diags *diag.Diagnostics, kind, attr, want, scope string, ids []string) bool {
	switch len(ids) {
	case 1:
		return true
	case 0:
		diags.AddAttributeError(path.Root(attr), "No "+kind+" found",
			"No "+kind+" with "+attr+" "+connection.Quote(want)+" exists in "+scope+".")
	default:
		diags.AddAttributeError(path.Root(attr), "Several "+kind+"s found",
			fmt.Sprintf("The %s %s %s is not unique in %s: %d %ss have it, with the IDs %s. Pick one by its ID: "+
				"set id = %s (or another of these IDs) instead of %s. The API cannot delete a %s, so a second %s of "+
				"a name (made by a replacement, or outside Terraform) stays in the service.",
				kind, attr, connection.Quote(want), scope, len(ids), kind, strings.Join(ids, ", "),
				connection.Quote(ids[0]), attr, kind, kind))
	}
	return false
}
