# fleets/main.tf: the root module, applied once per shard, each shard with a
# state of its own.
terraform {
  # A backend that locks; the state's key is given per shard at init:
  # terraform init -backend-config="key=fleets/a.tfstate"
  backend "s3" {
    bucket       = "acme-terraform-states"
    region       = "eu-west-1"
    use_lockfile = true
  }
}

variable "shard" {
  type = string
}

variable "max_requests_per_second" {
  description = "The key's rate limit divided by the jobs that run at once; null: no cap."
  type        = number
  default     = null
}

provider "zdm" {
  # base_url and api_key from ZDM_BASE_URL and ZDM_API_KEY.
  max_requests_per_second = var.max_requests_per_second
}

locals {
  # inventory/shards.csv: fleet,shard
  fleets = toset([
    for row in csvdecode(file("${path.module}/../inventory/shards.csv")) : row.fleet if row.shard == var.shard
  ])
}

module "fleet" {
  source   = "../modules/fleet"
  for_each = local.fleets

  name        = each.key
  devices_csv = "${path.module}/../inventory/${each.key}.csv"
}
