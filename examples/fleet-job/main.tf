# A fleet job that waits for its devices: a fleet of three devices, a job
# scheduled on every device of the fleet, and an apply that ends only once
# each device reports it done. Against zdm-local the simulated devices answer
# a couple of seconds after the job is scheduled; against the real service,
# your devices do. The provider is configured from the environment:
#
#   ZDM_BASE_URL, ZDM_STORAGE_URL, ZDM_API_KEY, ZDM_WORKSPACE_ID
#
# The job is sent once: applying again sends nothing unless its value or
# triggers change. Nothing here can be deleted through the API: `terraform
# destroy` only removes the objects from the state.

terraform {
  required_version = ">= 1.5"
  required_providers {
    zdm = {
      source = "zdm/zdm"
    }
  }
}

provider "zdm" {}

resource "zdm_fleet" "canary" {
  name        = "canary"
  description = "Devices that get every job first"
}

resource "zdm_fleet_devices" "canary" {
  fleet_id = zdm_fleet.canary.id
  devices = {
    "canary-1" = "canary-1"
    "canary-2" = "canary-2"
    "canary-3" = "canary-3"
  }
}

resource "zdm_fleet_job" "reboot" {
  # The job goes to the devices of the fleets named here, in the workspace
  # named here: never to devices nobody named.
  workspace_id = zdm_fleet.canary.workspace_id
  fleet_ids    = [zdm_fleet.canary.id]
  name         = "reboot"
  value        = jsonencode({ reason = "maintenance" })

  wait             = true
  failure_statuses = ["failed"]
  poll_interval    = "2s"

  timeouts {
    create = "5m"
    update = "5m"
  }

  depends_on = [zdm_fleet_devices.canary]
}

output "job_status_counts" {
  description = "How many devices of the fleet report each job status."
  value       = zdm_fleet_job.reboot.status_counts
}
