// Package scheduling holds the rules that jobs and firmware updates share:
// named targets (never an implied workspace or "all fleets"), read-backs of
// an ambiguous scheduling, records the service lost, the waits on device
// statuses and their attributes, the schedulings whose wait failed (so that
// a replacement adopts instead of sending again), and zdm_fleet_status.
// The jobs, firmware and rollouts families build on it; it names no job or
// firmware resource. What the staged rollouts share on the Terraform side
// (their inputs, checks, wave results and record) is in package rollouts.
package scheduling
