# A job rolled out in waves, gated on the telemetry the devices publish: one
# device first, then the rest, each wave passing only once its devices have
# run the job and then published a "boot_ok" data point with {"ok": true}.
# Against zdm-local (make local) the simulated devices do both a couple of
# seconds after the job is scheduled; against the real service, your devices
# do, and the workspace needs the storage service. The provider is configured
# from the environment:
#
#   ZDM_BASE_URL, ZDM_STORAGE_URL, ZDM_API_KEY, ZDM_WORKSPACE_ID
#
# The job is sent to each device once: applying again sends nothing unless
# its value changes (a new rollout). Nothing here can be deleted through the
# API: `terraform destroy` only removes the objects from the state.

terraform {
  required_version = ">= 1.5"
  required_providers {
    zdm = {
      source = "zdm/zdm"
    }
  }
}

provider "zdm" {}

resource "zdm_fleet" "meters" {
  name = "meters"
}

resource "zdm_fleet_devices" "meters" {
  fleet_id = zdm_fleet.meters.id
  devices = {
    "meter-1" = "meter-1"
    "meter-2" = "meter-2"
    "meter-3" = "meter-3"
  }
}

resource "zdm_job_rollout" "sampling" {
  # Never implied: the workspace and the fleets are named here.
  workspace_id = zdm_fleet.meters.workspace_id
  fleet_ids    = [zdm_fleet.meters.id]
  name         = "set_config"
  value        = { sample_period_s = 30 }

  waves         = ["1", "100%"]
  wave_timeout  = "5m"
  poll_interval = "1s"

  health_check = {
    tag            = "boot_ok"
    within         = "1m"
    payload_field  = "ok"
    payload_equals = jsonencode(true)
  }

  depends_on = [zdm_fleet_devices.meters]
}

output "rollout" {
  value = {
    status  = zdm_job_rollout.sampling.status
    healthy = sum([for w in zdm_job_rollout.sampling.wave_results : w.healthy])
  }
}
