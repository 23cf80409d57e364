// Package scheduling holds the rules that jobs and firmware updates share:
// named targets (never an implied workspace or "all fleets"), read-backs of
// an ambiguous scheduling, records the service lost, the waits on device
// statuses and their attributes, the schedulings whose wait failed (so that
// a replacement adopts instead of sending again), and the fleet-wide status
// read as Terraform values (ReadFleetStatus, the parallelism limits, counts
// by status). The jobs, firmware and rollouts families build on it, and
// zdm_fleet_status (package fleets) reads through it; it names no resource
// or data source of a family. What the staged rollouts share on the
// Terraform side (their inputs, checks, wave results and record) is in
// package rollouts.
package scheduling
