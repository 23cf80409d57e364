// Package jobs is the jobs family: zdm_device_job (resource, data source,
// list resource), zdm_device_jobs, zdm_fleet_job and the zdm_schedule_job
// action. The staged zdm_job_rollout is in package rollouts.
package jobs
