data "zdm_fota_status" "sensor" {
  device_id = "dev-0123456789abcdef"
}

# A device that never had a firmware update reads as scheduled = false, with
# the other attributes null.
output "firmware" {
  value = data.zdm_fota_status.sensor.scheduled ? "${data.zdm_fota_status.sensor.firmware_id} ${data.zdm_fota_status.sensor.firmware_version}: ${data.zdm_fota_status.sensor.status}" : "no firmware update"
}

# The update status of every device of a fleet.
data "zdm_devices" "east" {
  fleet_id = "flt-00000000000000e1"
}

data "zdm_fota_status" "east" {
  for_each  = toset(data.zdm_devices.east.devices[*].id)
  device_id = each.key
}

output "east_not_done" {
  value = [for id, s in data.zdm_fota_status.east : id if s.status != "done"]
}
