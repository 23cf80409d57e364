resource "zdm_device" "sensor" {
  name = "sensor-01"
}

# Schedule the device's "configure" job with its arguments, written as an
# object. Changing value (or triggers) schedules the job again, in place;
# status moves from "pending" to "done" on refresh once the device has run
# it.
resource "zdm_device_job" "configure" {
  device_id = zdm_device.sensor.id
  name      = "configure"
  value = {
    sample_period_s = 30
    mode            = "eco"
  }
}

# The same arguments as JSON text (jsonencode, or a file of JSON): both forms
# send the same object, and switching from one to the other changes nothing.
resource "zdm_device_job" "configure_from_file" {
  device_id = zdm_device.sensor.id
  name      = "configure_network"
  value     = jsonencode({ apn = "iot.example", roaming = false })
}

# A job without arguments, run again whenever the release tag changes.
resource "zdm_device_job" "reboot" {
  device_id = zdm_device.sensor.id
  name      = "reboot"
  triggers = {
    release = "2025.01"
  }
}

output "configure_status" {
  value = zdm_device_job.configure.status
}
