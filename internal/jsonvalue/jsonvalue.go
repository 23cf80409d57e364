// Package jsonvalue compacts and compares JSON texts. It is the one place
// where the client and the provider remove insignificant white space from
// JSON and decide whether two texts hold the same value.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
)

// Compact returns raw without insignificant white space (object keys keep
// their order). Surrounding white space is trimmed first; text that is not
// valid JSON is returned trimmed but otherwise as it is. The result is a
// part of raw when nothing needs removing; otherwise it is written to
// scratch (a new buffer when scratch is nil) and stays valid until scratch
// is used again.
func Compact(raw []byte, scratch *bytes.Buffer) []byte {
	t := bytes.TrimSpace(raw)
	if !bytes.ContainsAny(t, " \t\r\n") {
		return t
	}
	if scratch == nil {
		scratch = new(bytes.Buffer)
	}
	scratch.Reset()
	if err := json.Compact(scratch, t); err != nil {
		return t
	}
	return scratch.Bytes()
}

// CompactObject checks that s is one JSON object and returns it without
// insignificant white space (keys keep their order). The error completes a
// sentence that starts with the name of the value ("... must be a JSON
// object ...", "... is not valid JSON: ...").
func CompactObject(s string) (json.RawMessage, error) {
	t := strings.TrimSpace(s)
	if t == "" || t[0] != '{' {
		return nil, errors.New(`must be a JSON object such as {"key": "value"} (use jsonencode)`)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(t)); err != nil {
		return nil, fmt.Errorf("is not valid JSON: %v", err)
	}
	return buf.Bytes(), nil
}

// Equal reports whether a and b hold the same JSON value: white space, the
// order of object keys and the spelling of numbers (1, 1.0, 1e0) do not
// matter, and numbers are compared as the service keeps them, as float64:
// two numbers that round to the same float64 are equal (1/3 written with 20
// digits and the service's 0.3333333333333333, 12345678901234567890 and
// 12345678901234567000, 1e-400 and 0). Texts that are not JSON are equal
// only when identical.
func Equal(a, b string) bool {
	if a == b {
		return true
	}
	va, errA := decode(a)
	vb, errB := decode(b)
	if errA != nil || errB != nil {
		return false
	}
	return valuesEqual(va, vb)
}

// decode reads s as exactly one JSON value, numbers as json.Number.
func decode(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

func valuesEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, vx := range x {
			vy, ok := y[k]
			if !ok || !valuesEqual(vx, vy) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !valuesEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		return numbersEqual(string(x), string(y))
	default: // string, bool, nil
		return a == b
	}
}

// numbersEqual compares two JSON numbers after rounding to float64, the
// service's number type. Numbers beyond the float64 range (which the
// service cannot keep) are compared exactly.
func numbersEqual(x, y string) bool {
	fx, errX := strconv.ParseFloat(x, 64)
	fy, errY := strconv.ParseFloat(y, 64)
	if errX == nil && errY == nil {
		return fx == fy
	}
	rx, okX := new(big.Rat).SetString(x)
	ry, okY := new(big.Rat).SetString(y)
	return okX && okY && rx.Cmp(ry) == 0
}
