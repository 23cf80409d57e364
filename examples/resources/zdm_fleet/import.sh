# Import a fleet of the provider's workspace by its ID:
terraform import zdm_fleet.sensors flt-0123456789abcdef

# or name its workspace too, as <workspace_id>/<fleet_id>:
terraform import zdm_fleet.sensors wks-0123456789abcdef/flt-0123456789abcdef

# Both string forms are unambiguous only when neither ID contains "/": such
# an import ID is refused (never split at the wrong "/"). IDs are opaque and
# may contain "/": import those fleets with an import block and identity.
