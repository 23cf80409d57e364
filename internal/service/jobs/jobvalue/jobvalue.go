package jobvalue

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
)

// Job values: the arguments of a job, a JSON object that a configuration
// writes either as an object (value = { reason = "maintenance" }) or as JSON
// text (value = jsonencode({...}), or a string read from a file). The
// attribute is dynamic; the rules of the provider work on its JSON text
// (Text), and the state keeps the form the configuration wrote
// (Dynamic).

// Text is the JSON text of a job value: the string as written, or
// the object as compact JSON with its keys sorted; null when null, unknown
// while any part of it is.
func Text(v types.Dynamic) types.String {
	if v.IsNull() || v.IsUnderlyingValueNull() {
		return types.StringNull()
	}
	if v.IsUnknown() || v.IsUnderlyingValueUnknown() {
		return types.StringUnknown()
	}
	if s, ok := v.UnderlyingValue().(types.String); ok {
		return s
	}
	g, known, err := goValue(v.UnderlyingValue())
	if !known {
		return types.StringUnknown()
	}
	if err != nil {
		return types.StringValue(err.Error())
	}
	b, err := json.Marshal(g) // maps marshal with sorted keys
	if err != nil {
		return types.StringValue(err.Error())
	}
	return types.StringValue(string(b))
}

// Dynamic is the state of a job value whose JSON text is now text:
// the prior state itself while it has the same text (so that the form the
// configuration wrote stays), else text as a string.
func Dynamic(prior types.Dynamic, text types.String) types.Dynamic {
	if text.IsNull() {
		return types.DynamicNull()
	}
	if Text(prior).Equal(text) {
		return prior
	}
	return types.DynamicValue(text)
}

// goValue converts a framework value to the Go value that encoding/json
// writes. known is false when a part of it is unknown.
func goValue(v attr.Value) (out any, known bool, err error) {
	if v == nil || v.IsNull() {
		return nil, true, nil
	}
	if v.IsUnknown() {
		return nil, false, nil
	}
	switch v := v.(type) {
	case basetypes.DynamicValue:
		return goValue(v.UnderlyingValue())
	case basetypes.StringValue:
		return v.ValueString(), true, nil
	case basetypes.BoolValue:
		return v.ValueBool(), true, nil
	case basetypes.NumberValue:
		return json.Number(v.ValueBigFloat().Text('g', -1)), true, nil
	case basetypes.Int64Value:
		return v.ValueInt64(), true, nil
	case basetypes.Float64Value:
		return v.ValueFloat64(), true, nil
	case basetypes.ObjectValue:
		return goMap(v.Attributes())
	case basetypes.MapValue:
		return goMap(v.Elements())
	case basetypes.ListValue:
		return goSlice(v.Elements())
	case basetypes.TupleValue:
		return goSlice(v.Elements())
	case basetypes.SetValue:
		return goSlice(v.Elements())
	}
	return nil, true, fmt.Errorf("a value of type %s has no JSON form", v.Type(context.Background()))
}

func goMap(in map[string]attr.Value) (any, bool, error) {
	out := make(map[string]any, len(in))
	for k, e := range in {
		g, known, err := goValue(e)
		if !known || err != nil {
			return nil, known, err
		}
		out[k] = g
	}
	return out, true, nil
}

func goSlice(in []attr.Value) (any, bool, error) {
	out := make([]any, 0, len(in))
	for _, e := range in {
		g, known, err := goValue(e)
		if !known || err != nil {
			return nil, known, err
		}
		out = append(out, g)
	}
	return out, true, nil
}

// Object validates a job value: JSON text of an object, or an
// object or map.
type Object struct{}

var _ validator.Dynamic = Object{}

func (Object) Description(context.Context) string {
	return "must be an object, such as { reason = \"maintenance\" }, or the JSON text of an object, such as the result of jsonencode({...})"
}

func (v Object) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (Object) ValidateDynamic(ctx context.Context, req validator.DynamicRequest, resp *validator.DynamicResponse) {
	v := req.ConfigValue
	if v.IsNull() || v.IsUnknown() || v.IsUnderlyingValueNull() || v.IsUnderlyingValueUnknown() {
		return
	}
	switch u := v.UnderlyingValue().(type) {
	case types.String:
		if _, err := jsonvalue.CompactObject(u.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid JSON in "+req.Path.String(),
				"The value of "+req.Path.String()+" "+err.Error()+".")
		}
	case types.Object, types.Map:
		if _, _, err := goValue(u); err != nil {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(), "The value of "+req.Path.String()+
				" must be an object that has a JSON form: "+err.Error()+".")
		}
	default:
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(), "The value of "+req.Path.String()+
			" must be an object, such as { reason = \"maintenance\" }, or the JSON text of an object, such as "+
			"jsonencode({ reason = \"maintenance\" }); got a "+strings.ToLower(typeName(ctx, u))+".")
	}
}

// typeName names the type of v as a configuration writes it.
func typeName(ctx context.Context, v attr.Value) string {
	switch v.(type) {
	case types.List, types.Tuple, types.Set:
		return "list"
	case types.Number, types.Int64, types.Float64:
		return "number"
	case types.Bool:
		return "bool"
	}
	return v.Type(ctx).String()
}

// Plan plans a job value (optional and computed): a configuration
// that holds the same JSON as the state (white space, key order, object or
// text) keeps the state, so that rewriting it plans no change, and a missing
// value is planned as {} (what the service stores).
type Plan struct{}

var _ planmodifier.Dynamic = Plan{}

func (Plan) Description(context.Context) string {
	return "Keeps the state while the configured value is the same JSON; plans {} when not set."
}

func (m Plan) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (Plan) PlanModifyDynamic(_ context.Context, req planmodifier.DynamicRequest, resp *planmodifier.DynamicResponse) {
	cfg := Text(req.ConfigValue)
	if cfg.IsUnknown() {
		return
	}
	want := emptyJSONObject
	if !cfg.IsNull() {
		want = cfg.ValueString()
	}
	if state := Text(req.StateValue); !state.IsNull() && !state.IsUnknown() && jsonvalue.Equal(state.ValueString(), want) {
		resp.PlanValue = req.StateValue
		return
	}
	if cfg.IsNull() {
		resp.PlanValue = types.DynamicValue(types.StringValue(emptyJSONObject))
	}
}

// StringToDynamicUpgrader upgrades the state of a resource whose attribute
// name was a string in prior (the schema of the previous version) and is
// dynamic now: every attribute and block is kept, and the string becomes a
// dynamic value holding it.
func StringToDynamicUpgrader(prior schema.Schema, name string) resource.StateUpgrader {
	return resource.StateUpgrader{
		PriorSchema: &prior,
		StateUpgrader: func(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
			names := make([]string, 0, len(prior.Attributes)+len(prior.Blocks))
			for k := range prior.Attributes {
				names = append(names, k)
			}
			for k := range prior.Blocks {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				var v attr.Value
				resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(k), &v)...)
				if k == name {
					if s, ok := v.(types.String); ok && !s.IsNull() {
						v = types.DynamicValue(s)
					} else {
						v = types.DynamicNull()
					}
				}
				resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(k), v)...)
			}
		},
	}
}

// emptyJSONObject is the value of a job scheduled without arguments.
const emptyJSONObject = "{}"

// JSON returns the JSON object of a planned value to send to the service.
func JSON(v types.String) (json.RawMessage, error) {
	if v.IsNull() || v.IsUnknown() {
		return json.RawMessage(emptyJSONObject), nil
	}
	return jsonvalue.CompactObject(v.ValueString())
}
