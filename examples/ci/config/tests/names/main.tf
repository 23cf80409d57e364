# A suffix of this run's own: nothing can be deleted through the API, so each
# run of `terraform test` needs names that no earlier run used.
output "suffix" {
  value = substr(uuid(), 0, 8)
}
