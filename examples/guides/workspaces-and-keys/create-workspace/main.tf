terraform {
  required_providers {
    zdm = {
      source = "zdm/zdm"
    }
  }
}

# Step 1: the account's key (ZDM_API_KEY) creates the workspace. Nothing else
# is created in it here: this key is bound to another workspace.
provider "zdm" {
  base_url     = "https://api.zdm.example.com"
  workspace_id = "wks-0123456789abcdef"
}

resource "zdm_workspace" "staging" {
  name        = "staging"
  description = "Staging devices"
}

output "staging_workspace_id" {
  value = zdm_workspace.staging.id
}
