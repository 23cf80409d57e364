# All fleets of the provider's workspace, the default fleet included.
data "zdm_fleets" "all" {}

output "fleet_ids_by_name" {
  value = { for f in data.zdm_fleets.all.fleets : f.name => f.id }
}
