# Update one device, on demand, and wait for it:
#   terraform apply -invoke=action.zdm_schedule_fota.gateway
action "zdm_schedule_fota" "gateway" {
  config {
    device_id        = "dev-0123456789abcdef"
    firmware_id      = "fw-gateway"
    firmware_version = "2.3.1"
    wait             = true
    failure_statuses = ["failed"] # the first device that fails ends the wait
    timeout          = "30m"
    poll_interval    = "1m"
  }
}

variable "sensor_firmware_version" {
  type    = string
  default = "1.4.0"
}

# Roll a new version out to every fleet of the workspace whenever the
# version variable changes.
action "zdm_schedule_fota" "sensors" {
  config {
    workspace_id     = "wks-0123456789abcdef"
    all_fleets       = true
    firmware_id      = "fw-sensor"
    firmware_version = var.sensor_firmware_version
  }
}

resource "terraform_data" "sensor_firmware" {
  input = var.sensor_firmware_version

  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.zdm_schedule_fota.sensors]
    }
  }
}
