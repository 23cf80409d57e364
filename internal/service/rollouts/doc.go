// Package rollouts is the staged-rollout family: zdm_job_rollout and
// zdm_fota_rollout, each a resource and an action. What sets a job rollout
// apart from a firmware rollout is its command (job_rollout.go,
// fota_rollout.go: the inputs, their checks and the rollout.Command built
// from them); the waves, gates and resume run in package rollout.
package rollouts
