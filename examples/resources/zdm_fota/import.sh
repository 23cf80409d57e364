# Import the firmware update of one device by the device ID. Updates of fleets
# cannot be imported: the service has no fleet-wide read.
terraform import zdm_fota.gateway dev-0123456789abcdef
