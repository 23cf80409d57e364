// Package devices is the devices family: zdm_device (resource, data source,
// list resource), zdm_devices, and zdm_fleet_devices (many devices as one
// resource, served at the protocol level: see resource_fleet_devices_protocol.go)
// with its list resource. The concurrent writes of many devices of
// zdm_fleet_devices are package bulkwrite, below it.
package devices
