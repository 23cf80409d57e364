# modules/fleet/main.tf: one fleet and its devices.
variable "name" {
  type = string
}

variable "devices_csv" {
  description = "A CSV file of the fleet's devices, with the columns serial and name."
  type        = string
}

resource "zdm_fleet" "this" {
  name = var.name
}

resource "zdm_fleet_devices" "this" {
  fleet_id = zdm_fleet.this.id
  devices  = { for row in csvdecode(file(var.devices_csv)) : row.serial => row.name }
}
