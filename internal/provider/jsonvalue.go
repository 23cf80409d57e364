package provider

import (
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
)

// JSON values of the provider: the JSON objects of jobs, compacted and
// compared by package jsonvalue.

// emptyJSONObject is the value of a job scheduled without arguments.
const emptyJSONObject = "{}"

// compactJSONObject checks that s is one JSON object and returns it without
// insignificant white space (keys keep their order): jsonvalue.CompactObject.
func compactJSONObject(s string) (json.RawMessage, error) {
	return jsonvalue.CompactObject(s)
}

// compactJSON returns raw without insignificant white space, or raw itself
// (trimmed) when it is not valid JSON; null when raw is empty.
func compactJSON(raw []byte) string {
	c := jsonvalue.Compact(raw, nil)
	if len(c) == 0 {
		return "null"
	}
	return string(c)
}

// jsonEqual reports whether a and b hold the same JSON value, numbers
// compared as the service keeps them (float64): jsonvalue.Equal.
func jsonEqual(a, b string) bool {
	return jsonvalue.Equal(a, b)
}

// jobValue returns the JSON object of a planned value to send to the service.
func jobValue(v types.String) (json.RawMessage, error) {
	if v.IsNull() || v.IsUnknown() {
		return json.RawMessage(emptyJSONObject), nil
	}
	return compactJSONObject(v.ValueString())
}

// refreshedJSON returns the state's text when it holds the same JSON as the
// service's answer (numbers compared as the service keeps them, float64), or
// when the answer carries no value (missing or null: a service that does not
// echo it tells nothing new); else the answer (compacted).
func refreshedJSON(state types.String, answer json.RawMessage) types.String {
	got := compactJSON(answer)
	if !state.IsNull() && !state.IsUnknown() && (got == "null" || jsonEqual(state.ValueString(), got)) {
		return state
	}
	return types.StringValue(got)
}
