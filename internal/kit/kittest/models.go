package kittest

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/kit"
)

func TestDeviceModel() kit.DeviceModel {
	return kit.DeviceModel{
		ID: types.StringValue("dev-1"), WorkspaceID: types.StringValue("wks-1"), Name: types.StringValue("sensor-1"),
		FleetID: types.StringValue("flt-1"), FleetName: types.StringValue("east"),
		WorkspaceName: types.StringValue("prod"), AccountID: types.StringValue("acc-1"),
		CreatedAt: types.StringValue("2025-03-01T12:00:00Z"), PhysID: types.StringValue("phys-1"),
		Identities: types.StringNull(),
	}
}

func TestFleetModel() kit.FleetModel {
	return kit.FleetModel{
		ID: types.StringValue("flt-1"), WorkspaceID: types.StringValue("wks-1"), Name: types.StringValue("east"),
		Description: types.StringValue("east coast"), AccountID: types.StringValue("acc-1"),
		CreatedAt: types.StringValue("2025-03-01T12:00:00Z"),
	}
}

func TestWorkspaceModel() kit.WorkspaceModel {
	return kit.WorkspaceModel{
		ID: types.StringValue("wks-1"), Name: types.StringValue("prod"), Description: types.StringValue(""),
		AccountID: types.StringValue("acc-1"), CreatedAt: types.StringValue("2025-03-01T12:00:00Z"),
	}
}
