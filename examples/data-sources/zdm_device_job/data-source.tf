data "zdm_device_job" "reboot" {
  device_id = "dev-0123456789abcdef"
  name      = "reboot"
}

output "reboot_done" {
  value = data.zdm_device_job.reboot.status == "done"
}

output "reboot_delay" {
  value = jsondecode(data.zdm_device_job.reboot.value).delay_s
}
