package fleetdevices

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/protoval"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices"
)

// The value of a zdm_fleet_devices as plain Go (fleetDevicesObject), and
// its conversions to and from the protocol's values: shared by the
// resource's protocol server (resource_fleet_devices_protocol.go) and its
// list resource.

// The protocol types of the resource and of its identity; the schema test
// checks them against the framework's schema.
var (
	fleetDeviceDetailType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"id": tftypes.String, "name": tftypes.String, "fleet_id": tftypes.String,
		"phys_id": tftypes.String, "created_at": tftypes.String, "identities": tftypes.String,
	}}
	fleetDevicesType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"workspace_id":      tftypes.String,
		"fleet_id":          tftypes.String,
		"fleet_name":        tftypes.String,
		"parallelism":       tftypes.Number,
		"devices":           tftypes.Map{ElementType: tftypes.String},
		"device_ids":        tftypes.Map{ElementType: tftypes.String},
		"devices_elsewhere": tftypes.Map{ElementType: tftypes.String},
		"include_details":   tftypes.Bool,
		"device_details":    tftypes.Map{ElementType: fleetDeviceDetailType},

		"allow_duplicate_names": tftypes.Bool,
	}}
	fleetDevicesIdentityType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"workspace_id": tftypes.String, "fleet_id": tftypes.String,
	}}
)

// fleetDevicesObject is a zdm_fleet_devices value.
type fleetDevicesObject struct {
	workspaceID, fleetID, fleetName protoval.String
	parallelism                     protoval.Int
	includeDetails                  protoval.Bool
	// allowDuplicates is allow_duplicate_names (see devices/duplicates.go).
	allowDuplicates protoval.Bool
	// devices maps each key to the device name: the configured one in
	// plans, the one the service showed in the state.
	devices protoval.StringMap
	// deviceIDs holds the keys whose device exists.
	deviceIDs protoval.StringMap
	// elsewhere holds the keys whose device was found in another fleet.
	elsewhere protoval.StringMap
	details   fleetDetails
}

// fleetDetails is the device_details map.
type fleetDetails struct {
	m             map[string]fleetDeviceDetail
	null, unknown bool
}

// fleetDeviceDetail is an element of device_details.
type fleetDeviceDetail struct {
	id, name, fleetID, physID, createdAt, identities protoval.String
}

func (d fleetDeviceDetail) value() tftypes.Value {
	return tftypes.NewValue(fleetDeviceDetailType, map[string]tftypes.Value{
		"id": d.id.Value(), "name": d.name.Value(), "fleet_id": d.fleetID.Value(),
		"phys_id": d.physID.Value(), "created_at": d.createdAt.Value(), "identities": d.identities.Value(),
	})
}

func (f fleetDetails) value() tftypes.Value {
	t := tftypes.Map{ElementType: fleetDeviceDetailType}
	switch {
	case f.unknown:
		return tftypes.NewValue(t, tftypes.UnknownValue)
	case f.null:
		return tftypes.NewValue(t, nil)
	}
	elems := make(map[string]tftypes.Value, len(f.m))
	for k, d := range f.m {
		elems[k] = d.value()
	}
	return tftypes.NewValue(t, elems)
}

// detailOf is the element of device_details of a device.
func detailOf(d *client.Device) fleetDeviceDetail {
	ids := devices.FlattenIdentities(d.Identities)
	return fleetDeviceDetail{id: protoval.KnownString(d.ID), name: protoval.KnownString(d.Name), fleetID: protoval.KnownString(d.FleetID()),
		physID: protoval.KnownString(d.PhysID), createdAt: protoval.KnownString(d.CreatedAt),
		identities: protoval.String{S: ids.ValueString(), Null: ids.IsNull()}}
}

var unknownDetail = fleetDeviceDetail{id: protoval.UnknownString, name: protoval.UnknownString, fleetID: protoval.UnknownString,
	physID: protoval.UnknownString, createdAt: protoval.UnknownString, identities: protoval.UnknownString}

func decodeDetails(v tftypes.Value) (fleetDetails, error) {
	switch {
	case !v.IsKnown():
		return fleetDetails{unknown: true}, nil
	case v.IsNull():
		return fleetDetails{null: true}, nil
	}
	var elems map[string]tftypes.Value
	if err := v.As(&elems); err != nil {
		return fleetDetails{}, err
	}
	out := fleetDetails{m: make(map[string]fleetDeviceDetail, len(elems))}
	for k, e := range elems {
		if !e.IsKnown() || e.IsNull() {
			out.m[k] = unknownDetail
			continue
		}
		attrs, err := protoval.ObjectAttributes(e)
		if err != nil {
			return fleetDetails{}, err
		}
		var d fleetDeviceDetail
		for name, dst := range map[string]*protoval.String{"id": &d.id, "name": &d.name, "fleet_id": &d.fleetID,
			"phys_id": &d.physID, "created_at": &d.createdAt, "identities": &d.identities} {
			if *dst, err = protoval.DecodeString(attrs[name]); err != nil {
				return fleetDetails{}, err
			}
		}
		out.m[k] = d
	}
	return out, nil
}

