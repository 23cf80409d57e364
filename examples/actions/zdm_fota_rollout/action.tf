variable "sensor_firmware_version" {
  type    = string
  default = "2.1.0"
}

# Roll the version out in waves whenever the variable changes, or on demand:
#   terraform apply -invoke=action.zdm_fota_rollout.sensors
action "zdm_fota_rollout" "sensors" {
  config {
    workspace_id      = "wks-0123456789abcdef"
    all_fleets        = true
    firmware_id       = "fw-sensor"
    firmware_version  = var.sensor_firmware_version
    waves             = ["5", "25%", "100%"]
    failure_statuses  = ["failed"]
    max_failure_ratio = 0.05
    wave_timeout      = "1h"
    health_check = {
      tag    = "boot_ok"
      within = "15m"
    }
  }
}

resource "terraform_data" "sensor_firmware" {
  input = var.sensor_firmware_version

  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.zdm_fota_rollout.sensors]
    }
  }
}
