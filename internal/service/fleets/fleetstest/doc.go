// Package fleetstest holds the test values of the workspace and fleet
// models, for the tests of package fleets and of package objects.
package fleetstest
