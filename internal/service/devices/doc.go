// Package devices is the devices family: zdm_device (resource, data source,
// list resource), zdm_devices, and zdm_fleet_devices (many devices as one
// resource, served at the protocol level: see resource_fleet_devices_protocol.go)
// with its list resource. The concurrent writes of many devices of
// zdm_fleet_devices are package bulkwrite, below it.
//
// Size: zdm_fleet_devices is served at the protocol level (its values, in
// tftypes and in MessagePack, its plan and its apply) and its gate (resume,
// carry a renamed key's device over, refuse a duplicate) reads the same
// values; they are one resource and stay together.
package devices
