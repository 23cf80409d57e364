package objects_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// TestWorkspaceOrDefault: without a workspace_id and without the
// provider's, the error names the environment variable that sets it.
func TestWorkspaceOrDefault(t *testing.T) {
	t.Parallel()
	var resp fwprovider.ConfigureResponse
	d := &connection.ProviderData{}
	if ws := objects.WorkspaceOrDefault(d, types.StringNull(), path.Root("workspace_id"), &resp.Diagnostics); ws != "" ||
		!resp.Diagnostics.HasError() {
		t.Fatalf("no workspace: %q, %v", ws, resp.Diagnostics)
	}
	if got := resp.Diagnostics[0].Detail(); !regexp.MustCompile(connection.EnvWorkspaceID).MatchString(got) {
		t.Errorf("error does not name %s: %s", connection.EnvWorkspaceID, got)
	}
}
