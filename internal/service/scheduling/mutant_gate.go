//go:build !zdm_mutant_nogate

package scheduling

// mutantNoGate is true only in the mutant built with -tags
// zdm_mutant_nogate (mutant_nogate.go), the model checker's positive
// control; in every other build it is false and the compiler drops the
// branch that reads it.
const mutantNoGate = false
