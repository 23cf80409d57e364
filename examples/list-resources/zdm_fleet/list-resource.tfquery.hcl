# Every fleet of the provider's workspace, including its "default" fleet.
list "zdm_fleet" "all" {
  provider = zdm

  config {
    # workspace_id defaults to the provider's workspace_id.
  }
}

# One fleet by name, with the whole fleet in the result.
list "zdm_fleet" "sensors" {
  provider         = zdm
  include_resource = true

  config {
    name = "sensors"
  }
}
