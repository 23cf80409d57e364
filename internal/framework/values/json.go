package values

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
)

// JSON text held in a string attribute: compacted, with sorted keys, and
// refreshed only when the service's answer means another value.

// CompactJSON returns raw without insignificant white space, or raw itself
// (trimmed) when it is not valid JSON; null when raw is empty.
func CompactJSON(raw []byte) string {
	c := jsonvalue.Compact(raw, nil)
	if len(c) == 0 {
		return "null"
	}
	return string(c)
}

// SortedJSON returns raw as compact JSON with the keys of every object in
// sorted order (numbers and strings as written), so that a value echoed with
// its keys in another order reads the same; compactJSON(raw) when raw is
// not valid JSON.
func SortedJSON(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return CompactJSON(raw)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return CompactJSON(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// RefreshedJSON returns the state's text when it holds the same JSON as the
// service's answer (numbers compared as the service keeps them, float64), or
// when the answer carries no value (missing or null: a service that does not
// echo it tells nothing new); else the answer (compacted).
func RefreshedJSON(state types.String, answer json.RawMessage) types.String {
	got := CompactJSON(answer)
	if !state.IsNull() && !state.IsUnknown() && (got == "null" || jsonvalue.Equal(state.ValueString(), got)) {
		return state
	}
	return types.StringValue(got)
}
