// Package fleetdevices is zdm_fleet_devices, the devices of one fleet as one
// resource, and its list resource. The framework declares the resource's
// schema and identity (resource_fleet_devices.go: NewResource, for
// GetProviderSchema and the documentation); everything else (validation,
// state upgrade, read, plan, apply, import) is served at the protocol level
// by NewServer (resource_fleet_devices_protocol.go), to which the
// provider's server routes every call of TypeName. Its value is plain Go
// (fleet_devices_values.go), read and written in MessagePack directly
// (fleet_devices_msgpack.go). Its gate before a create resumes an object
// created in part (fleet_devices_resume.go), carries the device of a
// renamed key over (fleet_devices_gate.go), and then refuses a second copy
// with the gate of package devices (devices.FleetNames.Refuse).
//
// It imports package devices for what it shares with zdm_device (the
// duplicate gate and allow_duplicate_names, the claims of devices managed
// twice, the device's identities, the lists of the messages) and package
// bulkwrite for the concurrent writes of an apply; package devices never
// imports it.
package fleetdevices
