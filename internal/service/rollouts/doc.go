// Package rollouts is the staged-rollout family: zdm_job_rollout and
// zdm_fota_rollout, each a resource and an action. One resource
// (resource_rollout.go) and one action (action_rollout.go) serve both
// commands; what sets a job rollout apart from a firmware rollout is its
// command's description (rollout_command.go: the rolloutCommand with the
// schema, ID and words of messages, and the commandInputs of its model),
// given in job_rollout.go and fota_rollout.go. What every rollout shares on
// the Terraform side is in rollout.go (the target and wave inputs, their
// descriptions and checks, the spec, wave_results and the record in the
// state, the resume plan), attributes_action.go (the actions' attributes),
// rollout_record.go (the record a replacement inherits), and the gates:
// health.go (health_check and the storage probe) and pacing.go
// (min_devices_reported, max_devices_per_minute, maintenance_window). The
// waves, gates and resume run in package rollout.
package rollouts
