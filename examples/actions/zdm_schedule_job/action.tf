# Reboot one device, on demand:
#   terraform apply -invoke=action.zdm_schedule_job.reboot
action "zdm_schedule_job" "reboot" {
  config {
    device_id = "dev-0123456789abcdef"
    name      = "reboot"
    value     = { delay_s = 10 }
  }
}

# Apply a configuration to every device of two fleets and wait until all of
# them have run the job (the action fails after timeout, naming the devices
# still pending).
action "zdm_schedule_job" "configure_sensors" {
  config {
    workspace_id  = "wks-0123456789abcdef"
    fleet_ids     = ["flt-00000000000000e1", "flt-00000000000000e2"]
    name          = "configure"
    value         = jsonencode({ sample_period_s = 30 })
    wait          = true
    timeout       = "15m"
    poll_interval = "30s"
  }
}

# Run the action each time the settings change.
resource "terraform_data" "sensor_settings" {
  input = { sample_period_s = 30 }

  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.zdm_schedule_job.configure_sensors]
    }
  }
}
