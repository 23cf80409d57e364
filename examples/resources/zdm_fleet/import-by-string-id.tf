# Import a fleet by its import ID, <workspace_id>/<fleet_id> (or the fleet ID
# alone, in the provider's workspace).
import {
  to = zdm_fleet.sensors_by_id
  id = "wks-0123456789abcdef/flt-0123456789abcdef"
}

resource "zdm_fleet" "sensors_by_id" {
  name = "sensors"
}
