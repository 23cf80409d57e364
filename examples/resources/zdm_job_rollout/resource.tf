# Send the "set_config" job with new sampling settings to two fleets: one
# device first, then 10%, 50% and the rest, each wave only once the previous
# one has run the job.
resource "zdm_job_rollout" "sampling" {
  workspace_id = "wks-0123456789abcdef"
  fleet_ids    = ["flt-00000000000000e1", "flt-00000000000000e2"]
  name         = "set_config"
  value = {
    sample_period_s = 30
    upload_batch    = 20
  }

  waves = ["1", "10%", "50%", "100%"]
  # Jobs report only pending and done: a device that has not run the job
  # when its wave times out counts as failed. Up to 2% of a wave may fail.
  max_failure_ratio   = 0.02
  wave_timeout        = "20m"
  poll_interval       = "30s"
  pause_between_waves = "5m"

  # A device counts as healthy once it has also published a "config_applied"
  # data point within 5 minutes of running the job.
  health_check = {
    tag    = "config_applied"
    within = "5m"
  }
}

output "sampling_rollout" {
  value = {
    status          = zdm_job_rollout.sampling.status
    waves_completed = zdm_job_rollout.sampling.waves_completed
    per_wave        = { for w in zdm_job_rollout.sampling.wave_results : w.name => w.status_counts }
    healthy         = { for w in zdm_job_rollout.sampling.wave_results : w.name => w.healthy }
  }
}
