# A device by name; the name must be unique in the workspace (otherwise the
# error lists the matching IDs and the device must be read by id).
data "zdm_device" "gateway" {
  name = "gateway-01"
}

# A device by ID.
data "zdm_device" "sensor" {
  id = "dev-0123456789abcdef"
}

# A device by its physical ID, as printed on the hardware (unique in the
# workspace, like a name).
data "zdm_device" "from_factory" {
  phys_id = "SN-2026-000042"
}

output "gateway_fleet" {
  value = data.zdm_device.gateway.fleet_name
}
