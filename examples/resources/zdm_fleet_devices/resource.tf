resource "zdm_fleet" "sensors" {
  name = "sensors"
}

# The devices of one fleet as one resource: a map from a key of yours (here
# serial numbers, which never reach the service) to the device name. Keep the
# key when renaming a device: a changed name renames it in place.
resource "zdm_fleet_devices" "sensors" {
  fleet_id = zdm_fleet.sensors.id
  devices = {
    "SN-0001" = "boiler-room"
    "SN-0002" = "roof"
    "SN-0003" = "SN-0003"
  }
}

# Thousands of devices from a list: one resource, created 16 requests at a
# time (raise parallelism when the service allows more). The devices go to
# the workspace's default fleet, recorded in fleet_id. Terraform's range()
# stops at 1,024 elements, so 10,000 serials come from two ranges
# (setproduct: 100 x 100). In practice the serials come from a file, which
# is also cheaper for Terraform: it turns each number into a string slowly,
# in every plan and apply (about 0.1 ms a number: seconds per plan at
# 100,000 devices), while strings from a file cost it next to nothing:
#   serials = [for row in csvdecode(file("devices.csv")) : row.serial]
locals {
  serials = [for p in setproduct(range(100), range(100)) : format("SN-%03d%02d", p[0], p[1])]
}

resource "zdm_fleet_devices" "meters" {
  parallelism = 32
  devices     = { for s in local.serials : s => "meter-${s}" }
}

# include_details = true also records each device as the service shows it
# (id, name, fleet_id, phys_id, created_at, identities) in device_details.
# It multiplies the size of the state: keep it for small fleets.
resource "zdm_fleet_devices" "gateways" {
  fleet_id        = zdm_fleet.sensors.id
  include_details = true
  devices = {
    "GW-01" = "gateway-north"
    "GW-02" = "gateway-south"
  }
}

# The ID of each device, by the same keys.
output "roof_device_id" {
  value = zdm_fleet_devices.sensors.device_ids["SN-0002"]
}

output "meter_device_ids" {
  value = values(zdm_fleet_devices.meters.device_ids)
}

output "gateway_created_at" {
  value = { for k, d in zdm_fleet_devices.gateways.device_details : k => d.created_at }
}

# Devices found moved to another fleet outside Terraform (key => that fleet's
# ID); the next apply moves them back. Empty normally.
output "sensors_elsewhere" {
  value = zdm_fleet_devices.sensors.devices_elsewhere
}
