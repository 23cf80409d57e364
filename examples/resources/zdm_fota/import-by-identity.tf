# Import the firmware update of one device by its identity (Terraform 1.12
# and later). Updates of fleets are imported by their id (see import.sh).
import {
  to = zdm_fota.imported
  identity = {
    device_id = "dev-0123456789abcdef"
  }
}

resource "zdm_fota" "imported" {
  device_id        = "dev-0123456789abcdef"
  firmware_id      = "fw-gateway"
  firmware_version = "2.1.0"
}
