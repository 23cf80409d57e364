# All devices of the provider's workspace.
data "zdm_devices" "all" {}

# Only the devices of one fleet (filters are optional and combine).
data "zdm_devices" "sensors" {
  fleet_id = "flt-0123456789abcdef"
}

output "device_count" {
  value = length(data.zdm_devices.all.devices)
}

output "sensor_names" {
  value = data.zdm_devices.sensors.devices[*].name
}
