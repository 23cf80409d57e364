package fleetdevices

import (
	"fmt"
	"math/big"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/zdm/terraform-provider-zdm/internal/protoval"
)

// msgpackSamples are values of zdm_fleet_devices in every state the
// protocol can carry: known, null and unknown attributes, maps and
// elements, empty and large maps.
func msgpackSamples() map[string]fleetDevicesObject {
	known := func(s string) protoval.String { return protoval.KnownString(s) }
	big := fleetDevicesObject{workspaceID: known("wks-1"), fleetID: known("flt-1"), fleetName: known("f"),
		parallelism: protoval.Int{N: 16}, includeDetails: protoval.Bool{B: true}, allowDuplicates: protoval.Bool{Null: true},
		devices:   protoval.StringMap{M: map[string]protoval.String{}},
		deviceIDs: protoval.StringMap{M: map[string]protoval.String{}},
		elsewhere: protoval.StringMap{M: map[string]protoval.String{}},
		details:   fleetDetails{m: map[string]fleetDeviceDetail{}}}
	for i := range 300 {
		k := fmt.Sprintf("k-%05d", i)
		big.devices.M[k] = known(fmt.Sprintf("name-%d", i))
		switch i % 3 {
		case 0:
			big.deviceIDs.M[k] = known(fmt.Sprintf("dev-%d", i))
			big.details.m[k] = fleetDeviceDetail{id: known("dev"), name: known("n"), fleetID: known("flt-1"),
				physID: known(""), createdAt: known("2026-01-01T00:00:00Z"), identities: protoval.NullString}
		case 1:
			big.deviceIDs.M[k] = protoval.UnknownString
			big.details.m[k] = unknownDetail
		default:
			big.elsewhere.M[k] = known("flt-2")
		}
	}
	return map[string]fleetDevicesObject{
		"large": big,
		"planned": {workspaceID: protoval.UnknownString, fleetID: known("flt-1"), fleetName: protoval.UnknownString,
			parallelism: protoval.Int{Unknown: true}, includeDetails: protoval.Bool{B: false}, allowDuplicates: protoval.Bool{B: true},
			devices:   protoval.StringMap{M: map[string]protoval.String{"a": known("x"), "b": protoval.UnknownString, "c": protoval.NullString}},
			deviceIDs: protoval.StringMap{Unknown: true}, elsewhere: protoval.StringMap{Null: true}, details: fleetDetails{unknown: true}},
		"empty": {workspaceID: protoval.NullString, fleetID: protoval.NullString, fleetName: protoval.NullString,
			parallelism: protoval.Int{Null: true}, includeDetails: protoval.Bool{Null: true}, allowDuplicates: protoval.Bool{Null: true},
			devices: protoval.StringMap{M: map[string]protoval.String{}}, deviceIDs: protoval.StringMap{Null: true},
			elsewhere: protoval.StringMap{M: map[string]protoval.String{}}, details: fleetDetails{null: true}},
		"negative parallelism": {workspaceID: known(""), fleetID: known("é ü 🚀"), fleetName: known(string(make([]byte, 70000))),
			parallelism: protoval.Int{N: -1 << 40}, includeDetails: protoval.Bool{Unknown: true}, allowDuplicates: protoval.Bool{B: false},
			devices: protoval.StringMap{Unknown: true}, deviceIDs: protoval.StringMap{M: map[string]protoval.String{"": known("")}},
			elsewhere: protoval.StringMap{Unknown: true}, details: fleetDetails{m: map[string]fleetDeviceDetail{}}},
	}
}

// The direct encoding is what tftypes reads as the same value, and the
// direct reading of tftypes' encoding is what the tftypes conversion reads.
func TestFleetDevicesMsgpackMatchesTftypes(t *testing.T) {
	for name, o := range msgpackSamples() {
		t.Run(name, func(t *testing.T) {
			want := o.value()
			dv, err := o.dynamicValue()
			if err != nil {
				t.Fatal(err)
			}
			got, err := dv.Unmarshal(fleetDevicesType)
			if err != nil {
				t.Fatalf("tftypes cannot read the direct encoding: %v", err)
			}
			if !got.Equal(want) {
				diffs, _ := got.Diff(want)
				t.Fatalf("tftypes reads the direct encoding as another value: %d differences, first %v", len(diffs), diffs[0])
			}

			ref, err := tfprotov6.NewDynamicValue(fleetDevicesType, want)
			if err != nil {
				t.Fatal(err)
			}
			direct, null, err := decodeFleetDevicesMsgpack(ref.MsgPack)
			if err != nil || null {
				t.Fatalf("the direct reader did not take tftypes' encoding: null %v, %v", null, err)
			}
			viaTftypes, _, err := fleetDevicesFromValue(want)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(direct, viaTftypes) {
				t.Fatalf("the direct reader and tftypes read different objects:\n%+v\n%+v", direct, viaTftypes)
			}
		})
	}
}

