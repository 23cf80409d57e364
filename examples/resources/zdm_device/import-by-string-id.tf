# Import a device by its import ID, <workspace_id>/<device_id> (or the device
# ID alone, in the provider's workspace). `terraform plan` shows the import;
# the block can stay in the configuration once applied.
import {
  to = zdm_device.sensor_by_id
  id = "wks-0123456789abcdef/dev-0123456789abcdef"
}

resource "zdm_device" "sensor_by_id" {
  name = "sensor-01"
}
