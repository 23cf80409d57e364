//go:build zdm_mutant_nogate

package devices

// mutantNoGate makes existingNames skip the service read of the duplicate
// check, as if the gate had a hole: the model checker's positive control
// (internal/modelcheck) builds the provider with -tags zdm_mutant_nogate
// and must find the duplicate devices this lets through. Never in a
// release build.
const mutantNoGate = true
