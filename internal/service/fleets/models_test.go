package fleets_test

import (
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/service/fleets"
	"github.com/zdm/terraform-provider-zdm/internal/service/fleets/fleetstest"
)

func TestFlattenFleet(t *testing.T) {
	t.Parallel()
	f := &client.Fleet{ID: "flt-1", Name: "east", Description: "east coast", AccountID: "acc-1",
		WorkspaceID: "wks-1", CreatedAt: "2025-03-01T12:00:00Z"}
	if got := fleets.FlattenFleet(f, "wks-other"); got != fleetstest.TestFleetModel() {
		t.Errorf("flattenFleet = %+v", got)
	}
	f.WorkspaceID = ""
	if got := fleets.FlattenFleet(f, "wks-1"); got != fleetstest.TestFleetModel() {
		t.Errorf("flattenFleet without workspace_id = %+v", got)
	}
}

func TestFlattenWorkspace(t *testing.T) {
	t.Parallel()
	got := fleets.FlattenWorkspace(&client.Workspace{
		ID: "wks-1", Name: "prod", AccountID: "acc-1", CreatedAt: "2025-03-01T12:00:00Z",
	})
	if got != fleetstest.TestWorkspaceModel() {
		t.Errorf("flattenWorkspace = %+v", got)
	}
}
