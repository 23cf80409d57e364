package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// This file holds what the job, firmware update and time-series parts of the
// provider share: JSON values, RFC 3339 times, sets of IDs and the polling
// of the actions.

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

// jsonObject validates a string attribute holding a JSON object.
type jsonObject struct{}

var _ validator.String = jsonObject{}

func (jsonObject) Description(context.Context) string {
	return "must be a JSON object, such as the result of jsonencode({...})"
}

func (v jsonObject) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (jsonObject) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := compactJSONObject(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid JSON in "+req.Path.String(),
			"The value of "+req.Path.String()+" "+err.Error()+".")
	}
}

// jsonValuePlan plans a job value (an optional and computed JSON object): a
// configuration that holds the same JSON as the state (white space, key
// order) keeps the state's text, so that reformatting plans no change, and a
// missing value is planned as {} (what the service stores).
type jsonValuePlan struct{}

var _ planmodifier.String = jsonValuePlan{}

func (jsonValuePlan) Description(context.Context) string {
	return "Keeps the state's text while the configured JSON is the same value; plans {} when not set."
}

func (m jsonValuePlan) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (jsonValuePlan) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.ConfigValue.IsUnknown() {
		return
	}
	want := emptyJSONObject
	if !req.ConfigValue.IsNull() {
		want = req.ConfigValue.ValueString()
	}
	if !req.StateValue.IsNull() && !req.StateValue.IsUnknown() && jsonEqual(req.StateValue.ValueString(), want) {
		resp.PlanValue = req.StateValue
		return
	}
	if req.ConfigValue.IsNull() {
		resp.PlanValue = types.StringValue(emptyJSONObject)
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

// rfc3339 validates a time in RFC 3339 format.
type rfc3339 struct{}

var _ validator.String = rfc3339{}

func (rfc3339) Description(context.Context) string {
	return `must be a time in RFC 3339 format, such as "2025-01-31T12:00:00Z"`
}

func (v rfc3339) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v rfc3339) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := parseRFC3339(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			"The value of "+req.Path.String()+", "+quote(req.ConfigValue.ValueString())+", "+v.Description(ctx)+".")
	}
}

func parseRFC3339(s string) (time.Time, error) {
	return time.Parse(time.RFC3339Nano, s)
}

// setStrings returns the elements of a set of strings, sorted; nil when the
// set is null or unknown.
func setStrings(ctx context.Context, s types.Set, diags *diag.Diagnostics) []string {
	if s.IsNull() || s.IsUnknown() {
		return nil
	}
	var out []string
	diags.Append(s.ElementsAs(ctx, &out, false)...)
	sort.Strings(out)
	return out
}

// sortedList returns a list value of the strings, sorted.
func sortedList(items []string) types.List {
	return stringList(slices.Sorted(slices.Values(items)))
}

// stringList returns a list value of the strings.
func stringList(items []string) types.List {
	elems := make([]attr.Value, len(items))
	for i, s := range items {
		elems[i] = types.StringValue(s)
	}
	return types.ListValueMust(types.StringType, elems)
}

// describeFleets names the target fleets in messages.
func describeFleets(workspaceID string, fleetIDs []string) string {
	if len(fleetIDs) == 0 {
		return "every fleet of workspace " + workspaceID
	}
	if len(fleetIDs) == 1 {
		return "fleet " + fleetIDs[0] + " of workspace " + workspaceID
	}
	return "fleets " + strings.Join(fleetIDs, ", ") + " of workspace " + workspaceID
}

// deviceExists tells whether the service knows a device, for the error of a
// 404 on a device-addressed path that may mean either an unknown device or
// an unknown job or update. Listing the device's jobs needs no workspace.
func deviceExists(ctx context.Context, c *client.Client, deviceID string) (bool, error) {
	_, err := c.ListJobs(ctx, deviceID, client.JobStatusDone)
	switch {
	case client.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	default:
		return true, nil
	}
}

