# Every workspace of the API key's account.
list "zdm_workspace" "all" {
  provider = zdm

  config {}
}

# Workspaces named "production".
list "zdm_workspace" "production" {
  provider = zdm

  config {
    name = "production"
  }
}
