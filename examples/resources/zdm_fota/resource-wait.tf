# Update the firmware of a fleet and wait until every device reports the
# update as "done". The API names no failure status: failure_statuses says
# which statuses your devices report when an update fails. A device whose
# update becomes another firmware counts as failed too.
resource "zdm_fota" "sensors_v2" {
  workspace_id     = "wks-0123456789abcdef"
  fleet_ids        = ["flt-0123456789abcdef"]
  firmware_id      = "fw-sensor"
  firmware_version = "2.0.0"

  wait             = true
  success_statuses = ["done"]
  failure_statuses = ["failed", "rejected"]
  poll_interval    = "30s"

  timeouts {
    create = "1h"
    update = "1h"
  }
}
