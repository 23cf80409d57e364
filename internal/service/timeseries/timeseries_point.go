package timeseries

import (
	"bytes"
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
)

// The point type of the points attribute of zdm_timeseries, and the
// builder of its list value.

// pointFields are the attribute names of a point, in the order of
// pointValue.fields.
var pointFields = [...]string{"timestamp_device", "timestamp_in", "fleet_id", "device_id", "tag", "payload"}

// Indexes of pointValue.fields.
const (
	pointTimestampDevice = iota
	pointTimestampIn
	pointFleetID
	pointDeviceID
	pointTag
	pointPayload
)

// A point is stored as a pointValue of the custom object type pointType
// rather than as a types.Object: a types.Object holds a map of six values,
// and the framework copies its attribute types map each time it asks the
// value for its type. For 175,000 points that is several times the memory
// of the answer; a pointValue is one allocation of six strings.

// pointAttrTypes are the attribute types of a point.
var pointAttrTypes = func() map[string]attr.Type {
	m := make(map[string]attr.Type, len(pointFields))
	for _, name := range pointFields {
		m[name] = types.StringType
	}
	return m
}()

// pointObjectType is the type of a point.
var pointObjectType = pointType{ObjectType: basetypes.ObjectType{AttrTypes: pointAttrTypes}}

// pointTerraformType is the Terraform type of a point.
var pointTerraformType = pointObjectType.TerraformType(context.Background())

var (
	_ basetypes.ObjectTypable  = pointType{}
	_ basetypes.ObjectValuable = pointValue{}
)

// pointType is the object type of the points attribute.
type pointType struct {
	basetypes.ObjectType
}

func (t pointType) Equal(o attr.Type) bool {
	_, ok := o.(pointType)
	return ok
}

func (t pointType) String() string {
	return "pointType"
}

func (t pointType) ValueType(context.Context) attr.Value {
	return pointValue{}
}

func (t pointType) ValueFromObject(_ context.Context, obj basetypes.ObjectValue) (basetypes.ObjectValuable, diag.Diagnostics) {
	var diags diag.Diagnostics
	switch {
	case obj.IsNull():
		return pointValue{state: attr.ValueStateNull}, nil
	case obj.IsUnknown():
		return pointValue{state: attr.ValueStateUnknown}, nil
	}
	v := pointValue{state: attr.ValueStateKnown}
	attrs := obj.Attributes()
	for i, name := range pointFields {
		s, ok := attrs[name].(basetypes.StringValue)
		if !ok || s.IsNull() || s.IsUnknown() {
			diags.AddError("Invalid data point", fmt.Sprintf("The attribute %s of a point is not a known string.", name))
			return pointValue{state: attr.ValueStateUnknown}, diags
		}
		v.fields[i] = s.ValueString()
	}
	return v, diags
}

func (t pointType) ValueFromTerraform(_ context.Context, in tftypes.Value) (attr.Value, error) {
	switch {
	case !in.IsKnown():
		return pointValue{state: attr.ValueStateUnknown}, nil
	case in.IsNull():
		return pointValue{state: attr.ValueStateNull}, nil
	}
	var attrs map[string]tftypes.Value
	if err := in.As(&attrs); err != nil {
		return nil, err
	}
	v := pointValue{state: attr.ValueStateKnown}
	for i, name := range pointFields {
		a, ok := attrs[name]
		if !ok || !a.IsKnown() || a.IsNull() {
			return nil, fmt.Errorf("the attribute %s of a point is not a known string", name)
		}
		if err := a.As(&v.fields[i]); err != nil {
			return nil, fmt.Errorf("the attribute %s of a point: %w", name, err)
		}
	}
	return v, nil
}

// pointValue is one data point of the points attribute.
type pointValue struct {
	state  attr.ValueState
	fields [len(pointFields)]string
}

func (v pointValue) Type(context.Context) attr.Type {
	return pointObjectType
}

func (v pointValue) ToTerraformValue(context.Context) (tftypes.Value, error) {
	switch v.state {
	case attr.ValueStateNull:
		return tftypes.NewValue(pointTerraformType, nil), nil
	case attr.ValueStateUnknown:
		return tftypes.NewValue(pointTerraformType, tftypes.UnknownValue), nil
	}
	attrs := make(map[string]tftypes.Value, len(pointFields))
	for i, name := range pointFields {
		attrs[name] = tftypes.NewValue(tftypes.String, v.fields[i])
	}
	return tftypes.NewValue(pointTerraformType, attrs), nil
}

func (v pointValue) Equal(o attr.Value) bool {
	other, ok := o.(pointValue)
	return ok && v.state == other.state && v.fields == other.fields
}

func (v pointValue) IsNull() bool {
	return v.state == attr.ValueStateNull
}

func (v pointValue) IsUnknown() bool {
	return v.state == attr.ValueStateUnknown
}

func (v pointValue) String() string {
	obj, _ := v.ToObjectValue(context.Background())
	return obj.String()
}

func (v pointValue) ToObjectValue(context.Context) (basetypes.ObjectValue, diag.Diagnostics) {
	switch v.state {
	case attr.ValueStateNull:
		return basetypes.NewObjectNull(pointAttrTypes), nil
	case attr.ValueStateUnknown:
		return basetypes.NewObjectUnknown(pointAttrTypes), nil
	}
	attrs := make(map[string]attr.Value, len(pointFields))
	for i, name := range pointFields {
		attrs[name] = types.StringValue(v.fields[i])
	}
	return basetypes.NewObjectValue(pointAttrTypes, attrs)
}

// pointsBuilder turns streamed data points into the list value of the
// points attribute, without reflection. The fleet, device and tag strings,
// which repeat, are shared among points.
type pointsBuilder struct {
	elems  []attr.Value
	shared map[string]string
	buf    bytes.Buffer
}

// maxShared bounds the table of shared strings.
const maxShared = 1 << 14

func newPointsBuilder(capacity int) *pointsBuilder {
	return &pointsBuilder{elems: make([]attr.Value, 0, capacity), shared: make(map[string]string, 64)}
}

// share returns s, or the equal string an earlier point holds.
func (b *pointsBuilder) share(s string) string {
	if v, ok := b.shared[s]; ok {
		return v
	}
	if len(b.shared) < maxShared {
		b.shared[s] = s
	}
	return s
}

// payload returns the payload as compact JSON text.
func (b *pointsBuilder) payload(raw []byte) string {
	if len(raw) == 0 {
		return "null"
	}
	return string(jsonvalue.Compact(raw, &b.buf))
}

func (b *pointsBuilder) add(p client.DataPoint) error {
	b.elems = append(b.elems, pointValue{state: attr.ValueStateKnown, fields: [len(pointFields)]string{
		pointTimestampDevice: p.TimestampDevice,
		pointTimestampIn:     p.TimestampIn,
		pointFleetID:         b.share(p.FleetID),
		pointDeviceID:        b.share(p.DeviceID),
		pointTag:             b.share(p.Tag),
		pointPayload:         b.payload(p.Payload),
	}})
	return nil
}

// list returns the points read so far.
func (b *pointsBuilder) list() types.List {
	return types.ListValueMust(pointObjectType, b.elems)
}
