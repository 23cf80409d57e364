# Every job of a device.
data "zdm_device_jobs" "all" {
  device_id = "dev-0123456789abcdef"
}

# Only the jobs the device has not run yet.
data "zdm_device_jobs" "pending" {
  device_id = "dev-0123456789abcdef"
  status    = "pending"
}

output "pending_jobs" {
  value = data.zdm_device_jobs.pending.jobs[*].name
}

output "job_arguments" {
  value = { for j in data.zdm_device_jobs.all.jobs : j.name => jsondecode(j.value) }
}
