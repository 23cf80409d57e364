package provider

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// Adoption after an ambiguous create: when the connection fails after a
// create request was sent, the object is adopted only when a listing proves
// it can only be ours.

// createSkew is how much older than the local clock just before a POST an
// object may look and still be adopted after an ambiguous create, to absorb
// clock differences between this machine and the service.
const createSkew = 2 * time.Minute

// createdSince reports whether the RFC 3339 timestamp createdAt is not
// before since minus createSkew. Unreadable timestamps do not match.
func createdSince(createdAt string, since time.Time) bool {
	t, err := time.Parse(time.RFC3339Nano, createdAt)
	if err != nil {
		return false
	}
	return !t.Before(since.Add(-createSkew))
}

// adoptCreated resolves an ambiguous create of a kind object named name
// from a listing of its collection taken after the create failed (all, or
// listErr when the listing failed too): it returns the only object that
// match accepts, with a warning, or reports an error under summary and
// returns nil. cause is the error of the create.
func adoptCreated[T any](kind, name, summary string, all []T, listErr, cause error, match func(T) bool, id func(T) string, diags *diag.Diagnostics) *T {
	if listErr != nil {
		diags.AddError(summary,
			"The create request may have reached the service ("+cause.Error()+"), and listing the "+kind+"s "+
				"to find out failed too: "+listErr.Error()+". Check the service before applying again.")
		return nil
	}
	var found []T
	var ids []string
	for _, o := range all {
		if match(o) {
			found = append(found, o)
			ids = append(ids, id(o))
		}
	}
	if len(found) != 1 {
		diags.AddError(ambiguousError(kind, name, ids, cause))
		return nil
	}
	diags.AddWarning(adoptedWarning(kind, name, ids[0]))
	return &found[0]
}

// adoptedWarning is emitted when an ambiguous create was resolved by
// adopting the object found in a listing.
func adoptedWarning(kind, name, id string) (string, string) {
	return "Adopted a " + kind + " after an interrupted create",
		"The connection failed after the create request of " + kind + " " + fmt.Sprintf("%q", name) +
			" was sent, so the service may have created it. One matching " + kind + " created since the request " +
			"was found (" + objectRef(kind, name, id) + ") and is now managed by Terraform instead of creating another one."
}

// ambiguousError is the error of an ambiguous create that could not be
// resolved: nothing or several objects matched.
func ambiguousError(kind, name string, matches []string, cause error) (string, string) {
	detail := "The connection failed after the create request of " + kind + " " + fmt.Sprintf("%q", name) +
		" was sent, so the service may or may not have created it (" + cause.Error() + "). "
	switch len(matches) {
	case 0:
		detail += "No matching " + kind + " created since the request exists, so nothing was created: run apply again."
	default:
		detail += fmt.Sprintf("%d matching %ss were created since the request (%s), so the provider cannot tell which is "+
			"its own. Import the right one with terraform import, then apply again.", len(matches), kind, strings.Join(matches, ", "))
	}
	return "Create of " + kind + " " + fmt.Sprintf("%q", name) + " interrupted", detail
}
