# One page: the 100 newest temperature points of one day (the service's
# default page size is 100; size goes up to 175000).
data "zdm_timeseries" "today" {
  start = "2025-01-31T00:00:00Z" # inclusive
  end   = "2025-02-01T00:00:00Z" # exclusive
  tags  = ["temperature"]
}

# The third page of 50 points of two devices, oldest first.
data "zdm_timeseries" "page" {
  devices = ["dev-0123456789abcdef", "dev-fedcba9876543210"]
  sort    = "timestamp_device"
  from    = 2
  size    = 50
}

# Every point of the day, read in requests of 10000 points, up to 500000.
data "zdm_timeseries" "all" {
  start      = "2025-01-31T00:00:00Z"
  end        = "2025-02-01T00:00:00Z"
  max_points = 500000
}

# A large read as one JSON text: with as_json, points is null and points_json
# holds the points, which Terraform keeps in far less memory than a list of
# objects. jsondecode gives the items of points, with payload already decoded.
data "zdm_timeseries" "month" {
  start      = "2025-01-01T00:00:00Z"
  end        = "2025-02-01T00:00:00Z"
  max_points = 1000000
  as_json    = true
}

locals {
  month_points = jsondecode(data.zdm_timeseries.month.points_json)
}

output "latest_temperature" {
  value = length(data.zdm_timeseries.today.points) > 0 ? jsondecode(data.zdm_timeseries.today.points[0].payload) : null
}

output "points_of_the_day" {
  value = length(data.zdm_timeseries.all.points)
}

output "points_of_the_month" {
  value = data.zdm_timeseries.month.point_count
}

output "first_payload_of_the_month" {
  value = length(local.month_points) > 0 ? local.month_points[0].payload : null
}
