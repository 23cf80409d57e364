package objects

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// Twins found after the fact (see DESIGN.md, "Twins are found after the
// fact"): the checks before a create cannot see a create of the same name
// made at the same time by another process (another state applied
// together, a provider alias, a person in the console). So right after its
// create, a resource lists the place of its objects again, afresh (never
// the walk's shared list, which holds our writes but not another
// process's), and another object of one of its names, which no resource of
// this configuration holds, fails the apply naming both. Of two creates at
// the same time, the one answered later lists after both exist, so at
// least one of the two applies fails. The refresh warns of such twins from
// then on, from the list it already holds.

// TwinItem formats a twin: the name, our object's ID and the other's.
func TwinItem(name, ours, other string) string {
	return connection.Quote(name) + ": " + ours + " (this resource's) and " + other
}

// ReportTwins fails the apply of owner, which just created objects of kind
// in where (`fleet "flt-1" of workspace "wks-1"`, in workspace ws), on the
// twins found (items from TwinItem), or warns when listing where failed (err): the
// objects created are in the state either way. stopUsing says how a
// configuration stops managing an object of kind.
func ReportTwins(kind, where, ws, owner string, items []string, err error, stopUsing string, diags *diag.Diagnostics) {
	if err != nil {
		diags.AddWarning("Cannot check for "+kind+"s of the same names created at the same time",
			"Right after its create, the provider lists the "+kind+"s of "+where+" again to find "+kind+"s of the same "+
				"names that another state or process created at the same time; the list failed: "+connection.DescribeError(err, ws)+
				" What was created is in the state. Run terraform plan: the refresh warns of such "+kind+"s.")
		return
	}
	if len(items) == 0 {
		return
	}
	diags.AddError(fmt.Sprintf("A second %s of the same name was created at the same time", kind),
		fmt.Sprintf("Right after this apply created it, %s held %s of the same name that no resource of this "+
			"configuration holds: %s. The plan found none, so another state, provider configuration or process "+
			"created it at the same time (two applies of configurations that name the same %s, for example). The API "+
			"cannot delete a %s, so both stay.\n\n"+
			"%s keeps the %s it created (the first ID) in its state. Terraform marks a resource whose create ends in "+
			"an error as tainted: run terraform untaint on its address before the next apply (a replacement would be "+
			"refused). Then choose "+
			"which %s of the name to use, stop using the other one in the configuration that holds it (%s), import "+
			"the kept one there if that configuration needs it, and rename or leave unused the other. Give each name "+
			"to one configuration only. To keep %ss of one name on purpose, set %s = true.",
			where, countOf(len(items), "other "+kind), connection.AbbreviateTo(items, connection.MaxListed), kind, kind,
			capitalized(owner), kind, kind, stopUsing, kind, AllowDuplicateNamesAttr))
}

// WarnTwins warns, at a refresh of owner, of other objects of kind in where
// with the names of its objects (items from TwinItem).
func WarnTwins(kind, where, owner string, items []string, stopUsing string, diags *diag.Diagnostics) {
	if len(items) == 0 {
		return
	}
	diags.AddWarning("Other "+kind+"s have the names of this resource's "+kind+"s",
		fmt.Sprintf("%s holds %s with the name of a %s of %s: %s. Lookups of the name find several %ss. If another state or process created it (two "+
			"applies at the same time), choose which %s of the name to use and stop using the other one in the "+
			"configuration that holds it (%s); rename the other or leave it unused. To keep %ss of one name on "+
			"purpose, set %s = true on this resource.",
			capitalized(where), countOf(len(items), "other "+kind), kind, owner, connection.AbbreviateTo(items, connection.MaxListed),
			kind, kind, stopUsing, kind, AllowDuplicateNamesAttr))
}

// capitalized is s with its first letter upper case.
func capitalized(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
