terraform {
  required_providers {
    zdm = {
      source = "zdm/zdm"
    }
  }
}

variable "staging_workspace_id" {
  type        = string
  description = "ID of the workspace created in step 1."
}

variable "staging_api_key" {
  type        = string
  sensitive   = true
  description = "An API key of that workspace, created in the web console."
}

# The default configuration keeps the key of the original workspace.
provider "zdm" {
  base_url     = "https://api.zdm.example.com"
  workspace_id = "wks-0123456789abcdef"
}

# Step 2: everything inside the new workspace goes through an alias whose
# key belongs to it.
provider "zdm" {
  alias        = "staging"
  base_url     = "https://api.zdm.example.com"
  api_key      = var.staging_api_key
  workspace_id = var.staging_workspace_id
}

resource "zdm_fleet" "sensors" {
  provider = zdm.staging
  name     = "sensors"
}

resource "zdm_device" "gateway" {
  provider = zdm.staging
  name     = "gateway-01"
  fleet_id = zdm_fleet.sensors.id
}
