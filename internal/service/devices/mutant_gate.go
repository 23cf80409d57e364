//go:build !zdm_mutant_nogate

package devices

// mutantNoGate is true only in the mutant built with -tags
// zdm_mutant_nogate (mutant_nogate.go), which the model checker's positive
// control uses; in every other build it is false and the compiler drops the
// branch that reads it.
const mutantNoGate = false
