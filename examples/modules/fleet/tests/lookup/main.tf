# A helper module of the tests: reads the devices of a fleet from the service.
terraform {
  required_providers {
    zdm = {
      source = "zdm/zdm"
    }
  }
}

variable "fleet_id" {
  description = "ID of the fleet to read."
  type        = string
}

data "zdm_devices" "fleet" {
  fleet_id = var.fleet_id
}

output "device_names" {
  description = "Names of the devices of the fleet, as the service holds them."
  value       = data.zdm_devices.fleet.devices[*].name
}
