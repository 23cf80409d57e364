resource "zdm_fleet" "sensors" {
  name = "sensors"
}

# Schedule the "configure" job on every device of a fleet. workspace_id is
# required: the targets of a fleet-wide job are never implied. Changing value,
# fleet_ids or triggers schedules it again, in place, on the devices the
# fleets have then.
resource "zdm_fleet_job" "configure" {
  workspace_id = zdm_fleet.sensors.workspace_id
  name         = "configure"
  fleet_ids    = [zdm_fleet.sensors.id]
  value = jsonencode({
    sample_period_s = 60
  })
}

# Every fleet of the workspace: only with an explicit all_fleets = true.
resource "zdm_fleet_job" "sync_clock" {
  workspace_id = zdm_fleet.sensors.workspace_id
  all_fleets   = true
  name         = "sync_clock"
  triggers = {
    week = "2025-W05"
  }
}

output "configured_devices" {
  value = zdm_fleet_job.configure.devices
}
