# Update one device. Changing firmware_version schedules the new version in
# place; status is read back on refresh ("pending", then for example "done").
resource "zdm_fota" "gateway" {
  device_id        = "dev-0123456789abcdef"
  firmware_id      = "fw-gateway"
  firmware_version = "2.3.1"
}

# Update every device of two fleets. workspace_id must be given explicitly.
# devices lists the devices the update was scheduled on.
resource "zdm_fota" "sensors" {
  workspace_id     = "wks-0123456789abcdef"
  fleet_ids        = ["flt-00000000000000e1", "flt-00000000000000e2"]
  firmware_id      = "fw-sensor"
  firmware_version = "1.4.0"

  # Schedule the same version again (for example after failures) by changing
  # a trigger.
  triggers = {
    attempt = "1"
  }
}

# Every fleet of a workspace: only with an explicit all_fleets = true. It
# targets the gateway's fleet too, and a device holds one firmware, so this
# configuration would be refused at plan beside zdm_fota.gateway (another
# firmware for that device): keep one firmware per device.
#
# resource "zdm_fota" "everything" {
#   workspace_id     = "wks-0123456789abcdef"
#   all_fleets       = true
#   firmware_id      = "fw-sensor"
#   firmware_version = "1.4.0"
# }

output "gateway_update_status" {
  value = zdm_fota.gateway.status
}

output "sensors_updated" {
  value = length(zdm_fota.sensors.devices)
}
