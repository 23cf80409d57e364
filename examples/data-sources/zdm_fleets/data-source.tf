# All fleets of the provider's workspace, the default fleet included.
data "zdm_fleets" "all" {}

# A list of IDs per name ("..."): the API cannot delete a fleet, so a name may
# be held by several fleets, and a plain "name => id" map would then fail with
# "Duplicate object key".
output "fleet_ids_by_name" {
  value = { for f in data.zdm_fleets.all.fleets : f.name => f.id... }
}
