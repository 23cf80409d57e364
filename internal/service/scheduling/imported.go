package scheduling

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// A fleet-wide scheduling imported by its string ID (see DESIGN.md, "Import
// and identity") cannot know which devices the lost state had reached, nor
// the fleets its configuration names: the import holds what the devices of
// the workspace show, and the first apply after it reads the configured
// fleets only. That apply is not a change of the configuration, so it sends
// the command to no device that holds a record of it: it records the
// configured value (or firmware) and triggers, and a later change of them
// sends it again.

// importedKey marks, in the private state of an imported fleet-wide
// scheduling, that no apply has followed the import yet.
const importedKey = "imported_scheduling"

// MarkImported marks the private state of an import (see importedKey).
func MarkImported(ctx context.Context, private PrivateData, diags *diag.Diagnostics) {
	if private != nil {
		diags.Append(private.SetKey(ctx, importedKey, []byte(`true`))...)
	}
}

// FollowsImport tells whether private (of a plan or an apply) is that of a
// scheduling no apply has followed since its import.
func FollowsImport(ctx context.Context, private PrivateData) bool {
	if private == nil {
		return false
	}
	v, _ := private.GetKey(ctx, importedKey)
	return len(v) > 0
}

// ClearImported removes the mark of MarkImported once an apply saved the
// state.
func ClearImported(ctx context.Context, private PrivateData, diags *diag.Diagnostics) {
	if private != nil {
		diags.Append(private.SetKey(ctx, importedKey, nil)...)
	}
}

// ImportRecorded is the warning of the first apply after the import of a
// fleet-wide scheduling (what: "job \"sync\" of fleet f-1 of workspace
// w-1"), which records the configuration and sends nothing to the devices
// that hold the command (change: the attributes whose change sends it).
func ImportRecorded(what string, devices int, change string) (string, string) {
	return "Imported scheduling recorded, not sent",
		fmt.Sprintf("This is the first apply since the %s was imported: the import cannot tell which devices this "+
			"resource had reached, so the configuration is recorded in the state, and the %d devices of the fleets "+
			"that hold a record of it do not get it again (sending it would run it a second time there). Change %s "+
			"to send it again.", what, devices, change)
}
