variable "sampling" {
  type = object({
    sample_period_s = number
    upload_batch    = number
  })
  default = {
    sample_period_s = 30
    upload_batch    = 20
  }
}

# Send the "set_config" job with the sampling settings in waves whenever the
# variable changes, or on demand:
#   terraform apply -invoke=action.zdm_job_rollout.sampling
# Invoking it again with the same value sends the job only to the devices
# that do not have it with this value yet.
action "zdm_job_rollout" "sampling" {
  config {
    workspace_id = "wks-0123456789abcdef"
    fleet_ids    = ["flt-00000000000000e1", "flt-00000000000000e2"]
    name         = "set_config"
    value        = var.sampling

    waves = ["1", "10%", "50%", "100%"]
    # Jobs report only pending and done: a device that has not run the job
    # when its wave times out counts as failed. Up to 2% of a wave may fail.
    max_failure_ratio = 0.02
    wave_timeout      = "20m"
  }
}

resource "terraform_data" "sampling" {
  input = var.sampling

  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.zdm_job_rollout.sampling]
    }
  }
}
