// Package jobs is the jobs family: zdm_device_job (resource, data source,
// list resource), zdm_device_jobs, zdm_fleet_job, zdm_job_rollout (resource
// and action) and the zdm_schedule_job action.
package jobs
