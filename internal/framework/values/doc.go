// Package values holds the helpers for the plugin framework's values that
// know nothing of the API: sets and lists of strings, known values, IDs
// joined from parts (JoinID, SplitID) and JSON text kept in a string
// attribute. It imports nothing of this repository but package jsonvalue; a
// value with a meaning for the API (the value of a job) belongs to the
// family that owns it.
package values
