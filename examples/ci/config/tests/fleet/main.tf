# The resources of ../../main.tf under names given by the test, so that
# every run of `terraform test` creates names of its own.
terraform {
  required_providers {
    zdm = {
      source = "zdm/zdm"
    }
  }
}

variable "name" {
  type = string
}

variable "serials" {
  type = set(string)
}

resource "zdm_fleet" "this" {
  name = var.name
}

resource "zdm_fleet_devices" "this" {
  fleet_id = zdm_fleet.this.id
  devices  = { for s in var.serials : s => s }
}

output "device_ids" {
  value = zdm_fleet_devices.this.device_ids
}
