# Import a workspace by its identity (Terraform 1.12 and later).
import {
  to = zdm_workspace.imported
  identity = {
    id = "wks-0123456789abcdef"
  }
}

resource "zdm_workspace" "imported" {
  name = "production"
}