// unknownDevice is the error detail of a device the service does not know.
func unknownDevice(deviceID string) string {
	return "The service knows no device " + quote(deviceID) + " (or it is not in the workspace of the API key). " +
		"Check device_id."
}

// Defaults of the actions' wait attributes.
const (
	defaultWaitTimeout  = 5 * time.Minute
	defaultPollInterval = 5 * time.Second
)

// waitOptions are the wait, timeout and poll_interval attributes of an action.
type waitOptions struct {
	wait     bool
	timeout  time.Duration
	interval time.Duration
}

// parseWaitOptions reads the wait attributes (validated already), applying
// the defaults.
func parseWaitOptions(wait types.Bool, timeout, interval types.String) waitOptions {
	o := waitOptions{wait: wait.ValueBool(), timeout: defaultWaitTimeout, interval: defaultPollInterval}
	if d, err := parseRequestTimeout(timeout.ValueString()); err == nil && !timeout.IsNull() {
		o.timeout = d
	}
	if d, err := parseRequestTimeout(interval.ValueString()); err == nil && !interval.IsNull() {
		o.interval = d
	}
	return o
}

// statusFunc returns the current status of what an action scheduled on a
// device.
type statusFunc func(ctx context.Context, deviceID string) (string, error)

// waitDone polls status for every device every interval until all report
// "done", or until timeout passes. progress receives a message each time
// devices finish. The error of a timeout names the devices that are not done
// with their last status.
func waitDone(ctx context.Context, what string, devices []string, o waitOptions, status statusFunc, progress func(string)) error {
	last := make(map[string]string, len(devices))
	pending := slices.Clone(devices)
	deadline := time.Now().Add(o.timeout)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("stopped waiting for %s: %w", what, ctx.Err())
		case <-timer.C:
		}
		var still, finished []string
		for _, dev := range pending {
			s, err := status(ctx, dev)
			if err != nil {
				return fmt.Errorf("reading the status of %s on device %s: %w", what, dev, err)
			}
			last[dev] = s
			if s == client.JobStatusDone {
				finished = append(finished, dev)
			} else {
				still = append(still, dev)
			}
		}
		pending = still
		switch {
		case len(finished) > 0:
			progress(fmt.Sprintf("%s done on %s (%d of %d devices done)", upperFirst(what), abbreviate(finished),
				len(devices)-len(pending), len(devices)))
		case len(pending) > 0:
			progress(fmt.Sprintf("Waiting for %s on %d of %d devices: %s", what, len(pending), len(devices),
				abbreviate(pending)))
		}
		if len(pending) == 0 {
			return nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			const most = 100
			waiting := make([]string, 0, min(len(pending), most))
			for _, dev := range pending[:min(len(pending), most)] {
				waiting = append(waiting, dev+" ("+last[dev]+")")
			}
			more := ""
			if len(pending) > most {
				more = fmt.Sprintf(" and %d more", len(pending)-most)
			}
			return fmt.Errorf("%s is not done after %s on %d of %d devices: %s%s", what, o.timeout, len(pending),
				len(devices), strings.Join(waiting, ", "), more)
		}
		timer.Reset(min(o.interval, left))
	}
}

// keepComputedUnlessChanged plans the computed attributes of a scheduling
// resource: while none of the inputs changes, they keep the values of the
// state; otherwise they stay unknown until the service answers. (The
// framework marks them unknown as soon as the configuration's text differs
// from the state, even when a plan modifier then keeps the state's value, as
// jsonValuePlan does for reformatted JSON.) It is called from ModifyPlan,
// after the attribute plan modifiers.
func keepComputedUnlessChanged(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, inputs, computed []string) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	for _, name := range inputs {
		var planned, prior attr.Value
		resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root(name), &planned)...)
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(name), &prior)...)
		if resp.Diagnostics.HasError() || !planned.Equal(prior) {
			return
		}
	}
	for _, name := range computed {
		var prior attr.Value
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(name), &prior)...)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), prior)...)
	}
}

// upperFirst returns s with its first letter in upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
