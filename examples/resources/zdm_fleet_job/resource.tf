resource "zdm_fleet" "sensors" {
  name = "sensors"
}

# Schedule the "configure" job on every device of a fleet of the provider's
# workspace. Changing value, fleet_ids or triggers schedules it again, in
# place, on the devices the fleets have then.
resource "zdm_fleet_job" "configure" {
  name      = "configure"
  fleet_ids = [zdm_fleet.sensors.id]
  value = jsonencode({
    sample_period_s = 60
  })
}

# Without fleet_ids, the job goes to every fleet of the workspace.
resource "zdm_fleet_job" "sync_clock" {
  name = "sync_clock"
  triggers = {
    week = "2025-W05"
  }
}

output "configured_devices" {
  value = zdm_fleet_job.configure.devices
}
