package fleetstest

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/service/fleets"
)

func TestFleetModel() fleets.FleetModel {
	return fleets.FleetModel{
		ID: types.StringValue("flt-1"), WorkspaceID: types.StringValue("wks-1"), Name: types.StringValue("east"),
		Description: types.StringValue("east coast"), AccountID: types.StringValue("acc-1"),
		CreatedAt: types.StringValue("2025-03-01T12:00:00Z"),
	}
}

func TestWorkspaceModel() fleets.WorkspaceModel {
	return fleets.WorkspaceModel{
		ID: types.StringValue("wks-1"), Name: types.StringValue("prod"), Description: types.StringValue(""),
		AccountID: types.StringValue("acc-1"), CreatedAt: types.StringValue("2025-03-01T12:00:00Z"),
	}
}
