# Everything of the workspace: the workspace itself, its fleets (including
# the "default" fleet) and its devices.
list "zdm_workspace" "all" {
  provider = zdm
  config {}
}

list "zdm_fleet" "all" {
  provider = zdm
  config {}
}

list "zdm_device" "all" {
  provider = zdm
  # Terraform stops at `limit` results, 100 when it is not set: set it above
  # the number of devices of the workspace.
  limit = 50000
  config {}
}
