// Package validators holds the schema validators that mean the same in any
// provider of the plugin framework: a string that is not blank, a time in
// RFC 3339, a regular expression. It imports nothing of this repository;
// the validators of the connection settings are in package connection, and
// a rule of the API (what a name or a job value may be) belongs to the family
// that owns it.
package validators
