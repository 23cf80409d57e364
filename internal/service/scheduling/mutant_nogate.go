//go:build zdm_mutant_nogate

package scheduling

// mutantNoGate makes gateFleet skip the service read before a fleet-wide
// request, as if every device of the fleets lacked the command: the model
// checker's positive control for fleet-wide commands (internal/modelcheck,
// FleetOps) must find the job sent twice that this lets through. Never in
// a release build.
const mutantNoGate = true
