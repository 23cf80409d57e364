# Import every device of a fleet, keyed by device name. The configuration may
# key the devices otherwise (such as "SN-0001" = "<name>"): the next apply
# gives each new key the imported device of its name, creating nothing.
terraform import zdm_fleet_devices.sensors wks-0123456789abcdef/flt-0123456789abcdef

# or of a fleet of the provider's workspace:
terraform import zdm_fleet_devices.sensors flt-0123456789abcdef

# When several devices of the fleet share a name, key them by device ID
# (write each device as "<device_id>" = "<name>" in devices):
terraform import zdm_fleet_devices.sensors wks-0123456789abcdef/flt-0123456789abcdef/by-id
