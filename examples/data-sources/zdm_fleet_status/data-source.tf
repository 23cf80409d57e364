# The firmware update of every device of two fleets, checked against the
# version that should be running.
data "zdm_fleet_status" "firmware" {
  workspace_id     = "wks-0123456789abcdef"
  fleet_ids        = ["flt-00000000000000e1", "flt-00000000000000e2"]
  fota             = true
  firmware_id      = "fw-sensor"
  firmware_version = "2.1.0"
}

# Warns at every plan while a device of the fleets is not on 2.1.0, or has
# not finished installing it.
check "sensors_on_2_1" {
  assert {
    condition     = length(data.zdm_fleet_status.firmware.missing_device_ids) == 0
    error_message = "Not on fw-sensor 2.1.0: ${join(", ", data.zdm_fleet_status.firmware.missing_device_ids)}"
  }
  assert {
    condition     = lookup(data.zdm_fleet_status.firmware.status_counts, "done", 0) == data.zdm_fleet_status.firmware.device_count
    error_message = "Firmware update not done on ${data.zdm_fleet_status.firmware.device_count - lookup(data.zdm_fleet_status.firmware.status_counts, "done", 0)} devices."
  }
}

# A job on every device of the provider's default workspace: which devices
# never got it, and which have not run it yet.
data "zdm_fleet_status" "rotate_keys" {
  job_name = "rotate-keys"
}

output "rotate_keys_missing" {
  value = data.zdm_fleet_status.rotate_keys.missing_device_ids
}

output "rotate_keys_pending" {
  value = [for d in data.zdm_fleet_status.rotate_keys.devices : d.device_id if d.status == "pending"]
}
