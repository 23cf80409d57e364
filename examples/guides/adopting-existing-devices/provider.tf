terraform {
  required_version = ">= 1.14"
  required_providers {
    zdm = {
      source = "zdm/zdm"
    }
  }
}

# The API key comes from ZDM_API_KEY. workspace_id is the workspace to adopt:
# every list block, resource and import below defaults to it.
provider "zdm" {
  base_url     = "https://api.zdm.example.com"
  workspace_id = "wks-0123456789abcdef"
}
