package objects

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// Refusing a second copy (see DESIGN.md, "A replacement is refused when it
// would make a second copy"): the API cannot delete a workspace, a fleet or
// a device, so a create that repeats the name of one that exists (after
// terraform taint, -replace, a change that forces replacement, a renamed
// for_each key or a changed resource address) leaves a copy nobody can
// remove. Every plan that creates such an object reads what the service
// holds where it would be created and fails on a name that exists there,
// unless the resource's allow_duplicate_names is true. A plan that creates
// nothing sends no request for it.

// AllowDuplicateNamesAttr is the opt-in attribute of the resources that
// refuse a second copy.
const AllowDuplicateNamesAttr = "allow_duplicate_names"

// AllowDuplicateNamesAttribute is the opt-in of the resource of kind
// ("fleet", "workspace") to create an object whose name exists in scope
// ("workspace", "account"). It is optional (null is false) and changes
// nothing in the service: a change of it updates the state only.
func AllowDuplicateNamesAttribute(kind, scope string) schema.BoolAttribute {
	return schema.BoolAttribute{
		MarkdownDescription: "Set to `true` to create the " + kind + " even when its " + scope + " already has a " + kind +
			" of the same name; defaults to `false`. By default such a plan fails (also in the final plan of an apply), " +
			"because the API cannot delete a " + kind + ": a create that repeats an existing " + kind + " (after " +
			"`terraform taint`, `-replace`, a change of an attribute that replaces it, a renamed `for_each` key or a changed " +
			"resource address) would leave a second " + kind + " of that name forever, and every lookup of it by name " +
			"would then fail. Set it only when you want several " + kind + "s with one name. Changing it changes only " +
			"the Terraform state.",
		Optional: true,
	}
}

// NameClash is an object that has a name that a create would use.
type NameClash struct{ Name, ID string }

// SameNames returns the objects of all whose name is in names and whose ID
// is not in held (nil: none), sorted by name and ID.
func SameNames[T any](all []T, names, held map[string]bool, nameOf, idOf func(T) string) []NameClash {
	var out []NameClash
	for _, o := range all {
		if id := idOf(o); names[nameOf(o)] && !held[id] {
			out = append(out, NameClash{Name: nameOf(o), ID: id})
		}
	}
	slices.SortFunc(out, func(a, b NameClash) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// DuplicateNames describes the check of one create.
type DuplicateNames struct {
	// Kind is "workspace", "fleet" or "device"; Attr the attribute the
	// error is reported on.
	Kind string
	Attr path.Path
	// Where names the place of the create, capitalized ("Workspace
	// \"wks-1\"", "The account"); Ws is its workspace ("" for the
	// account), for the description of errors.
	Where, Ws string
	// Import says how to import an existing object, as a sentence ("as
	// zdm_fleet resources (terraform import <address> wks-1/<fleet_id>).").
	Import string
	// Replaced lists what replaces the object when changed ("name,
	// description or workspace_id"), for the way out of such a change.
	Replaced string
}

// Refuse reports on diags the outcome of the check of a create: clashes
// and err are what the list of the place of the create showed. A key the
// service does not accept (401) or a workspace that does not exist fails
// the plan at once (connection.PlanStopper); any other error fails it too
// (CheckListFailed), since nothing proves the names free.
func (c DuplicateNames) Refuse(ctx context.Context, clashes []NameClash, err error, diags *diag.Diagnostics) {
	if CheckListFailed(ctx, c.Attr, c.Kind, c.Ws, err, "This plan creates a "+c.Kind+", and before any create the "+
		"provider makes sure that no "+c.Kind+" of that name exists already, because the API cannot delete a copy.",
		c.Kind+"s of "+strings.ToLower(c.Where[:1])+c.Where[1:], diags) {
		return
	}
	if len(clashes) == 0 {
		return
	}
	items := make([]string, 0, len(clashes))
	for _, o := range clashes {
		items = append(items, connection.Quote(o.Name)+" ("+o.ID+")")
	}
	changed := ""
	if c.Replaced != "" {
		changed = "If a change of " + c.Replaced + " replaces it, keep the old value (the API cannot change a " + c.Kind +
			"), or give the new " + c.Kind + " another name. "
	}
	diags.AddAttributeError(c.Attr, "A "+c.Kind+" with this name already exists",
		fmt.Sprintf("%s already has %s of the name that this plan would create: %s. "+
			"The API cannot delete a %s, so creating it would leave a second %s of that name forever (and every lookup "+
			"of it by name would fail). Nothing was sent.\n\n"+
			"If it is this resource's %s (after terraform taint, -replace, a renamed for_each key or a changed resource "+
			"address), keep it: run terraform untaint on the address, drop -replace, or add a moved block from the old "+
			"address to the new one. %sIf an apply was killed or timed out after it created the %s (a CI runner's "+
			"timeout, an out-of-memory kill: the %s exists, the state was never written), or it was made outside this "+
			"resource, import it %s "+
			"To create a second %s with the same name anyway, set %s = true.",
			c.Where, countOf(len(clashes), c.Kind), connection.AbbreviateTo(items, connection.MaxListed), c.Kind, c.Kind,
			c.Kind, changed, c.Kind, c.Kind, c.Import, c.Kind, AllowDuplicateNamesAttr))
}

// CheckListFailed reports what a failed list of the place of a create
// means for the check of names already taken, the same for devices, fleets
// and workspaces, and returns whether the list failed (the check cannot go
// on). A key the service does not accept (401) or a workspace that does not
// exist fails the plan at once (connection.PlanStopper). Every other failure
// fails the plan as well, since nothing proves the names free: the check
// fails closed. That is another 4xx (a 403 of a key that may create but not
// list, a 400 or 403 of a proxy), a 5xx or 429 left after the retries, a
// connection error or an answer that is not the list. why says what the
// check is for, listing what was listed; kind names the resource's opt-in,
// which skips the read (and so this refusal) altogether.
func CheckListFailed(ctx context.Context, attr path.Path, kind, ws string, err error, why, listing string,
	diags *diag.Diagnostics) bool {
	if err == nil {
		return false
	}
	if summary := connection.PlanStopper(err, ws); summary != "" {
		diags.AddAttributeError(attr, summary, connection.DescribeError(err, ws))
		return true
	}
	tflog.Debug(ctx, "the check for "+kind+"s with the same names could not read the list; the plan fails",
		map[string]any{"workspace_id": ws, "error": err.Error()})
	next := "Plan again once the service answers."
	var apiErr *client.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode >= 400 && apiErr.StatusCode < 500 && apiErr.StatusCode != http.StatusTooManyRequests {
		next = "The service, or a proxy in front of it, refused the list. Give the API key the permission to list the " +
			listing + ", or fix the proxy (or base_url) so that the list reaches the service, then plan again."
	}
	diags.AddAttributeError(attr, "Cannot check for "+kind+"s with the same names",
		connection.Sentence(why)+" Listing the "+listing+" failed: "+connection.DescribeError(err, ws)+
			" Nothing was sent. "+next+"\n\nOnly if a second "+kind+" of the same name is truly acceptable (the API "+
			"cannot delete the copy), set "+AllowDuplicateNamesAttr+" = true on the resource: the plan then creates "+
			"without this check and reads nothing for it.")
	return true
}

// countOf is "a fleet" or "3 fleets".
func countOf(n int, kind string) string {
	if n == 1 {
		return "a " + kind
	}
	return fmt.Sprintf("%d %ss", n, kind)
}
