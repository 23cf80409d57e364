# Import a workspace by its ID.
import {
  to = zdm_workspace.staging_by_id
  id = "wks-0123456789abcdef"
}

resource "zdm_workspace" "staging_by_id" {
  name = "staging"
}
