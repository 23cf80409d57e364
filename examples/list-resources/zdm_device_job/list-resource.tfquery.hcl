# The pending jobs of one device, to adopt them in bulk with
# `terraform query -generate-config-out=jobs.tf` (one import block by
# identity and one zdm_device_job block per job).
list "zdm_device_job" "pending" {
  provider = zdm

  config {
    device_id = "dev-0123456789abcdef"
    status    = "pending"
  }
}

# Every job of a device, at most 1000 of them (Terraform returns at most
# `limit` results, 100 when not set).
list "zdm_device_job" "all" {
  provider = zdm
  limit    = 1000

  config {
    device_id = "dev-0123456789abcdef"
  }
}
