# Import the firmware update of one device by the device ID (the import ID is
# the device ID as a whole; an ID of three "/"-separated parts is first read
# as an update of fleets, below, when its first part is a workspace).
terraform import zdm_fota.gateway dev-0123456789abcdef

# Import an update of fleets by its id, <workspace_id>/<firmware_id>/<firmware_version>
# (a "/" inside a part written %2F). It takes every device of the workspace
# whose current update is that firmware, as all_fleets = true; a configuration
# with fewer fleets sends nothing on the next apply.
terraform import zdm_fota.fleets wks-0123456789abcdef/fw-sensor/2.0.0
