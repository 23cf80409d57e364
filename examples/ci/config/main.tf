# The configuration of a repository that examples/ci/github-actions.yml
# checks, plans and applies: one fleet and its devices. The provider reads
# its settings from the environment (ZDM_BASE_URL, ZDM_STORAGE_URL,
# ZDM_API_KEY, ZDM_WORKSPACE_ID), which the workflow sets to zdm-local in a
# pull request and to the real service for the production plan and apply.
#
# A real repository also declares its remote backend here (say
# backend "s3" {}), so that the production state outlives the job; the pull
# request's functional check replaces it with a throwaway local one.

terraform {
  required_version = ">= 1.5"
  required_providers {
    zdm = {
      source  = "zdm/zdm"
      version = ">= 0.1"
    }
  }
}

provider "zdm" {}

variable "serials" {
  description = "The serial numbers of the sensors: each becomes a device of the fleet, named by it."
  type        = set(string)
  default     = ["sn-0001", "sn-0002"]
}

resource "zdm_fleet" "sensors" {
  name = "sensors"
}

resource "zdm_fleet_devices" "sensors" {
  fleet_id = zdm_fleet.sensors.id
  devices  = { for s in var.serials : s => s }
}

output "device_ids" {
  value = zdm_fleet_devices.sensors.device_ids
}
