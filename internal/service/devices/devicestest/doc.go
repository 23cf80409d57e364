// Package devicestest holds the test values of the device model, for the
// tests of package devices and of package objects.
package devicestest
