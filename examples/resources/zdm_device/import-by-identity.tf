# Import a device by its identity (Terraform 1.12 and later). workspace_id may
# be left out to use the provider's workspace_id.
import {
  to = zdm_device.imported
  identity = {
    workspace_id = "wks-0123456789abcdef"
    id           = "dev-0123456789abcdef"
  }
}

resource "zdm_device" "imported" {
  name     = "sensor-01"
  fleet_id = "flt-0123456789abcdef"
}

# Import many devices at once: one import block and one resource instance per
# device, keyed by device ID. The names and fleets are those of the devices
# in the service, so the plan after the import is empty.
locals {
  devices = {
    "dev-00000000000000a1" = { name = "sensor-02", fleet_id = "flt-0123456789abcdef" }
    "dev-00000000000000a2" = { name = "sensor-03", fleet_id = "flt-0123456789abcdef" }
  }
}

import {
  for_each = local.devices
  to       = zdm_device.adopted[each.key]
  identity = {
    id = each.key
  }
}

resource "zdm_device" "adopted" {
  for_each = local.devices
  name     = each.value.name
  fleet_id = each.value.fleet_id
}
