// Package devices is the devices family: zdm_device (resource, data source,
// list resource) and zdm_devices, and what zdm_fleet_devices shares with
// them: the device model and its data-source attributes (models.go), the
// gate of device creates that refuses a second copy (duplicates.go,
// FleetNames.Refuse and allow_duplicate_names), the claims that find a
// device managed by two resources (device_claims.go) and the lists of the
// messages (messages.go).
//
// zdm_fleet_devices (many devices as one resource, served at the protocol
// level) and its list resource are package fleetdevices, below which the
// concurrent writes of many devices are package bulkwrite. fleetdevices
// imports this package, never the reverse; the provider registers the
// constructors of both.
package devices
