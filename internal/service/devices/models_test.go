package devices_test

import (
	"encoding/json"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices/devicestest"
)

func TestFlattenDevice(t *testing.T) {
	t.Parallel()
	d := &client.Device{ID: "dev-1", Name: "sensor-1", Place: &client.Place{AccountID: "acc-1", FleetID: "flt-1", FleetName: "east",
		WorkspaceID: "wks-1", WorkspaceName: "prod"}, CreatedAt: "2025-03-01T12:00:00Z", PhysID: "phys-1"}
	if got := devices.FlattenDevice(d, "wks-other"); got != devicestest.TestDeviceModel() {
		t.Errorf("flattenDevice = %+v", got)
	}
	d.Place = &client.Place{AccountID: "acc-1", FleetID: "flt-1", FleetName: "east", WorkspaceName: "prod"}
	d.Identities = json.RawMessage(`[ {"type": "x509", "id": "abc"} ]`)
	want := devicestest.TestDeviceModel()
	want.Identities = types.StringValue(`[{"type":"x509","id":"abc"}]`)
	if got := devices.FlattenDevice(d, "wks-1"); got != want {
		t.Errorf("flattenDevice = %+v", got)
	}
}
