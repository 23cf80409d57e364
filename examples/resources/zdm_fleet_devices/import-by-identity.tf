# Import every device of a fleet by the identity of the resource (Terraform
# 1.12 and later), keyed by device name. workspace_id may be left out to use
# the provider's workspace_id.
import {
  to = zdm_fleet_devices.imported
  identity = {
    workspace_id = "wks-0123456789abcdef"
    fleet_id     = "flt-0123456789abcdef"
  }
}

# The import keys each device by its name. Keys of your own (such as serial
# numbers) work too: each key whose name is the name of an imported device
# takes that device at the next apply instead of creating another one.
resource "zdm_fleet_devices" "imported" {
  fleet_id = "flt-0123456789abcdef"
  devices = {
    "SN-0001" = "sensor-01"
    "SN-0002" = "sensor-02"
  }
}
