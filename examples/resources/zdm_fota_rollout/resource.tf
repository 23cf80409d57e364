# Roll fw-sensor 2.1.0 out to two fleets: 1% of the devices first, then 10%,
# 50% and the rest, each wave only once the previous one is healthy: its
# devices installed the firmware and, within 10 minutes, published a
# "boot_ok" data point whose payload has "ok": true (read from the
# time-series storage service, which the provider's storage_url reaches).
resource "zdm_fota_rollout" "sensors" {
  workspace_id     = "wks-0123456789abcdef"
  fleet_ids        = ["flt-00000000000000e1", "flt-00000000000000e2"]
  firmware_id      = "fw-sensor"
  firmware_version = "2.1.0"

  waves               = ["1%", "10%", "50%", "100%"]
  success_statuses    = ["done"]
  failure_statuses    = ["failed", "rolled_back"]
  max_failure_ratio   = 0.02
  wave_timeout        = "45m"
  poll_interval       = "30s"
  pause_between_waves = "10m"

  health_check = {
    tag            = "boot_ok"
    within         = "10m"
    payload_field  = "ok"
    payload_equals = jsonencode(true)
  }

  # A wave stops the rollout only once 20 of its devices reported (or all
  # of a smaller wave); at most 200 devices are scheduled a minute; waves
  # start only on weekday nights, Berlin time.
  min_devices_reported   = 20
  max_devices_per_minute = 200

  maintenance_window {
    days      = ["mon", "tue", "wed", "thu", "fri"]
    start     = "22:00"
    end       = "05:00"
    time_zone = "Europe/Berlin"
  }
}

output "sensor_rollout" {
  value = {
    status          = zdm_fota_rollout.sensors.status
    waves_completed = zdm_fota_rollout.sensors.waves_completed
    per_wave        = { for w in zdm_fota_rollout.sensors.wave_results : w.name => w.status_counts }
    unhealthy       = { for w in zdm_fota_rollout.sensors.wave_results : w.name => w.unhealthy }
    next_window     = zdm_fota_rollout.sensors.next_window_opens_at
  }
}
