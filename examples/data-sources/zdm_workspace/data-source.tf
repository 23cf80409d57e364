# By ID (exactly one of id and name).
data "zdm_workspace" "current" {
  id = "wks-0123456789abcdef"
}

# By name; the name must be unique in the account.
data "zdm_workspace" "staging" {
  name = "staging"
}

output "staging_created_at" {
  value = data.zdm_workspace.staging.created_at
}
