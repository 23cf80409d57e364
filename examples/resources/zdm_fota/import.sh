# Import the firmware update of one device by the device ID (any device ID,
# "/" included: the import ID is the device ID as a whole). Updates of fleets
# cannot be imported: the service has no fleet-wide read.
terraform import zdm_fota.gateway dev-0123456789abcdef
