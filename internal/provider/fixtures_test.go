package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func testDeviceModel() deviceModel {
	return deviceModel{
		ID: types.StringValue("dev-1"), WorkspaceID: types.StringValue("wks-1"), Name: types.StringValue("sensor-1"),
		FleetID: types.StringValue("flt-1"), FleetName: types.StringValue("east"),
		WorkspaceName: types.StringValue("prod"), AccountID: types.StringValue("acc-1"),
		CreatedAt: types.StringValue("2025-03-01T12:00:00Z"), PhysID: types.StringValue("phys-1"),
		Identities: types.StringNull(),
	}
}

func testFleetModel() fleetModel {
	return fleetModel{
		ID: types.StringValue("flt-1"), WorkspaceID: types.StringValue("wks-1"), Name: types.StringValue("east"),
		Description: types.StringValue("east coast"), AccountID: types.StringValue("acc-1"),
		CreatedAt: types.StringValue("2025-03-01T12:00:00Z"),
	}
}

func testWorkspaceModel() workspaceModel {
	return workspaceModel{
		ID: types.StringValue("wks-1"), Name: types.StringValue("prod"), Description: types.StringValue(""),
		AccountID: types.StringValue("acc-1"), CreatedAt: types.StringValue("2025-03-01T12:00:00Z"),
	}
}
