package fleetdevices

import (
	"fmt"

	"github.com/zdm/terraform-provider-zdm/internal/protoval"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices"
)

// The zdm_fleet_devices value in the protocol's MessagePack encoding,
// written and read directly (protoval's Writer and Reader) rather than
// through a tftypes.Value per device: with a hundred thousand devices,
// those values were most of the provider's time in a plan. The tftypes
// conversions (fleet_devices_values.go) stay the reference: the tests
// compare both on the same values, and a value the direct reader does not
// take is read by tftypes.

// fleetDevicesAttrs is the number of attributes of fleetDevicesType.
const fleetDevicesAttrs = 10

// encodeMsgpack writes the object.
func (o *fleetDevicesObject) encodeMsgpack() ([]byte, error) {
	// About 3 maps of key and value, and the details, per device.
	w := protoval.NewWriter(256 + len(o.devices.M)*96 + len(o.details.m)*160)
	w.ObjectStart(fleetDevicesAttrs)
	w.Key("workspace_id")
	w.String(o.workspaceID)
	w.Key("fleet_id")
	w.String(o.fleetID)
	w.Key("fleet_name")
	w.String(o.fleetName)
	w.Key("parallelism")
	w.Int(o.parallelism)
	w.Key("include_details")
	w.Bool(o.includeDetails)
	w.Key(devices.AllowDuplicateNamesAttr)
	w.Bool(o.allowDuplicates)
	w.Key("devices")
	w.StringMap(o.devices)
	w.Key("device_ids")
	w.StringMap(o.deviceIDs)
	w.Key("devices_elsewhere")
	w.StringMap(o.elsewhere)
	w.Key("device_details")
	if w.MapStart(len(o.details.m), o.details.null, o.details.unknown) {
		for k, d := range o.details.m {
			w.Key(k)
			d.encodeMsgpack(w)
		}
	}
	return w.Bytes()
}

// fleetDeviceDetailAttrs is the number of attributes of fleetDeviceDetailType.
const fleetDeviceDetailAttrs = 6

func (d *fleetDeviceDetail) encodeMsgpack(w *protoval.Writer) {
	w.ObjectStart(fleetDeviceDetailAttrs)
	for _, a := range d.attrs() {
		w.Key(a.name)
		w.String(*a.value)
	}
}

type detailAttr struct {
	name  string
	value *protoval.String
}

func (d *fleetDeviceDetail) attrs() [fleetDeviceDetailAttrs]detailAttr {
	return [...]detailAttr{{"id", &d.id}, {"name", &d.name}, {"fleet_id", &d.fleetID},
		{"phys_id", &d.physID}, {"created_at", &d.createdAt}, {"identities", &d.identities}}
}

// decodeMsgpack reads an object written in MessagePack; any value the
// direct reader does not take gives an error, and the caller reads it with
// tftypes.
func decodeFleetDevicesMsgpack(b []byte) (o fleetDevicesObject, null bool, err error) {
	r := protoval.NewReader(b)
	n, err := r.Len()
	switch {
	case err != nil:
		return o, false, err
	case n == -1:
		return o, true, r.End()
	case n != fleetDevicesAttrs:
		return o, false, protoval.ErrUnusual
	}
	// Each attribute exactly once: a missing one would read as an empty
	// string.
	seen := map[string]bool{}
	for range n {
		name, err := r.Key()
		if err != nil {
			return o, false, err
		}
		if seen[name] {
			return o, false, protoval.ErrUnusual
		}
		seen[name] = true
		switch name {
		case "workspace_id":
			o.workspaceID, err = r.String()
		case "fleet_id":
			o.fleetID, err = r.String()
		case "fleet_name":
			o.fleetName, err = r.String()
		case "parallelism":
			o.parallelism, err = r.Int()
		case "include_details":
			o.includeDetails, err = r.Bool()
		case devices.AllowDuplicateNamesAttr:
			o.allowDuplicates, err = r.Bool()
		case "devices":
			o.devices, err = r.StringMap()
		case "device_ids":
			o.deviceIDs, err = r.StringMap()
		case "devices_elsewhere":
			o.elsewhere, err = r.StringMap()
		case "device_details":
			o.details, err = decodeDetailsMsgpack(r)
		default:
			return o, false, protoval.ErrUnusual
		}
		if err != nil {
			return o, false, fmt.Errorf("%s: %w", name, err)
		}
	}
	return o, false, r.End()
}

func decodeDetailsMsgpack(r *protoval.Reader) (fleetDetails, error) {
	n, err := r.Len()
	switch {
	case err != nil:
		return fleetDetails{}, err
	case n == -2:
		return fleetDetails{unknown: true}, nil
	case n == -1:
		return fleetDetails{null: true}, nil
	}
	out := fleetDetails{m: make(map[string]fleetDeviceDetail, n)}
	for range n {
		k, err := r.Key()
		if err != nil {
			return fleetDetails{}, err
		}
		m, err := r.Len()
		switch {
		case err != nil:
			return fleetDetails{}, err
		case m < 0:
			// A null or unknown element reads as unknown, as in decodeDetails.
			out.m[k] = unknownDetail
			continue
		case m != fleetDeviceDetailAttrs:
			return fleetDetails{}, protoval.ErrUnusual
		}
		var d fleetDeviceDetail
		attrs := d.attrs()
		var seen [fleetDeviceDetailAttrs]bool
		for range m {
			name, err := r.Key()
			if err != nil {
				return fleetDetails{}, err
			}
			i := 0
			for i < len(attrs) && attrs[i].name != name {
				i++
			}
			if i == len(attrs) || seen[i] {
				return fleetDetails{}, protoval.ErrUnusual
			}
			seen[i] = true
			if *attrs[i].value, err = r.String(); err != nil {
				return fleetDetails{}, err
			}
		}
		out.m[k] = d
	}
	return out, nil
}
