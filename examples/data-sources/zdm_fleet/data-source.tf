# The default fleet of the provider's workspace, by name.
data "zdm_fleet" "default" {
  name = "default"
}

# A fleet by ID, in a given workspace.
data "zdm_fleet" "sensors" {
  workspace_id = "wks-0123456789abcdef"
  id           = "flt-0123456789abcdef"
}

output "default_fleet_id" {
  value = data.zdm_fleet.default.id
}
