# Import a workspace of the API key's account by its ID.
terraform import zdm_workspace.staging wks-0123456789abcdef
# An ID that contains "/" is refused here: import such a workspace with an
# import block and identity.
