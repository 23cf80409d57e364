# Every fleet of the provider's workspace as one zdm_fleet_devices each,
# the "default" fleet included. With -generate-config-out, terraform query
# writes a resource and an import block per fleet, the devices keyed by name.
list "zdm_fleet_devices" "all" {
  provider = zdm

  config {
    # workspace_id defaults to the provider's workspace_id.
  }
}

# One fleet, with its devices in the result.
list "zdm_fleet_devices" "meters" {
  provider         = zdm
  include_resource = true

  config {
    fleet_id = "flt-0123456789abcdef"
  }
}
