// Package scheduling holds the rules that jobs and firmware updates share:
// named targets (never an implied workspace or "all fleets"), read-backs of
// an ambiguous scheduling, records the service lost, the waits on device
// statuses and their attributes, the schedulings whose wait failed (so that
// a replacement adopts instead of sending again), what the staged rollouts
// share on the Terraform side (their inputs, checks and wave results), and
// zdm_fleet_status.
// The jobs and firmware families build on it; it names no job or firmware
// resource.
//
// Size: it holds both the rules jobs and firmware share and the Terraform
// side of the staged rollouts, which are a concept of their own; the
// rollout family (its resources, actions, gates and record) is meant to
// move to a package of its own, which would bring this one well under.
package scheduling
