# Adopt every device of one fleet without terraform query: the zdm_devices
# data source lists the devices (one API call), one for_each import block
# imports each of them by identity, and the resource block declares them
# with the names and fleet the service reports.
data "zdm_devices" "line_a" {
  fleet_id = "flt-0123456789abcdef"
}

locals {
  line_a = { for d in data.zdm_devices.line_a.devices : d.id => d }
}

import {
  for_each = local.line_a
  to       = zdm_device.line_a[each.key]
  identity = {
    id = each.key
  }
}

resource "zdm_device" "line_a" {
  for_each = local.line_a
  name     = each.value.name
  fleet_id = each.value.fleet_id
}
