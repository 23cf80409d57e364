resource "zdm_fleet" "sensors" {
  name = "sensors"
}

# A device in a fleet. Renaming it or changing fleet_id updates it in place.
resource "zdm_device" "sensor" {
  name     = "sensor-01"
  fleet_id = zdm_fleet.sensors.id
}

# Without fleet_id, the device goes to the workspace's default fleet.
resource "zdm_device" "spare" {
  name = "spare-01"
}

output "spare_fleet" {
  value = zdm_device.spare.fleet_name # "default"
}
