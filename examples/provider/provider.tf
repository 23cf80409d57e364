# Every argument can be left out and taken from its environment variable
# instead: ZDM_BASE_URL, ZDM_STORAGE_URL, ZDM_API_KEY, ZDM_WORKSPACE_ID,
# ZDM_REQUEST_TIMEOUT, ZDM_MAX_RETRIES, ZDM_MAX_REQUESTS_PER_SECOND and
# ZDM_INSECURE_HTTP.
provider "zdm" {
  base_url    = "https://api.zdm.example.com"
  storage_url = "https://storage.zdm.example.com"
  api_key     = var.zdm_api_key

  # The workspace the API key is bound to: the default of every resource and
  # data source that takes a workspace_id.
  workspace_id = "wks-0123456789abcdef"

  request_timeout = "60s"
  max_retries     = 5

  # Jobs that share the key's rate limit: the limit divided by the jobs
  # that run at once (20 requests a second over 8 jobs).
  max_requests_per_second = 2.5
}

variable "zdm_api_key" {
  description = "API key of the ZDM workspace."
  type        = string
  sensitive   = true
}
