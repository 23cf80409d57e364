# Import a fleet of the provider's workspace by its ID:
terraform import zdm_fleet.sensors flt-0123456789abcdef

# or name its workspace too, as <workspace_id>/<fleet_id>:
terraform import zdm_fleet.sensors wks-0123456789abcdef/flt-0123456789abcdef
