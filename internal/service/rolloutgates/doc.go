// Package rolloutgates holds the gates and pacing of the staged rollouts on
// the Terraform side (health_check, min_devices_reported,
// max_devices_per_minute, maintenance_window): their schemas for the
// resources and the action, their checks at plan time, and the engine's
// values built from them. package scheduling puts them among the inputs
// every rollout has; the gates run in package rollout.
package rolloutgates
