package provider

import (
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Plain Go values of the protocol's tftypes values, for the resources
// served at the protocol level (server.go): each value is converted once,
// with its null and unknown states kept.

// pstring is a string attribute: null, unknown, or known.
type pstring struct {
	s             string
	null, unknown bool
}

func knownString(s string) pstring { return pstring{s: s} }

var (
	nullString    = pstring{null: true}
	unknownString = pstring{unknown: true}
)

// isKnown tells whether the string is known and not null.
func (p pstring) isKnown() bool { return !p.null && !p.unknown }

// value is the tftypes value of the string.
func (p pstring) value() tftypes.Value {
	switch {
	case p.unknown:
		return tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	case p.null:
		return tftypes.NewValue(tftypes.String, nil)
	}
	return tftypes.NewValue(tftypes.String, p.s)
}

// decodeString reads a string value.
func decodeString(v tftypes.Value) (pstring, error) {
	switch {
	case !v.IsKnown():
		return unknownString, nil
	case v.IsNull():
		return nullString, nil
	}
	var s string
	if err := v.As(&s); err != nil {
		return pstring{}, err
	}
	return knownString(s), nil
}

// pint is a number attribute holding an integer.
type pint struct {
	n             int64
	null, unknown bool
}

func (p pint) value() tftypes.Value {
	switch {
	case p.unknown:
		return tftypes.NewValue(tftypes.Number, tftypes.UnknownValue)
	case p.null:
		return tftypes.NewValue(tftypes.Number, nil)
	}
	return tftypes.NewValue(tftypes.Number, new(big.Float).SetInt64(p.n))
}

// decodeInt reads a number value that must be a whole number.
func decodeInt(v tftypes.Value) (pint, error) {
	switch {
	case !v.IsKnown():
		return pint{unknown: true}, nil
	case v.IsNull():
		return pint{null: true}, nil
	}
	var f big.Float
	if err := v.As(&f); err != nil {
		return pint{}, err
	}
	n, acc := f.Int64()
	if acc != big.Exact {
		return pint{}, fmt.Errorf("%s is not a whole number", f.Text('g', 20))
	}
	return pint{n: n}, nil
}

// pbool is a bool attribute.
type pbool struct {
	b             bool
	null, unknown bool
}

func (p pbool) value() tftypes.Value {
	switch {
	case p.unknown:
		return tftypes.NewValue(tftypes.Bool, tftypes.UnknownValue)
	case p.null:
		return tftypes.NewValue(tftypes.Bool, nil)
	}
	return tftypes.NewValue(tftypes.Bool, p.b)
}

func decodeBool(v tftypes.Value) (pbool, error) {
	switch {
	case !v.IsKnown():
		return pbool{unknown: true}, nil
	case v.IsNull():
		return pbool{null: true}, nil
	}
	var b bool
	if err := v.As(&b); err != nil {
		return pbool{}, err
	}
	return pbool{b: b}, nil
}

// pstringMap is a map(string) attribute.
type pstringMap struct {
	m             map[string]pstring
	null, unknown bool
}

// value is the tftypes value of the map.
func (p pstringMap) value() tftypes.Value {
	t := tftypes.Map{ElementType: tftypes.String}
	switch {
	case p.unknown:
		return tftypes.NewValue(t, tftypes.UnknownValue)
	case p.null:
		return tftypes.NewValue(t, nil)
	}
	elems := make(map[string]tftypes.Value, len(p.m))
	for k, s := range p.m {
		elems[k] = s.value()
	}
	return tftypes.NewValue(t, elems)
}

// decodeStringMap reads a map(string) value.
func decodeStringMap(v tftypes.Value) (pstringMap, error) {
	switch {
	case !v.IsKnown():
		return pstringMap{unknown: true}, nil
	case v.IsNull():
		return pstringMap{null: true}, nil
	}
	var elems map[string]tftypes.Value
	if err := v.As(&elems); err != nil {
		return pstringMap{}, err
	}
	m := make(map[string]pstring, len(elems))
	for k, e := range elems {
		s, err := decodeString(e)
		if err != nil {
			return pstringMap{}, fmt.Errorf("element %q: %w", k, err)
		}
		m[k] = s
	}
	return pstringMap{m: m}, nil
}

// objectAttributes reads the attributes of a known, non-null object.
func objectAttributes(v tftypes.Value) (map[string]tftypes.Value, error) {
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		return nil, err
	}
	return attrs, nil
}
