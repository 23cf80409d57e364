# Every device of the provider's workspace. Terraform returns at most `limit`
# results (100 when not set), so set it above the number of devices.
list "zdm_device" "all" {
  provider = zdm
  limit    = 10000

  # Return the whole device with each result (implied by
  # `terraform query -generate-config-out=...`).
  include_resource = true

  config {
    # workspace_id defaults to the provider's workspace_id.
  }
}

# The devices of one fleet whose name starts with "sensor-".
list "zdm_device" "sensors" {
  provider = zdm

  config {
    fleet_id    = "flt-0123456789abcdef"
    name_prefix = "sensor-"
  }
}

# Names can also be matched exactly (name) or with a regular expression.
list "zdm_device" "line_a" {
  provider = zdm

  config {
    name_regex = "^line-a-[0-9]+$"
  }
}
