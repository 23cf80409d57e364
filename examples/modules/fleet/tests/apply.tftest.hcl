# Applies the module against a real service: zdm-local, or a workspace kept
# for tests. The provider reads its settings from the environment that
# zdm-local writes to its -env-file (ZDM_BASE_URL, ZDM_API_KEY,
# ZDM_WORKSPACE_ID): no key in this file, none on the command line.
#
# Nothing can be deleted through the API: when the test ends, Terraform's
# destroy only forgets the fleet and its devices, they stay in the service.
# The names must therefore differ on every run, or the second run would be
# refused (the provider refuses a plan that creates a fleet whose name its
# workspace already holds). The runner passes a fresh suffix:
#
#   terraform test -var "suffix=$(date +%s)-$RANDOM"
#
# (variable blocks in test files: Terraform 1.13 and later.)
variable "suffix" {
  description = "Makes this run's names unique in the workspace."
  type        = string

  validation {
    condition     = can(regex("^[0-9A-Za-z-]+$", var.suffix))
    error_message = "suffix: letters, digits and dashes only, such as the output of date +%s."
  }
}

provider "zdm" {}

run "create" {
  variables {
    name        = "tftest-${var.suffix}"
    description = "Created by terraform test"
    devices = {
      "sn-0001" = "tftest-${var.suffix}-1"
      "sn-0002" = "tftest-${var.suffix}-2"
    }
  }

  assert {
    condition     = startswith(output.fleet_id, "flt-")
    error_message = "fleet_id ${output.fleet_id} is not a fleet ID."
  }

  assert {
    condition     = output.fleet_name == "tftest-${var.suffix}"
    error_message = "The fleet is named ${output.fleet_name}."
  }

  assert {
    condition     = length(output.device_ids) == 2 && alltrue([for id in values(output.device_ids) : startswith(id, "dev-")])
    error_message = "Expected two device IDs, got ${jsonencode(output.device_ids)}."
  }

  assert {
    condition     = alltrue([for f in values(output.device_fleets) : f == "tftest-${var.suffix}"])
    error_message = "Not every device is in the new fleet: ${jsonencode(output.device_fleets)}."
  }
}

# One more device: the fleet and the first two devices stay as they are
# (same IDs); only the new device is created.
run "add_device" {
  variables {
    name        = "tftest-${var.suffix}"
    description = "Created by terraform test"
    devices = {
      "sn-0001" = "tftest-${var.suffix}-1"
      "sn-0002" = "tftest-${var.suffix}-2"
      "sn-0003" = "tftest-${var.suffix}-3"
    }
  }

  assert {
    condition     = output.fleet_id == run.create.fleet_id
    error_message = "The fleet was replaced: ${run.create.fleet_id} became ${output.fleet_id}."
  }

  assert {
    condition     = output.device_ids["sn-0001"] == run.create.device_ids["sn-0001"] && output.device_ids["sn-0002"] == run.create.device_ids["sn-0002"]
    error_message = "An existing device was replaced."
  }

  assert {
    condition     = length(output.device_ids) == 3
    error_message = "Expected three devices, got ${jsonencode(output.device_ids)}."
  }
}

# Read the fleet back from the service, through data sources in a helper
# module, rather than trusting the module's own outputs.
run "read_back" {
  module {
    source = "./tests/lookup"
  }

  variables {
    fleet_id = run.add_device.fleet_id
  }

  assert {
    condition     = sort(output.device_names) == sort(["tftest-${var.suffix}-1", "tftest-${var.suffix}-2", "tftest-${var.suffix}-3"])
    error_message = "The service holds these devices in the fleet: ${jsonencode(output.device_names)}."
  }
}
