package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// JSON values: compaction, comparison, and the JSON objects of jobs.

// emptyJSONObject is the value of a job scheduled without arguments.
const emptyJSONObject = "{}"

// compactJSONObject checks that s is one JSON object and returns it without
// insignificant white space (keys keep their order).
func compactJSONObject(s string) (json.RawMessage, error) {
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

// compactJSON returns raw without insignificant white space, or raw itself
// when it is not valid JSON.
func compactJSON(raw []byte) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "null"
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, t); err != nil {
		return string(t)
	}
	return buf.String()
}

// jsonEqual reports whether a and b hold the same JSON value: white space,
// the order of object keys and the spelling of numbers (1, 1.0, 1e0) do not
// matter. Texts that are not JSON are equal only when identical.
func jsonEqual(a, b string) bool {
	if a == b {
		return true
	}
	va, errA := decodeJSONValue(a)
	vb, errB := decodeJSONValue(b)
	if errA != nil || errB != nil {
		return false
	}
	return jsonValuesEqual(va, vb)
}

func decodeJSONValue(s string) (any, error) {
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

func jsonValuesEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, vx := range x {
			vy, ok := y[k]
			if !ok || !jsonValuesEqual(vx, vy) {
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
			if !jsonValuesEqual(x[i], y[i]) {
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
		rx, okX := new(big.Rat).SetString(string(x))
		ry, okY := new(big.Rat).SetString(string(y))
		return okX && okY && rx.Cmp(ry) == 0
	default: // string, bool, nil
		return a == b
	}
}

// jobValue returns the JSON object of a planned value to send to the service.
func jobValue(v types.String) (json.RawMessage, error) {
	if v.IsNull() || v.IsUnknown() {
		return json.RawMessage(emptyJSONObject), nil
	}
	return compactJSONObject(v.ValueString())
}

// refreshedJSON returns the state's text when it holds the same JSON as the
// service's answer, else the answer (compacted).
func refreshedJSON(state types.String, answer json.RawMessage) types.String {
	got := compactJSON(answer)
	if !state.IsNull() && !state.IsUnknown() && jsonEqual(state.ValueString(), got) {
		return state
	}
	return types.StringValue(got)
}
