output "lab_workspace" {
  description = "The workspace created by the quickstart, as read back."
  value = {
    id         = data.zdm_workspace.lab.id
    name       = data.zdm_workspace.lab.name
    account_id = data.zdm_workspace.lab.account_id
  }
}

output "workspace_names" {
  description = "Names of all workspaces of the account."
  value       = sort(data.zdm_workspaces.all.workspaces[*].name)
}

# The API cannot delete a fleet or a device, so a name may be held by more
# than one of them (made outside this configuration, or with
# allow_duplicate_names): the maps below group the IDs of each name ("..."),
# where a plain "name => id" would fail with "Duplicate object key".
output "fleets" {
  description = "Fleet IDs by name in the key's workspace, the default fleet included (a list per name)."
  value       = { for f in data.zdm_fleets.all.fleets : f.name => f.id... }
}

output "sensors_fleet_id" {
  description = "ID of the sensors fleet, looked up by name."
  value       = data.zdm_fleet.sensors.id
}

output "sensor_devices" {
  description = "Devices of the sensors fleet: name => IDs."
  value       = { for d in data.zdm_devices.sensors.devices : d.name => d.id... }
}

output "gateway" {
  description = "The gateway, looked up by name."
  value = {
    id         = data.zdm_device.gateway.id
    fleet_name = data.zdm_device.gateway.fleet_name
  }
}

output "spare_fleet" {
  description = "Fleet of the device created without fleet_id."
  value       = zdm_device.spare.fleet_name
}

output "device_count" {
  description = "Number of devices in the key's workspace."
  value       = length(data.zdm_devices.all.devices)
}
