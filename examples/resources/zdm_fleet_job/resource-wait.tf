# Schedule a job on every device of two fleets and wait until all have run
# it. The first device that reports "failed" ends the wait at once and fails
# the apply, naming each device not done with its status; the state keeps
# what was scheduled, and applying again sends nothing: it only waits again.
resource "zdm_fleet_job" "rotate_keys" {
  workspace_id = "wks-0123456789abcdef"
  fleet_ids    = ["flt-0123456789abcdef", "flt-fedcba9876543210"]
  name         = "rotate_keys"

  wait             = true
  failure_statuses = ["failed"]
  poll_interval    = "30s"

  timeouts {
    create = "30m"
    update = "30m"
  }
}

output "rotate_keys_progress" {
  value = zdm_fleet_job.rotate_keys.status_counts
}