// decodeFleetDevices reads a value of the resource; null reports a null
// value (no object).
func decodeFleetDevices(dv *tfprotov6.DynamicValue) (o fleetDevicesObject, null bool, err error) {
	if dv == nil {
		return o, true, nil
	}
	if len(dv.MsgPack) > 0 {
		if o, null, err := decodeFleetDevicesMsgpack(dv.MsgPack); err == nil {
			return o, null, nil
		}
		// Anything the direct reader does not take, tftypes reads (or
		// explains).
	}
	v, err := dv.Unmarshal(fleetDevicesType)
	if err != nil {
		return o, false, err
	}
	return fleetDevicesFromValue(v)
}

func fleetDevicesFromValue(v tftypes.Value) (o fleetDevicesObject, null bool, err error) {
	if v.IsNull() {
		return o, true, nil
	}
	if !v.IsKnown() {
		return o, false, errors.New("the whole zdm_fleet_devices value is unknown")
	}
	attrs, err := protoval.ObjectAttributes(v)
	if err != nil {
		return o, false, err
	}
	for name, dst := range map[string]*protoval.String{"workspace_id": &o.workspaceID, "fleet_id": &o.fleetID, "fleet_name": &o.fleetName} {
		if *dst, err = protoval.DecodeString(attrs[name]); err != nil {
			return o, false, fmt.Errorf("%s: %w", name, err)
		}
	}
	if o.parallelism, err = protoval.DecodeInt(attrs["parallelism"]); err != nil {
		return o, false, fmt.Errorf("parallelism: %w", err)
	}
	if o.includeDetails, err = protoval.DecodeBool(attrs["include_details"]); err != nil {
		return o, false, fmt.Errorf("include_details: %w", err)
	}
	if o.allowDuplicates, err = protoval.DecodeBool(attrs[devices.AllowDuplicateNamesAttr]); err != nil {
		return o, false, fmt.Errorf("%s: %w", devices.AllowDuplicateNamesAttr, err)
	}
	for name, dst := range map[string]*protoval.StringMap{"devices": &o.devices, "device_ids": &o.deviceIDs, "devices_elsewhere": &o.elsewhere} {
		if *dst, err = protoval.DecodeStringMap(attrs[name]); err != nil {
			return o, false, fmt.Errorf("%s: %w", name, err)
		}
	}
	if o.details, err = decodeDetails(attrs["device_details"]); err != nil {
		return o, false, fmt.Errorf("device_details: %w", err)
	}
	return o, false, nil
}

// stateHasSchemaAttributes tells whether a state in JSON is an object
// whose attributes are exactly those of fleetDevicesType: Terraform can
// then read it as the upgraded state as it is. An attribute the schema no
// longer has (or has not yet had) sends the state through tftypes, which
// drops it (or adds it as null).
func stateHasSchemaAttributes(raw []byte) bool {
	var attrs map[string]json.RawMessage
	if json.Unmarshal(raw, &attrs) != nil || len(attrs) != len(fleetDevicesType.AttributeTypes) {
		return false
	}
	for name := range attrs {
		if _, ok := fleetDevicesType.AttributeTypes[name]; !ok {
			return false
		}
	}
	return true
}

// value is the tftypes value of the object.
func (o *fleetDevicesObject) value() tftypes.Value {
	return tftypes.NewValue(fleetDevicesType, map[string]tftypes.Value{
		"workspace_id":      o.workspaceID.Value(),
		"fleet_id":          o.fleetID.Value(),
		"fleet_name":        o.fleetName.Value(),
		"parallelism":       o.parallelism.Value(),
		"include_details":   o.includeDetails.Value(),
		"devices":           o.devices.Value(),
		"device_ids":        o.deviceIDs.Value(),
		"devices_elsewhere": o.elsewhere.Value(),
		"device_details":    o.details.value(),

		devices.AllowDuplicateNamesAttr: o.allowDuplicates.Value(),
	})
}

// dynamicValue encodes the object for a response.
func (o *fleetDevicesObject) dynamicValue() (*tfprotov6.DynamicValue, error) {
	b, err := o.encodeMsgpack()
	if err != nil {
		return nil, err
	}
	return &tfprotov6.DynamicValue{MsgPack: b}, nil
}

