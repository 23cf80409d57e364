# A device by name; the name must be unique in the workspace (otherwise the
# error lists the matching IDs and the device must be read by id).
data "zdm_device" "gateway" {
  name = "gateway-01"
}

# A device by ID.
data "zdm_device" "sensor" {
  id = "dev-0123456789abcdef"
}

output "gateway_fleet" {
  value = data.zdm_device.gateway.fleet_name
}
