// Package kittest holds the test values of kit's shared models, for the
// tests of the families and of the provider.
package kittest
