package protoval

import (
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Plain Go values of the protocol's tftypes values, for the resources
// served at the protocol level (server.go): each value is converted once,
// with its null and unknown states kept.

// pstring is a string attribute: null, unknown, or known.
type String struct {
	S             string
	Null, Unknown bool
}

func KnownString(s string) String { return String{S: s} }

var (
	NullString    = String{Null: true}
	UnknownString = String{Unknown: true}
)

// IsKnown tells whether the string is known and not null.
func (p String) IsKnown() bool { return !p.Null && !p.Unknown }

// Value is the tftypes value of the string.
func (p String) Value() tftypes.Value {
	switch {
	case p.Unknown:
		return tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	case p.Null:
		return tftypes.NewValue(tftypes.String, nil)
	}
	return tftypes.NewValue(tftypes.String, p.S)
}

// DecodeString reads a string value.
func DecodeString(v tftypes.Value) (String, error) {
	switch {
	case !v.IsKnown():
		return UnknownString, nil
	case v.IsNull():
		return NullString, nil
	}
	var s string
	if err := v.As(&s); err != nil {
		return String{}, err
	}
	return KnownString(s), nil
}

// pint is a number attribute holding an integer.
type Int struct {
	N             int64
	Null, Unknown bool
}

func (p Int) Value() tftypes.Value {
	switch {
	case p.Unknown:
		return tftypes.NewValue(tftypes.Number, tftypes.UnknownValue)
	case p.Null:
		return tftypes.NewValue(tftypes.Number, nil)
	}
	return tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(p.N))
}

// DecodeInt reads a number value that must be a whole number.
func DecodeInt(v tftypes.Value) (Int, error) {
	switch {
	case !v.IsKnown():
		return Int{Unknown: true}, nil
	case v.IsNull():
		return Int{Null: true}, nil
	}
	var f big.Float
	if err := v.As(&f); err != nil {
		return Int{}, err
	}
	n, acc := f.Int64()
	if acc != big.Exact {
		return Int{}, fmt.Errorf("%s is not a whole number", f.Text('g', 20))
	}
	return Int{N: n}, nil
}

// pbool is a bool attribute.
type Bool struct {
	B             bool
	Null, Unknown bool
}

func (p Bool) Value() tftypes.Value {
	switch {
	case p.Unknown:
		return tftypes.NewValue(tftypes.Bool, tftypes.UnknownValue)
	case p.Null:
		return tftypes.NewValue(tftypes.Bool, nil)
	}
	return tftypes.NewValue(tftypes.Bool, p.B)
}

func DecodeBool(v tftypes.Value) (Bool, error) {
	switch {
	case !v.IsKnown():
		return Bool{Unknown: true}, nil
	case v.IsNull():
		return Bool{Null: true}, nil
	}
	var b bool
	if err := v.As(&b); err != nil {
		return Bool{}, err
	}
	return Bool{B: b}, nil
}

// pstringMap is a map(string) attribute.
type StringMap struct {
	M             map[string]String
	Null, Unknown bool
}

// Value is the tftypes value of the map.
func (p StringMap) Value() tftypes.Value {
	t := tftypes.Map{ElementType: tftypes.String}
	switch {
	case p.Unknown:
		return tftypes.NewValue(t, tftypes.UnknownValue)
	case p.Null:
		return tftypes.NewValue(t, nil)
	}
	elems := make(map[string]tftypes.Value, len(p.M))
	for k, s := range p.M {
		elems[k] = s.Value()
	}
	return tftypes.NewValue(t, elems)
}

// DecodeStringMap reads a map(string) value.
func DecodeStringMap(v tftypes.Value) (StringMap, error) {
	switch {
	case !v.IsKnown():
		return StringMap{Unknown: true}, nil
	case v.IsNull():
		return StringMap{Null: true}, nil
	}
	var elems map[string]tftypes.Value
	if err := v.As(&elems); err != nil {
		return StringMap{}, err
	}
	m := make(map[string]String, len(elems))
	for k, e := range elems {
		s, err := DecodeString(e)
		if err != nil {
			return StringMap{}, fmt.Errorf("element %q: %w", k, err)
		}
		m[k] = s
	}
	return StringMap{M: m}, nil
}

// ObjectAttributes reads the attributes of a known, non-null object.
func ObjectAttributes(v tftypes.Value) (map[string]tftypes.Value, error) {
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		return nil, err
	}
	return attrs, nil
}
