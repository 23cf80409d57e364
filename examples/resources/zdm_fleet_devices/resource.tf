resource "zdm_fleet" "sensors" {
  name = "sensors"
}

# The devices of one fleet as one resource. The keys are yours (here serial
# numbers) and never reach the service; name defaults to the key.
resource "zdm_fleet_devices" "sensors" {
  fleet_id = zdm_fleet.sensors.id
  devices = {
    "SN-0001" = { name = "boiler-room" }
    "SN-0002" = { name = "roof" }
    "SN-0003" = {}
  }
}

# Thousands of devices from a list: one resource, created 16 requests at a
# time (raise parallelism when the service allows more).
locals {
  serials = [for i in range(1, 1001) : format("SN-%05d", i)]
}

resource "zdm_fleet_devices" "meters" {
  parallelism = 32
  devices     = { for s in local.serials : s => { name = "meter-${s}" } }
}

output "roof_device_id" {
  value = zdm_fleet_devices.sensors.device_details["SN-0002"].id
}
