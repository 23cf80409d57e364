# Import a fleet by its identity (Terraform 1.12 and later). workspace_id may
# be left out to use the provider's workspace_id.
import {
  to = zdm_fleet.imported
  identity = {
    workspace_id = "wks-0123456789abcdef"
    id           = "flt-0123456789abcdef"
  }
}

resource "zdm_fleet" "imported" {
  name = "sensors"
}
