# All workspaces of the API key's account.
data "zdm_workspaces" "all" {}

output "workspace_names" {
  value = data.zdm_workspaces.all.workspaces[*].name
}
