# Install the provider from the registry: `terraform init` downloads the
# newest release that satisfies the constraint. Before 1.0 a minor release
# (0.2.0) may change behavior: "~> 0.1.0" takes the fixes of 0.1 only, and
# you move to 0.2 on purpose, after reading its CHANGELOG. Commit the
# .terraform.lock.hcl that `terraform init` writes.
terraform {
  required_version = ">= 1.5"

  required_providers {
    zdm = {
      source  = "zdm/zdm"
      version = "~> 0.1.0"
    }
  }
}
