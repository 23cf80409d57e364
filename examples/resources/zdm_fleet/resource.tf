# A fleet in the provider's workspace (the workspace the API key is bound to).
# Fleets cannot be updated or deleted through the API: changing name or
# description creates a new fleet, and destroying only removes it from the
# Terraform state.
resource "zdm_fleet" "sensors" {
  name        = "sensors"
  description = "Environmental sensors"
}