// identity is the identity of the object.
func (o *fleetDevicesObject) identity() (*tfprotov6.ResourceIdentityData, error) {
	dv, err := tfprotov6.NewDynamicValue(fleetDevicesIdentityType, tftypes.NewValue(fleetDevicesIdentityType,
		map[string]tftypes.Value{"workspace_id": o.workspaceID.Value(), "fleet_id": o.fleetID.Value()}))
	if err != nil {
		return nil, err
	}
	return &tfprotov6.ResourceIdentityData{IdentityData: &dv}, nil
}

// fleetDevice is one device of the map as the state knows it; id is empty
// for a key whose create failed.
type fleetDevice struct {
	id, name string
	// elsewhere is the other fleet the device was found in, if any.
	elsewhere string
}

// entries returns the devices of a state, by key.
func (o *fleetDevicesObject) entries() map[string]fleetDevice {
	out := make(map[string]fleetDevice, len(o.devices.M))
	for k, name := range o.devices.M {
		out[k] = fleetDevice{id: o.deviceIDs.M[k].S, name: name.S, elsewhere: o.elsewhere.M[k].S}
	}
	return out
}

// fleetNameIn returns the fleet name that the devices of all in fleet carry,
// or "" when fleet is "" or none of them names it.
func fleetNameIn(all []client.Device, fleet string) string {
	if fleet == "" {
		return ""
	}
	for i := range all {
		if all[i].FleetID() == fleet && all[i].FleetName() != "" {
			return all[i].FleetName()
		}
	}
	return ""
}

// fleetDevicesByKey keys the devices of fleet among all by name, or by ID
// with keyByID, as an import reads them. shared holds the keys that
// several devices have, with their IDs sorted; found keeps the last device
// of each key.
func fleetDevicesByKey(all []client.Device, fleet string, keyByID bool) (found map[string]*client.Device, shared map[string][]string) {
	found = map[string]*client.Device{}
	ids := map[string][]string{}
	for i := range all {
		dev := &all[i]
		if dev.FleetID() != fleet {
			continue
		}
		key := dev.Name
		if keyByID {
			key = dev.ID
		}
		ids[key] = append(ids[key], dev.ID)
		found[key] = dev
	}
	for k, v := range ids {
		if len(v) > 1 {
			if shared == nil {
				shared = map[string][]string{}
			}
			sort.Strings(v)
			shared[k] = v
		}
	}
	return found, shared
}

// heldKeys are the keys of entries whose device exists, sorted.
func heldKeys(entries map[string]fleetDevice) []string {
	var out []string
	for k, e := range entries {
		if e.id != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// setFound records the devices found by a read or an apply: names, IDs,
// the devices in another fleet, and the details when they are kept. Keys
// of the state that are not in found keep their name and have no device.
func (o *fleetDevicesObject) setFound(found map[string]*client.Device) {
	names := make(map[string]protoval.String, len(o.devices.M))
	for k, n := range o.devices.M {
		names[k] = n
	}
	ids := make(map[string]protoval.String, len(found))
	elsewhere := map[string]protoval.String{}
	var details map[string]fleetDeviceDetail
	if o.includeDetails.B {
		details = make(map[string]fleetDeviceDetail, len(found))
	}
	for k, dev := range found {
		names[k] = protoval.KnownString(dev.Name)
		ids[k] = protoval.KnownString(dev.ID)
		if o.fleetID.IsKnown() && dev.FleetID() != o.fleetID.S {
			elsewhere[k] = protoval.KnownString(dev.FleetID())
		}
		if details != nil {
			details[k] = detailOf(dev)
		}
	}
	o.devices = protoval.StringMap{M: names}
	o.deviceIDs = protoval.StringMap{M: ids}
	o.elsewhere = protoval.StringMap{M: elsewhere}
	o.details = fleetDetails{m: details, null: details == nil}
}

// describeFleetDevices names the resource in messages.
func describeFleetDevices(ws, fleet string) string {
	if fleet == "" {
		return "zdm_fleet_devices of the default fleet of workspace " + connection.Quote(ws)
	}
	return "zdm_fleet_devices of fleet " + connection.Quote(fleet) + " of workspace " + connection.Quote(ws)
}

// devicesRef lists devices as `"key": "name" (id)`, at most connection.MaxListed.
func devicesRef(entries map[string]fleetDevice, keys []string) string {
	items := make([]string, 0, len(keys))
	for _, k := range keys {
		e := entries[k]
		items = append(items, fmt.Sprintf("%s: %s (%s)", connection.Quote(k), connection.Quote(e.name), e.id))
	}
	return devices.ListSome(items)
}
