terraform {
  required_providers {
    zdm = {
      source = "zdm/zdm"
    }
  }
}

provider "zdm" {
  base_url     = "https://api.zdm.example.com"
  workspace_id = "wks-0123456789abcdef"
}

variable "staging_api_key" {
  type      = string
  sensitive = true
}

provider "zdm" {
  alias        = "staging"
  base_url     = "https://api.zdm.example.com"
  api_key      = var.staging_api_key
  workspace_id = "wks-fedcba9876543210"
}

# zdm_device.gateway was declared with the default provider configuration,
# but the device lives in the staging workspace. Forget that address (the
# device stays in the service) and import the same device through the alias
# whose key belongs to its workspace. Neither block changes anything in the
# service; the next plan is empty.
removed {
  from = zdm_device.gateway

  lifecycle {
    destroy = false
  }
}

import {
  provider = zdm.staging
  to       = zdm_device.staging_gateway
  id       = "wks-fedcba9876543210/dev-0123456789abcdef"
}

resource "zdm_device" "staging_gateway" {
  provider = zdm.staging
  name     = "gateway-01"
}
