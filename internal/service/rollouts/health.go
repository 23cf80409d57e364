package rollouts

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	actionschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
)

// This file holds the health_check input of the rollouts (the telemetry
// gate, rollout.Health): its schema for the resources and the action, its
// checks, the spec built from it, and the storage probe at plan time.

// healthCheckModel is the health_check object.
type healthCheckModel struct {
	Tag           types.String `tfsdk:"tag"`
	Within        types.String `tfsdk:"within"`
	PayloadField  types.String `tfsdk:"payload_field"`
	PayloadEquals types.String `tfsdk:"payload_equals"`
}

// HealthDoc is the description of health_check; healthCheckDocs those
// of its attributes.
const HealthDoc = "Telemetry gate of every wave, on top of the statuses: a device that reached a success " +
	"status counts as **healthy** only once it has published a data point with `tag` (read from the time-series " +
	"storage service) at or after its success and within `within` of it, and, with `payload_field`, the first " +
	"such point has that field equal to `payload_equals`. The wave's unhealthy devices (failed, not done in time, " +
	"no point in time, or a first point failing the condition) count against `max_failure_ratio`; when they are " +
	"too many the rollout stops, naming them and why. A wave waits at most `within` after the success of its " +
	"last device. The moment of a success is known to a poll (`poll_interval`): a point counts from the last " +
	"read that found the device not done yet, or from when its command was scheduled for a device done at once, and times " +
	"are the devices' own (`timestamp_device`). Needs the storage service: the provider's `storage_url`, with " +
	"storage enabled for the workspace (the plan fails otherwise). Changing it in place applies to the waves not " +
	"complete yet."

var healthCheckDocs = map[string]string{
	"tag": "Tag of the data point that tells a device is healthy after the update, such as `\"boot_ok\"`.",
	"within": "How long after its success a device has to publish that point, such as `\"5m\"`. A device " +
		"without one by then is unhealthy (the gate waits one `poll_interval` more, at most 30 seconds, for a point " +
		"published in time to reach the storage service).",
	"payload_field": "Path of a field of the point's JSON payload, keys separated by dots (`\"ok\"`, " +
		"`\"status.boot\"`; a number indexes an array). Set with `payload_equals`: the first point of the tag " +
		"decides, healthy when this field equals `payload_equals`. Without them any point of the tag is healthy.",
	"payload_equals": "The JSON value `payload_field` must hold, as JSON text: `jsonencode(true)`, " +
		"`jsonencode(\"ok\")`, `jsonencode(3)` (numbers compare by value: `3` equals `3.0`).",
}

// HealthAttribute is the health_check attribute of the rollout
// resources.
func HealthAttribute() schema.SingleNestedAttribute {
	notEmpty := validators.NotEmpty()
	return schema.SingleNestedAttribute{
		MarkdownDescription: HealthDoc,
		Optional:            true,
		Attributes: map[string]schema.Attribute{
			"tag":            schema.StringAttribute{MarkdownDescription: healthCheckDocs["tag"], Required: true, Validators: notEmpty},
			"within":         schema.StringAttribute{MarkdownDescription: healthCheckDocs["within"], Required: true, Validators: []validator.String{connection.DurationValidator{}}},
			"payload_field":  schema.StringAttribute{MarkdownDescription: healthCheckDocs["payload_field"], Optional: true, Validators: notEmpty},
			"payload_equals": schema.StringAttribute{MarkdownDescription: healthCheckDocs["payload_equals"], Optional: true, Validators: notEmpty},
		},
	}
}

// HealthActionAttribute is the health_check attribute of a rollout
// action.
func HealthActionAttribute() actionschema.SingleNestedAttribute {
	notEmpty := validators.NotEmpty()
	return actionschema.SingleNestedAttribute{
		MarkdownDescription: HealthDoc,
		Optional:            true,
		Attributes: map[string]actionschema.Attribute{
			"tag":            actionschema.StringAttribute{MarkdownDescription: healthCheckDocs["tag"], Required: true, Validators: notEmpty},
			"within":         actionschema.StringAttribute{MarkdownDescription: healthCheckDocs["within"], Required: true, Validators: []validator.String{connection.DurationValidator{}}},
			"payload_field":  actionschema.StringAttribute{MarkdownDescription: healthCheckDocs["payload_field"], Optional: true, Validators: notEmpty},
			"payload_equals": actionschema.StringAttribute{MarkdownDescription: healthCheckDocs["payload_equals"], Optional: true, Validators: notEmpty},
		},
	}
}

// healthCheckOf reads the health_check object; nil when it is null or
// unknown.
func healthCheckOf(ctx context.Context, v types.Object, diags *diag.Diagnostics) *healthCheckModel {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	var m healthCheckModel
	diags.Append(v.As(ctx, &m, basetypes.ObjectAsOptions{})...)
	return &m
}

// ValidateHealth checks health_check: payload_field and payload_equals
// together, the path, and payload_equals as JSON.
func ValidateHealth(ctx context.Context, v types.Object, diags *diag.Diagnostics) {
	m := healthCheckOf(ctx, v, diags)
	if m == nil {
		return
	}
	at := path.Root("health_check")
	field, equals := m.PayloadField, m.PayloadEquals
	if field.IsUnknown() || equals.IsUnknown() {
		return
	}
	if field.IsNull() != equals.IsNull() {
		diags.AddAttributeError(at, "Incomplete health_check condition",
			"health_check.payload_field and health_check.payload_equals go together: set both (the field and the "+
				"JSON value it must hold), or neither (any point of the tag is healthy).")
		return
	}
	if !field.IsNull() {
		if _, err := rollout.ParseField(field.ValueString()); err != nil {
			diags.AddAttributeError(at.AtName("payload_field"), "Invalid health_check.payload_field",
				"The value of health_check.payload_field "+err.Error()+".")
		}
	}
	if !equals.IsNull() && !json.Valid([]byte(equals.ValueString())) {
		diags.AddAttributeError(at.AtName("payload_equals"), "Invalid health_check.payload_equals",
			"The value of health_check.payload_equals must be JSON text, such as jsonencode(true) or "+
				"jsonencode(\"ok\"); "+connection.Quote(equals.ValueString())+" is not.")
	}
}

