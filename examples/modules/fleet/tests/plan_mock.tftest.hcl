# Plan-only tests of the module's logic, with no service at all: the mock
# provider answers from the provider's schema (Terraform 1.7 and later,
# OpenTofu 1.8 and later), so these run anywhere, offline, and create nothing.
mock_provider "zdm" {
  mock_resource "zdm_fleet" {
    defaults = {
      id = "flt-00000000000000f1"
    }
  }
}

variables {
  name        = "sensors"
  description = "Environmental sensors"
  devices = {
    "sn-0001" = "sensor-01"
    "sn-0002" = "sensor-02"
  }
}

run "plans_one_device_per_key" {
  command = plan

  assert {
    condition     = zdm_fleet.this.name == "sensors" && zdm_fleet.this.description == "Environmental sensors"
    error_message = "The fleet is planned as ${zdm_fleet.this.name} (${zdm_fleet.this.description})."
  }

  assert {
    condition     = toset(keys(zdm_device.this)) == toset(["sn-0001", "sn-0002"])
    error_message = "Expected one device per key of var.devices."
  }

  assert {
    condition     = zdm_device.this["sn-0002"].name == "sensor-02"
    error_message = "Device sn-0002 is planned as ${zdm_device.this["sn-0002"].name}."
  }
}

# An apply against the mock provider: computed values come from the mock,
# so the devices' fleet_id can be checked.
run "devices_join_the_fleet" {
  assert {
    condition     = alltrue([for d in zdm_device.this : d.fleet_id == "flt-00000000000000f1"])
    error_message = "A device is not in the module's fleet."
  }
}

run "blank_name_is_refused" {
  command = plan

  variables {
    name = "  "
  }

  expect_failures = [var.name]
}

run "blank_device_name_is_refused" {
  command = plan

  variables {
    devices = { "sn-0001" = "" }
  }

  expect_failures = [var.devices]
}
