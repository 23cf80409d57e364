# A new workspace of the API key's account. Workspaces cannot be updated or
# deleted through the API: changing name or description creates a new
# workspace, and destroying only removes it from the Terraform state.
resource "zdm_workspace" "staging" {
  name        = "staging"
  description = "Pre-production devices"
}
