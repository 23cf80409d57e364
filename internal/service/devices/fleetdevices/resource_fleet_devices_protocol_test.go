package fleetdevices

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/protoval"
)

// TestFleetDevicesTypesMatchSchema checks that the protocol types the
// direct implementation converts with are the types of the schema and
// identity schema the framework declares (and Terraform sees).
func TestFleetDevicesTypesMatchSchema(t *testing.T) {
	ctx := t.Context()
	s := acctest.MustServer(t)
	sch, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := sch.ResourceSchemas[TypeName].ValueType(); !got.Equal(fleetDevicesType) {
		t.Errorf("schema type %s\nwant (fleetDevicesType) %s", got, fleetDevicesType)
	}
	ids, err := s.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids.IdentitySchemas[TypeName].ValueType(); !got.Equal(fleetDevicesIdentityType) {
		t.Errorf("identity type %s\nwant (fleetDevicesIdentityType) %s", got, fleetDevicesIdentityType)
	}
}

// TestServerRoutesFleetDevices checks that the protocol server answers
// zdm_fleet_devices itself, and every other type through the framework:
// the framework's entry points of zdm_fleet_devices answer an internal
// error, which the direct implementation never does.
func TestServerRoutesFleetDevices(t *testing.T) {
	ctx := t.Context()
	s := acctest.MustServer(t)
	cfg := fleetDevicesObject{workspaceID: protoval.NullString, fleetID: protoval.NullString, fleetName: protoval.NullString,
		parallelism: protoval.Int{Null: true}, includeDetails: protoval.Bool{Null: true},
		devices:   protoval.StringMap{M: map[string]protoval.String{"a": protoval.KnownString("a"), " ": protoval.KnownString("b")}},
		deviceIDs: protoval.StringMap{Null: true}, elsewhere: protoval.StringMap{Null: true}, details: fleetDetails{null: true}}
	dv, err := cfg.dynamicValue()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: TypeName, Config: dv})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Summary != "Invalid devices key" ||
		!resp.Diagnostics[0].Attribute.Equal(tftypes.NewAttributePath().WithAttributeName("devices").WithElementKeyString(" ")) {
		t.Errorf("direct validation: %+v, want one Invalid devices key at devices[\" \"]", resp.Diagnostics)
	}

	// The framework's Read of the type is the internal error: the proof
	// that the answer above did not come from it.
	var rr resource.ReadResponse
	(&fleetDevicesResource{}).Read(context.Background(), resource.ReadRequest{}, &rr)
	if !rr.Diagnostics.HasError() || !strings.Contains(rr.Diagnostics.Errors()[0].Detail(), "protocol server") {
		t.Errorf("framework Read: %v, want the internal error", rr.Diagnostics)
	}

	// Another type goes to the framework: its validators answer.
	dev, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	devType := dev.ResourceSchemas["zdm_device"].ValueType()
	obj, ok := devType.(tftypes.Object)
	if !ok {
		t.Fatalf("zdm_device type %T", devType)
	}
	vals := map[string]tftypes.Value{}
	for name, at := range obj.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
	}
	vals["name"] = tftypes.NewValue(tftypes.String, " ")
	ddv, err := tfprotov6.NewDynamicValue(obj, tftypes.NewValue(obj, vals))
	if err != nil {
		t.Fatal(err)
	}
	vr, err := s.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "zdm_device", Config: &ddv})
	if err != nil {
		t.Fatal(err)
	}
	if len(vr.Diagnostics) == 0 || vr.Diagnostics[0].Summary != "Blank value" {
		t.Errorf("zdm_device validation: %+v, want the framework's Blank value", vr.Diagnostics)
	}
}

// TestFleetDevicesValueRoundTrip converts an object with null, unknown and
// known values to the protocol and back.
func TestFleetDevicesValueRoundTrip(t *testing.T) {
	in := fleetDevicesObject{workspaceID: protoval.KnownString("wks-1"), fleetID: protoval.UnknownString, fleetName: protoval.NullString,
		parallelism: protoval.Int{N: 7}, includeDetails: protoval.Bool{B: true},
		devices:   protoval.StringMap{M: map[string]protoval.String{"a": protoval.KnownString("a"), "b": protoval.UnknownString}},
		deviceIDs: protoval.StringMap{M: map[string]protoval.String{"a": protoval.KnownString("dev-1"), "b": protoval.UnknownString}},
		elsewhere: protoval.StringMap{M: map[string]protoval.String{}},
		details: fleetDetails{m: map[string]fleetDeviceDetail{
			"a": {id: protoval.KnownString("dev-1"), name: protoval.KnownString("a"), fleetID: protoval.UnknownString, physID: protoval.KnownString("p"),
				createdAt: protoval.KnownString("c"), identities: protoval.NullString},
			"b": unknownDetail,
		}}}
	dv, err := in.dynamicValue()
	if err != nil {
		t.Fatal(err)
	}
	out, null, err := decodeFleetDevices(dv)
	if err != nil || null {
		t.Fatalf("decode: %v (null %v)", err, null)
	}
	if !out.value().Equal(in.value()) {
		t.Errorf("round trip:\n got %s\nwant %s", out.value(), in.value())
	}
	if out.parallelism.N != 7 || !out.devices.M["b"].Unknown || out.details.m["a"].identities != protoval.NullString {
		t.Errorf("decoded %+v", out)
	}
	if _, _, err := decodeFleetDevices(&tfprotov6.DynamicValue{MsgPack: []byte{0xc1}}); err == nil {
		t.Error("decoding bad msgpack: no error")
	}
}