func TestFleetDevicesMsgpackNullObject(t *testing.T) {
	ref, err := tfprotov6.NewDynamicValue(fleetDevicesType, tftypes.NewValue(fleetDevicesType, nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, null, err := decodeFleetDevicesMsgpack(ref.MsgPack); err != nil || !null {
		t.Fatalf("a null object reads as null %v, error %v", null, err)
	}
	if _, null, err := decodeFleetDevices(&ref); err != nil || !null {
		t.Fatalf("decodeFleetDevices: null %v, error %v", null, err)
	}
}

// A form the direct reader leaves alone (a number written as a float or a
// string, which Terraform may send) is read by tftypes, with its verdict.
func TestFleetDevicesMsgpackLeavesUnusualFormsToTftypes(t *testing.T) {
	o := msgpackSamples()["large"]
	for _, tc := range []struct {
		name    string
		n       *big.Float
		wantErr bool
	}{
		{"a whole float", big.NewFloat(8), false},                                           // written as an integer: the direct path
		{"a fraction", big.NewFloat(2.5), true},                                             // written as a float
		{"beyond int64", new(big.Float).SetPrec(200).SetMantExp(big.NewFloat(1), 80), true}, // written as a string
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := o.value()
			attrs, err := protoval.ObjectAttributes(v)
			if err != nil {
				t.Fatal(err)
			}
			attrs["parallelism"] = tftypes.NewValue(tftypes.Number, tc.n)
			ref, err := tfprotov6.NewDynamicValue(fleetDevicesType, tftypes.NewValue(fleetDevicesType, attrs))
			if err != nil {
				t.Fatal(err)
			}
			_, _, directErr := decodeFleetDevicesMsgpack(ref.MsgPack)
			read, err := ref.Unmarshal(fleetDevicesType)
			if err != nil {
				t.Fatal(err)
			}
			_, _, wantErr := fleetDevicesFromValue(read)
			got, _, err := decodeFleetDevices(&ref)
			if (err != nil) != tc.wantErr || (wantErr != nil) != tc.wantErr {
				t.Fatalf("error %v, tftypes' error %v, want an error: %v", err, wantErr, tc.wantErr)
			}
			if tc.wantErr {
				if directErr == nil {
					t.Fatal("the direct reader took a value it should leave to tftypes")
				}
				if err.Error() != wantErr.Error() {
					t.Fatalf("error %q, want tftypes' %q", err, wantErr)
				}
				return
			}
			if directErr != nil {
				t.Fatalf("the direct reader refused an integer: %v", directErr)
			}
			if got.parallelism.N != 8 {
				t.Fatalf("parallelism %d, want 8", got.parallelism.N)
			}
		})
	}
}

// Trailing bytes, a missing or repeated attribute: the direct reader
// refuses them (and leaves them to tftypes).
func TestFleetDevicesMsgpackRefusesMalformed(t *testing.T) {
	o := msgpackSamples()["planned"]
	good, err := o.encodeMsgpack()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := decodeFleetDevicesMsgpack(good); err != nil {
		t.Fatalf("control: the direct reader refused its own encoding: %v", err)
	}
	if _, _, err := decodeFleetDevicesMsgpack(append(append([]byte{}, good...), 0xc0)); err == nil {
		t.Fatal("trailing bytes were taken")
	}
	w := protoval.NewWriter(64)
	w.ObjectStart(fleetDevicesAttrs)
	for range fleetDevicesAttrs {
		w.Key("workspace_id")
		w.String(protoval.KnownString("x"))
	}
	repeated, err := w.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := decodeFleetDevicesMsgpack(repeated); err == nil {
		t.Fatal("an object repeating one attribute (and missing the others) was taken")
	}
}