// HealthSpec is the rollout's Health from a validated health_check; nil
// without one.
func HealthSpec(ctx context.Context, v types.Object, diags *diag.Diagnostics) *rollout.Health {
	m := healthCheckOf(ctx, v, diags)
	if m == nil {
		return nil
	}
	h := &rollout.Health{Tag: m.Tag.ValueString(), Within: duration(m.Within)}
	if !m.PayloadField.IsNull() {
		field, err := rollout.ParseField(m.PayloadField.ValueString())
		if err != nil {
			diags.AddAttributeError(path.Root("health_check").AtName("payload_field"),
				"Invalid health_check.payload_field", "The value of health_check.payload_field "+err.Error()+".")
		}
		h.Field = field
		h.Equals = string(jsonvalue.Compact([]byte(m.PayloadEquals.ValueString()), nil))
	}
	return h
}

// storageMissing is the error of a health_check without storage_url.
func storageMissing(diags *diag.Diagnostics) {
	diags.AddAttributeError(path.Root("health_check"), "Missing storage_url",
		"health_check reads the data points of the devices from the time-series storage service, and the provider "+
			"has no address for it: set storage_url in the provider block or the "+connection.EnvStorageURL+
			" environment variable, or remove health_check.")
}

// attributes is where a check reads the rollout's inputs: a resource's
// planned state (tfsdk.Plan) or an action's configuration (tfsdk.Config).
type attributes interface {
	GetAttribute(ctx context.Context, p path.Path, target any) diag.Diagnostics
}

// CheckStorage is the storage probe of a rollout's plan (a resource's
// planned state, or an action's configuration at plan -invoke): when
// health_check is set and the provider is configured, one small storage
// query tells now, rather than after the first wave is scheduled, that
// storage_url is missing or that the storage service is not enabled for
// the workspace (403). Other errors are left to the apply, which probes
// again (CheckStorageAtApply).
func CheckStorage(ctx context.Context, data *connection.ProviderData, in attributes, diags *diag.Diagnostics) {
	if data == nil {
		return
	}
	if plan, ok := in.(tfsdk.Plan); ok && plan.Raw.IsNull() {
		return
	}
	var hc types.Object
	var ws types.String
	diags.Append(in.GetAttribute(ctx, path.Root("health_check"), &hc)...)
	diags.Append(in.GetAttribute(ctx, path.Root("workspace_id"), &ws)...)
	m := healthCheckOf(ctx, hc, diags)
	if m == nil || ws.IsUnknown() || ws.IsNull() || m.Tag.IsUnknown() {
		return
	}
	if err := probeStorage(ctx, data, ws.ValueString(), m.Tag.ValueString(), diags); err != nil {
		tflog.Warn(ctx, "the storage probe of health_check failed; the apply will tell", map[string]any{"error": err.Error()})
	}
}

// CheckStorageAtApply is the check of a run with a health_check, right
// before its first send (a resource's apply, an action's invoke): the same
// probe as CheckStorage, and any error stops the run, since the health
// gate of the first wave could not read the points it needs.
func CheckStorageAtApply(ctx context.Context, data *connection.ProviderData, spec rollout.Spec, diags *diag.Diagnostics) {
	if spec.Health == nil {
		return
	}
	if err := probeStorage(ctx, data, spec.WorkspaceID, spec.Health.Tag, diags); err != nil {
		diags.AddAttributeError(path.Root("health_check"), "Cannot read the storage service",
			"health_check reads the data points of the devices from the time-series storage service, and a query "+
				"of workspace "+connection.Quote(spec.WorkspaceID)+" failed before any device was sent anything: "+
				connection.Sentence(err.Error())+" Nothing was sent; apply again once the storage service answers.")
	}
}

// probeStorage is the one storage probe of health_check: storage_url
// must be configured, and one query of a point of tag in workspace ws must
// not be refused (403: the service is not enabled for the workspace). It
// adds those errors to diags and returns any other error of the query.
func probeStorage(ctx context.Context, data *connection.ProviderData, ws, tag string, diags *diag.Diagnostics) error {
	if !data.HasStorage {
		storageMissing(diags)
		return nil
	}
	size := 1
	_, err := data.Client.GetData(ctx, ws, client.DataQuery{Size: &size, Tags: []string{tag}})
	switch {
	case err == nil:
		return nil
	case client.IsStatus(err, http.StatusForbidden):
		diags.AddAttributeError(path.Root("health_check"), "Storage service not enabled",
			"health_check reads the data points of the devices from the time-series storage service, which "+
				"answered 403 for workspace "+connection.Quote(ws)+": storage is not enabled for the "+
				"workspace (or the API key may not read it). Enable the storage service for the workspace, or remove "+
				"health_check. Nothing was sent. "+err.Error())
		return nil
	default:
		return err
	}
}

// duration parses a validated duration attribute; 0 when null or unknown.
func duration(v types.String) time.Duration {
	if v.IsNull() || v.IsUnknown() {
		return 0
	}
	d, err := connection.ParseDuration(v.ValueString())
	if err != nil {
		return 0
	}
	return d
}
