# A module that creates one fleet and its devices from a map, for the guide
# "Testing your configurations": tests/ holds its `terraform test` files, one
# that applies against zdm-local and one that plans against a mock provider.
#
# The module configures no provider: the caller (or the test file) does.
# Nothing it creates can be deleted through the API: `terraform destroy`
# only removes the objects from the state.

terraform {
  required_version = ">= 1.7"
  required_providers {
    zdm = {
      source = "zdm/zdm"
    }
  }
}

resource "zdm_fleet" "this" {
  name        = var.name
  description = var.description
}

resource "zdm_device" "this" {
  for_each = var.devices

  name     = each.value
  fleet_id = zdm_fleet.this.id
}
