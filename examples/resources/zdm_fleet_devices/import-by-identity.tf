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

# The import keys each device by its name: write every device of the fleet
# as "<name>" = "<name>", so that the plan after the import is empty.
resource "zdm_fleet_devices" "imported" {
  fleet_id = "flt-0123456789abcdef"
  devices = {
    "sensor-01" = "sensor-01"
    "sensor-02" = "sensor-02"
  }
}
