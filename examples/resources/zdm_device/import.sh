# Import a device of the provider's workspace by its ID:
terraform import zdm_device.sensor dev-0123456789abcdef

# or name its workspace too, as <workspace_id>/<device_id>:
terraform import zdm_device.sensor wks-0123456789abcdef/dev-0123456789abcdef

# Both string forms are unambiguous only when neither ID contains "/": such
# an import ID is refused (never split at the wrong "/"). IDs are opaque and
# may contain "/": import those devices with an import block and identity.
