# All devices of the provider's workspace, sorted by name, then ID.
data "zdm_devices" "all" {}

# Only the devices of one fleet (filters are optional and combine).
data "zdm_devices" "sensors" {
  fleet_id = "flt-0123456789abcdef"
}

# The devices whose name matches: exactly (name), by prefix (name_prefix) or
# by a regular expression (name_regex); one of the three at most.
data "zdm_devices" "line_a" {
  fleet_id   = "flt-0123456789abcdef"
  name_regex = "^line-a-[0-9]+$"
}

# The device with a physical ID (as printed on the hardware).
data "zdm_devices" "by_serial" {
  phys_id = "SN-2026-000042"
}

output "device_count" {
  value = length(data.zdm_devices.all.devices)
}

output "sensor_names" {
  value = data.zdm_devices.sensors.devices[*].name
}
