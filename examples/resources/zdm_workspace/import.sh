# Import a workspace of the API key's account by its ID.
terraform import zdm_workspace.staging wks-0123456789abcdef
