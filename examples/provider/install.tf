# Install the provider from the registry: `terraform init` downloads the
# newest 0.x release that satisfies the constraint.
terraform {
  required_version = ">= 1.5"

  required_providers {
    zdm = {
      source  = "zdm/zdm"
      version = "~> 0.1"
    }
  }
}
