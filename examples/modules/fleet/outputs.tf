output "fleet_id" {
  description = "ID of the fleet."
  value       = zdm_fleet.this.id
}

output "fleet_name" {
  description = "Name of the fleet."
  value       = zdm_fleet.this.name
}

output "device_ids" {
  description = "Device IDs by key of var.devices."
  value       = { for k, d in zdm_device.this : k => d.id }
}

output "device_fleets" {
  description = "Name of the fleet each device is in, by key of var.devices."
  value       = { for k, d in zdm_device.this : k => d.fleet_name }
}