// TestProtoPath converts framework paths to protocol paths.
func TestProtoPath(t *testing.T) {
	got := protoval.ProtoPath(path.Root("devices").AtMapKey("k-1"))
	want := tftypes.NewAttributePath().WithAttributeName("devices").WithElementKeyString("k-1")
	if !got.Equal(want) {
		t.Errorf("protoPath = %s, want %s", got, want)
	}
	var diags diag.Diagnostics
	diags.AddAttributeWarning(path.Root("parallelism"), "w", "d")
	diags.AddError("e", "d")
	pd := protoval.ProtoDiagnostics(diags)
	if len(pd) != 2 || pd[0].Severity != tfprotov6.DiagnosticSeverityWarning || pd[1].Severity != tfprotov6.DiagnosticSeverityError ||
		pd[1].Attribute != nil || !pd[0].Attribute.Equal(tftypes.NewAttributePath().WithAttributeName("parallelism")) {
		t.Errorf("protoDiagnostics = %+v", pd)
	}
}

// TestFleetDevicesUpgradeState reads a state of the current schema, and
// refuses a newer version and a state of another shape with what to do.
func TestFleetDevicesUpgradeState(t *testing.T) {
	s := NewServer(func() *connection.ProviderData { return nil })
	ok := s.UpgradeResourceState(t.Context(), &tfprotov6.UpgradeResourceStateRequest{Version: 0, RawState: &tfprotov6.RawState{
		JSON: []byte(`{"workspace_id":"w","fleet_id":"f","fleet_name":"n","parallelism":16,"include_details":false,` +
			`"devices":{"a":"a"},"device_ids":{"a":"dev-1"},"devices_elsewhere":{},"device_details":null}`)}})
	if len(ok.Diagnostics) != 0 || ok.UpgradedState == nil {
		t.Fatalf("upgrade: %+v", ok.Diagnostics)
	}
	o, _, err := decodeFleetDevices(ok.UpgradedState)
	if err != nil || o.deviceIDs.M["a"].S != "dev-1" {
		t.Errorf("upgraded state %+v (%v)", o, err)
	}
	newer := s.UpgradeResourceState(t.Context(), &tfprotov6.UpgradeResourceStateRequest{Version: 1, RawState: &tfprotov6.RawState{JSON: []byte(`{}`)}})
	if len(newer.Diagnostics) != 1 || !strings.Contains(newer.Diagnostics[0].Detail, "newer provider") {
		t.Errorf("version 1: %+v", newer.Diagnostics)
	}
	old := s.UpgradeResourceState(t.Context(), &tfprotov6.UpgradeResourceStateRequest{RawState: &tfprotov6.RawState{
		JSON: []byte(`{"devices":{"value":{"a":{}},"type":["object",{"a":["object",{}]}]}}`)}})
	if len(old.Diagnostics) != 1 || !strings.Contains(old.Diagnostics[0].Detail, "import the fleet again") {
		t.Errorf("old shape: %+v", old.Diagnostics)
	}
}

// TestFleetDevicesUpgradeStatePassesTheCurrentSchemaThrough hands a state
// with exactly the schema's attributes back as it is (Terraform reads the
// JSON), which tftypes reads as the same value as its own conversion; a
// state with an attribute more goes through tftypes, which drops it.
func TestFleetDevicesUpgradeStatePassesTheCurrentSchemaThrough(t *testing.T) {
	s := NewServer(func() *connection.ProviderData { return nil })
	current := `{"workspace_id":"w","fleet_id":"f","fleet_name":"n","parallelism":16,"include_details":true,` +
		`"allow_duplicate_names":null,"devices":{"a":"a","b":"b"},"device_ids":{"a":"dev-1"},"devices_elsewhere":{},` +
		`"device_details":{"a":{"id":"dev-1","name":"a","fleet_id":"f","phys_id":"","created_at":"t","identities":null}}}`
	upgrade := func(raw string) *tfprotov6.UpgradeResourceStateResponse {
		t.Helper()
		resp := s.UpgradeResourceState(t.Context(), &tfprotov6.UpgradeResourceStateRequest{RawState: &tfprotov6.RawState{JSON: []byte(raw)}})
		if len(resp.Diagnostics) != 0 || resp.UpgradedState == nil {
			t.Fatalf("upgrade: %+v", resp.Diagnostics)
		}
		return resp
	}
	through := upgrade(current).UpgradedState
	if string(through.JSON) != current || through.MsgPack != nil {
		t.Fatalf("the current schema's state was converted: JSON %q, %d bytes of MessagePack", through.JSON, len(through.MsgPack))
	}
	got, err := through.Unmarshal(fleetDevicesType)
	if err != nil {
		t.Fatalf("the state handed through does not read with the schema: %v", err)
	}
	want, err := (&tfprotov6.RawState{JSON: []byte(current)}).UnmarshalWithOpts(fleetDevicesType, tfprotov6.UnmarshalOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(want) {
		t.Fatalf("the state handed through reads as %v, want %v", got, want)
	}

	extra := upgrade(strings.Replace(current, `"fleet_name":"n",`, `"fleet_name":"n","gone":"x",`, 1)).UpgradedState
	if extra.JSON != nil || extra.MsgPack == nil {
		t.Fatalf("a state with an attribute the schema does not have was handed through: %q", extra.JSON)
	}
	if v, err := extra.Unmarshal(fleetDevicesType); err != nil || !v.Equal(want) {
		t.Fatalf("the converted state reads as %v (%v), want %v", v, err, want)
	}
}
