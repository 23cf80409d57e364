package devicestest

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/service/devices"
)

func TestDeviceModel() devices.DeviceModel {
	return devices.DeviceModel{
		ID: types.StringValue("dev-1"), WorkspaceID: types.StringValue("wks-1"), Name: types.StringValue("sensor-1"),
		FleetID: types.StringValue("flt-1"), FleetName: types.StringValue("east"),
		WorkspaceName: types.StringValue("prod"), AccountID: types.StringValue("acc-1"),
		CreatedAt: types.StringValue("2025-03-01T12:00:00Z"), PhysID: types.StringValue("phys-1"),
		Identities: types.StringNull(),
	}
}
