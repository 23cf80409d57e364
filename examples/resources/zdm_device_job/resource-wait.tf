# Schedule a job and wait until the device has run it: the apply ends once
# the job reports "done", and fails at once if it reports "failed", naming
# the device and its status. A failed wait keeps the job in the state;
# applying again sends nothing and only waits again (change triggers to send
# the job again).
resource "zdm_device_job" "calibrate" {
  device_id = "dev-0123456789abcdef"
  name      = "calibrate"
  value = jsonencode({
    reference = 21.5
  })

  wait             = true
  failure_statuses = ["failed"]
  poll_interval    = "10s"

  timeouts {
    create = "15m"
    update = "15m"
  }
}
