# Quickstart: a workspace, two fleets and a few devices, read back with data
# sources. Run it against the local server (make demo) or a real service; the
# provider is configured from the environment:
#
#   ZDM_BASE_URL, ZDM_STORAGE_URL, ZDM_API_KEY, ZDM_WORKSPACE_ID
#
# An API key is bound to one workspace. Fleets and devices can therefore only
# be created in the key's workspace (ZDM_WORKSPACE_ID), not in the workspace
# created below: using that one would need a key of it, which the API offers
# no way to create.
#
# Nothing here can be deleted through the API: `terraform destroy` only
# removes the objects from the state and warns about each of them.

terraform {
  required_version = ">= 1.5"
  required_providers {
    zdm = {
      source = "zdm/zdm"
    }
  }
}

provider "zdm" {}

resource "zdm_workspace" "lab" {
  name        = "quickstart-lab"
  description = "Created by the quickstart"
}

resource "zdm_fleet" "sensors" {
  name        = "sensors"
  description = "Environmental sensors"
}

resource "zdm_fleet" "gateways" {
  name        = "gateways"
  description = "Cellular gateways"
}

resource "zdm_device" "sensor" {
  for_each = toset(["sensor-01", "sensor-02", "sensor-03"])

  name     = each.key
  fleet_id = zdm_fleet.sensors.id
}

resource "zdm_device" "gateway" {
  name     = "gateway-01"
  fleet_id = zdm_fleet.gateways.id
}

# No fleet_id: the device goes to the workspace's default fleet.
resource "zdm_device" "spare" {
  name = "spare-01"
}

# Read everything back. depends_on makes Terraform read after the objects
# exist on the first apply.
data "zdm_workspace" "lab" {
  id = zdm_workspace.lab.id
}

data "zdm_workspaces" "all" {
  depends_on = [zdm_workspace.lab]
}

data "zdm_fleet" "sensors" {
  name       = "sensors"
  depends_on = [zdm_fleet.sensors]
}

data "zdm_fleets" "all" {
  depends_on = [zdm_fleet.sensors, zdm_fleet.gateways]
}

data "zdm_device" "gateway" {
  name       = "gateway-01"
  depends_on = [zdm_device.gateway]
}

data "zdm_devices" "sensors" {
  fleet_id   = zdm_fleet.sensors.id
  depends_on = [zdm_device.sensor]
}

data "zdm_devices" "all" {
  depends_on = [zdm_device.sensor, zdm_device.gateway, zdm_device.spare]
}
