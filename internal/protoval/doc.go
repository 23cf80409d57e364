// Package protoval converts between the protocol's tftypes values and plain
// Go values, and turns framework diagnostics and paths into the protocol's,
// for the resources served below the framework. It knows nothing of ZDM.
package protoval
