variable "workspace_id" {
  type = string
}

variable "sensor_firmware_version" {
  type    = string
  default = "2.1.0"
}

data "zdm_fleet" "sensors_eu" {
  workspace_id = var.workspace_id
  name         = "sensors-eu"
}

data "zdm_fleet" "sensors_us" {
  workspace_id = var.workspace_id
  name         = "sensors-us"
}

resource "zdm_fota_rollout" "sensors" {
  workspace_id     = var.workspace_id
  fleet_ids        = [data.zdm_fleet.sensors_eu.id, data.zdm_fleet.sensors_us.id]
  firmware_id      = "fw-sensor"
  firmware_version = var.sensor_firmware_version

  # 1% first (at least one device), then 10%, 50% and every device.
  waves = ["1%", "10%", "50%", "100%"]

  # What the devices report. The API names no failure status: say which
  # statuses mean failure, or a failing device only shows at wave_timeout.
  success_statuses  = ["done"]
  failure_statuses  = ["failed"]
  max_failure_ratio = 0.05 # a wave stops the rollout when more than 5% fail
  wave_timeout      = "45m"
  poll_interval     = "30s"

  pause_between_waves = "10m"
}

# Every plan shows how far the firmware got, from one list of the devices and
# one read per device.
data "zdm_fleet_status" "sensors" {
  workspace_id     = var.workspace_id
  fleet_ids        = zdm_fota_rollout.sensors.fleet_ids
  fota             = true
  firmware_id      = "fw-sensor"
  firmware_version = var.sensor_firmware_version
}

check "sensors_updated" {
  assert {
    condition     = length(data.zdm_fleet_status.sensors.missing_device_ids) == 0
    error_message = "Devices without fw-sensor ${var.sensor_firmware_version}: ${join(", ", data.zdm_fleet_status.sensors.missing_device_ids)}"
  }
}
