# Import a job by its identity (Terraform 1.12 and later): works for every
# device ID and job name, "/" included.
import {
  to = zdm_device_job.imported
  identity = {
    device_id = "dev-0123456789abcdef"
    name      = "configure"
  }
}

resource "zdm_device_job" "imported" {
  device_id = "dev-0123456789abcdef"
  name      = "configure"
  value     = jsonencode({ interval = 30 })
}
