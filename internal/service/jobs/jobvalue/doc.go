// Package jobvalue is the value of a job: the arguments a configuration
// writes as an object or as JSON text, validated, planned and kept in state
// in the form it was written, and sent to the service as a compact JSON
// object. The jobs, the scheduling and the rollouts use it; it sits below
// them (package jobs imports scheduling, so the value cannot live in jobs
// itself) and imports nothing of the repository but jsonvalue. Sending a job
// and the rules of when to send belong to the families, not here.
package jobvalue
