package rollouts

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

// This file holds what the staged rollouts (zdm_fota_rollout, resource and
// action, and zdm_job_rollout) share: the inputs of the targets and the
// waves, their descriptions and checks, the spec built from them, the
// record of the waves in the state, and the messages of a rollout. What is
// rolled out (firmware, or a job and its value) is the command's
// (rollout_command.go); the waves run in package rollout.

// Defaults of the rollout inputs.
const (
	defaultWaveTimeout = 30 * time.Minute
	defaultRolloutPoll = 10 * time.Second
)

// StatusImported is the status of a rollout imported and not run yet.
const StatusImported = "imported"

// rolloutReplacedNote describes the plan modifiers that replace a rollout.
const rolloutReplacedNote = "Replaces the rollout."

// RolloutInputs are the inputs every rollout has: its targets and its waves.
// A family's model embeds them next to what it rolls out.
type RolloutInputs struct {
	WorkspaceID       types.String  `tfsdk:"workspace_id"`
	FleetIDs          types.Set     `tfsdk:"fleet_ids"`
	AllFleets         types.Bool    `tfsdk:"all_fleets"`
	Salt              types.String  `tfsdk:"salt"`
	Waves             types.List    `tfsdk:"waves"`
	MaxFailureRatio   types.Float64 `tfsdk:"max_failure_ratio"`
	WaveTimeout       types.String  `tfsdk:"wave_timeout"`
	PollInterval      types.String  `tfsdk:"poll_interval"`
	PauseBetweenWaves types.String  `tfsdk:"pause_between_waves"`
	Parallelism       types.Int64   `tfsdk:"parallelism"`
	HealthCheck       types.Object  `tfsdk:"health_check"`
	// MinDevicesReported, MaxDevicesPerMinute and MaintenanceWindows are
	// the pacing inputs (pacing.go).
	MinDevicesReported  types.Int64 `tfsdk:"min_devices_reported"`
	MaxDevicesPerMinute types.Int64 `tfsdk:"max_devices_per_minute"`
	MaintenanceWindows  types.List  `tfsdk:"maintenance_window"`
}

// RolloutResults are the computed attributes of a rollout resource.
type RolloutResults struct {
	ID             types.String `tfsdk:"id"`
	Status         types.String `tfsdk:"status"`
	StartedAt      types.String `tfsdk:"started_at"`
	WavesCompleted types.Int64  `tfsdk:"waves_completed"`
	WaveResults    types.List   `tfsdk:"wave_results"`
	// NextWindowOpensAt is set while the rollout waits for a maintenance
	// window.
	NextWindowOpensAt types.String `tfsdk:"next_window_opens_at"`
	// InheritedWaves is the record of the rollout this one replaced
	// (rollout_record.go); null when it replaced none.
	InheritedWaves types.List `tfsdk:"inherited_waves"`
}

// RolloutWords are the words a family's rollout puts in the shared
// descriptions and messages.
type RolloutWords struct {
	// Thing is what is rolled out: "the firmware", "the job".
	Thing string
	// Identity is what besides the workspace and the salt orders the
	// devices: "the firmware", "the job's name and value".
	Identity string
}

// RolloutDocs are the descriptions of the inputs every rollout has, for the
// resources' and the action's schemas; a family adds those of what it rolls
// out and of its gate (max_failure_ratio, wave_timeout).
func RolloutDocs(w RolloutWords) map[string]string {
	docs := map[string]string{
		"workspace_id": "ID of the workspace whose devices get " + w.Thing + ". It must be set explicitly: the " +
			"provider's `workspace_id` is not used for a rollout.",
		"fleet_ids": "IDs of the fleets of `workspace_id` whose devices get " + w.Thing + ". Exactly one of `fleet_ids` " +
			"and `all_fleets = true` must be set.",
		"all_fleets": "Set to `true` to roll out to every fleet of the workspace. It is never implied: without it, " +
			"`fleet_ids` must name the fleets.",
		"salt": "Changes the order in which devices are picked for the waves. The order is a hash of each device ID " +
			"with the workspace, " + w.Identity + " and this salt, so every run picks the same devices for each wave.",
		"waves": "The waves, in order: each a percentage of the devices (`\"10%\"`) or a number of devices (`\"50\"`) " +
			"that have " + w.Thing + " once the wave is scheduled, counted from the start of the rollout. Percentages " +
			"and counts must each grow, and the last wave must be `\"100%\"`. Example: `[\"1%\", \"10%\", \"50%\", " +
			"\"100%\"]`. A percentage is rounded up, so the first wave holds at least one device. Each wave's " +
			"devices are read right before its sends: a device given " + w.Thing + " meanwhile (by another resource " +
			"or rollout, also one running in the same apply) counts as having it and is not sent it again.",
		"poll_interval": "How often the devices of a wave are read while waiting. Defaults to `\"10s\"`; at least `\"100ms\"` " +
			"and not longer than `wave_timeout`.",
		"pause_between_waves": "How long to wait after a wave passed its health gate before starting the next, " +
			"such as `\"15m\"`. No pause by default.",
		"parallelism":  "How many devices are read or scheduled at once (1 to 64; default 16).",
		"health_check": HealthDoc,
	}
	maps.Copy(docs, PacingDocs)
	return docs
}

// RolloutResourceDocs are the descriptions a family gives the attributes
// of its rollout resource.
type RolloutResourceDocs struct {
	// Inputs are RolloutDocs with the family's gate descriptions
	// (max_failure_ratio, wave_timeout) added.
	Inputs map[string]string
	// Stays says what a replacement leaves: "the updates already scheduled
	// stay".
	Stays string
	// StartedAt, DeviceIDs and Counts describe started_at and the
	// device_ids and status_counts of wave_results.
	StartedAt, DeviceIDs, Counts string
	// Command names the inputs that make the command
	// ("`firmware_id`, `firmware_version`"), Thing what is sent ("the
	// firmware").
	Command, Thing string
}

// newRolloutNote ends the description of an attribute that replaces a
// rollout resource; stays says what the replacement leaves.
func newRolloutNote(stays string) string {
	return " Changing it starts a **new rollout** (the resource is replaced; " + stays + ")."
}

// RolloutResourceAttributes are the schema attributes every rollout
// resource has: its inputs and its results. Targets and salt replace the
// rollout, except right after an import, whose state holds only the ID's
// parts.
func RolloutResourceAttributes(d RolloutResourceDocs) map[string]schema.Attribute {
	notEmpty := validators.NotEmpty()
	newRollout := newRolloutNote(d.Stays)
	doc := func(name, more string) string { return d.Inputs[name] + more }
	return map[string]schema.Attribute{
		"workspace_id": schema.StringAttribute{
			MarkdownDescription: doc("workspace_id", newRollout),
			Required:            true,
			Validators:          notEmpty,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"fleet_ids": schema.SetAttribute{
			MarkdownDescription: doc("fleet_ids", newRollout),
			ElementType:         types.StringType,
			Optional:            true,
			Validators:          validators.NotEmptySet(),
			PlanModifiers: []planmodifier.Set{setplanmodifier.RequiresReplaceIf(
				func(ctx context.Context, req planmodifier.SetRequest, resp *setplanmodifier.RequiresReplaceIfFuncResponse) {
					resp.RequiresReplace = !ImportedRollout(ctx, req.State)
				}, rolloutReplacedNote, rolloutReplacedNote)},
		},
		"all_fleets": schema.BoolAttribute{
			MarkdownDescription: doc("all_fleets", newRollout),
			Optional:            true,
			PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplaceIf(
				func(ctx context.Context, req planmodifier.BoolRequest, resp *boolplanmodifier.RequiresReplaceIfFuncResponse) {
					resp.RequiresReplace = !ImportedRollout(ctx, req.State)
				}, rolloutReplacedNote, rolloutReplacedNote)},
		},
		"salt": schema.StringAttribute{
			MarkdownDescription: doc("salt", newRollout),
			Optional:            true,
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(
				func(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
					resp.RequiresReplace = !ImportedRollout(ctx, req.State)
				}, rolloutReplacedNote, rolloutReplacedNote)},
		},
		"waves": schema.ListAttribute{
			MarkdownDescription: doc("waves", " Changing it in place applies to the waves not complete yet."),
			ElementType:         types.StringType,
			Required:            true,
			Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.SizeAtMost(rollout.MaxWaves)},
		},
		"max_failure_ratio": schema.Float64Attribute{
			MarkdownDescription: doc("max_failure_ratio", ""),
			Optional:            true,
			Validators:          []validator.Float64{float64validator.Between(0, 1)},
		},
		"wave_timeout": schema.StringAttribute{
			MarkdownDescription: doc("wave_timeout", ""),
			Optional:            true,
			Validators:          []validator.String{connection.DurationValidator{}},
		},
		"poll_interval": schema.StringAttribute{
			MarkdownDescription: doc("poll_interval", ""),
			Optional:            true,
			Validators:          []validator.String{connection.PollIntervalValidator},
		},
		"pause_between_waves": schema.StringAttribute{
			MarkdownDescription: doc("pause_between_waves", ""),
			Optional:            true,
			Validators:          []validator.String{connection.DurationValidator{}},
		},
		"parallelism": schema.Int64Attribute{
			MarkdownDescription: doc("parallelism", ""),
			Optional:            true,
			Validators:          []validator.Int64{int64validator.Between(1, scheduling.MaxStatusParallelism)},
		},
		"health_check": HealthAttribute(),
		"next_window_opens_at": schema.StringAttribute{
			MarkdownDescription: "When the next `maintenance_window` opens (RFC 3339), while the rollout waits for " +
				"one: set when the last apply ended outside every window; null otherwise.",
			Computed: true,
		},
		"status": schema.StringAttribute{
			MarkdownDescription: "`completed` once every wave passed its gate; `stopped` when a wave stopped the " +
				"rollout (the next apply resumes it); `imported` after an import, until the next apply.",
			Computed: true,
		},
		"started_at": schema.StringAttribute{
			MarkdownDescription: d.StartedAt,
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
		"waves_completed": schema.Int64Attribute{
			MarkdownDescription: "Number of waves, from the first, that passed their health gate.",
			Computed:            true,
		},
		"wave_results": schema.ListNestedAttribute{
			MarkdownDescription: "One entry per wave, in order.",
			Computed:            true,
			NestedObject:        waveResultsObject(d),
		},
		"inherited_waves": schema.ListNestedAttribute{
			MarkdownDescription: "The `wave_results` of the rollout this one replaced, when Terraform replaced a " +
				"rollout of the same `workspace_id`, " + d.Command + " and `salt` (tainted after a stop in its first " +
				"apply, or `-replace`): this rollout resumes that record. Its devices keep their waves and are never " +
				"sent " + d.Thing + " again, even when the service no longer shows it on them (replaced or purged " +
				"since); its waves that passed their gate stay complete; and `started_at` is its start, so devices " +
				"created in the fleets since join the last wave. Null when the rollout replaced none. Terraform " +
				"refreshes the replaced rollout (or, with `-refresh=false`, forgets it in the same apply) before " +
				"planning the replacement, which is how the replacement reads it; with `create_before_destroy` the " +
				"apply stops before anything is sent. To start from the first wave instead, change `salt`.",
			Computed:      true,
			NestedObject:  waveResultsObject(d),
			PlanModifiers: []planmodifier.List{listplanmodifier.UseStateForUnknown()},
		},
	}
}

// waveResultsObject is one wave of wave_results and inherited_waves.
func waveResultsObject(d RolloutResourceDocs) schema.NestedAttributeObject {
	return schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
		"name": schema.StringAttribute{MarkdownDescription: "The wave as written in `waves`.", Computed: true},
		"device_ids": schema.ListAttribute{
			MarkdownDescription: d.DeviceIDs,
			ElementType:         types.StringType,
			Computed:            true,
		},
		"scheduled": schema.Int64Attribute{
			MarkdownDescription: "How many of them the rollout scheduled itself.",
			Computed:            true,
		},
		"complete": schema.BoolAttribute{
			MarkdownDescription: "Whether the wave passed its health gate.",
			Computed:            true,
		},
		"status_counts": schema.MapAttribute{
			MarkdownDescription: d.Counts,
			ElementType:         types.Int64Type,
			Computed:            true,
		},
		"started_at": schema.StringAttribute{
			MarkdownDescription: "When the wave started (RFC 3339, the service's clock); null until it " +
				"starts.",
			Computed: true,
		},
		"healthy": schema.Int64Attribute{
			MarkdownDescription: "With `health_check`: devices of the wave that published a healthy point " +
				"in time, as the gate last checked; null without `health_check` or before the check.",
			Computed: true,
		},
		"unhealthy": schema.Int64Attribute{
			MarkdownDescription: "With `health_check`: devices of the wave that failed, were not done in " +
				"time, published no point in time or a point failing the condition, as the gate last " +
				"checked; null without `health_check` or before the check. The error of a stopped rollout " +
				"names them and why.",
			Computed: true,
		},
	}}
}

// RolloutResourceBlocks are the blocks every rollout resource has.
func RolloutResourceBlocks() map[string]schema.Block {
	return map[string]schema.Block{"maintenance_window": WindowBlock()}
}

// ImportedRollout reports whether a prior state is that of an import not
// applied yet.
func ImportedRollout(ctx context.Context, state tfsdk.State) bool {
	if state.Raw.IsNull() {
		return false
	}
	var status types.String
	diags := state.GetAttribute(ctx, path.Root("status"), &status)
	return !diags.HasError() && status.ValueString() == StatusImported
}

// ValidateRolloutInputs checks what the schema's validators cannot: the
// targets, the waves and the durations together. thing names what the
// devices get ("the firmware").
func ValidateRolloutInputs(ctx context.Context, in RolloutInputs, thing string, diags *diag.Diagnostics) {
	scheduling.ValidateFleetTargets(in.FleetIDs, in.AllFleets, thing, diags)
	ValidateHealth(ctx, in.HealthCheck, diags)
	ValidateWindows(ctx, in.MaintenanceWindows, diags)
	if !in.Waves.IsUnknown() && !in.Waves.IsNull() {
		var texts []types.String
		diags.Append(in.Waves.ElementsAs(ctx, &texts, false)...)
		known := true
		raw := make([]string, len(texts))
		for i, t := range texts {
			known = known && !t.IsUnknown()
			raw[i] = t.ValueString()
		}
		if known {
			if _, err := rollout.ParseWaves(raw); err != nil {
				diags.AddAttributeError(path.Root("waves"), "Invalid waves", "The value of waves "+err.Error()+".")
			}
		}
	}
}

// ValidateRolloutDurations checks that poll_interval is not longer than
// wave_timeout.
func ValidateRolloutDurations(in RolloutInputs, diags *diag.Diagnostics) {
	if !in.WaveTimeout.IsUnknown() && !in.PollInterval.IsUnknown() {
		timeout, interval := rolloutDuration(in.WaveTimeout, defaultWaveTimeout), rolloutDuration(in.PollInterval, defaultRolloutPoll)
		if interval > timeout {
			diags.AddAttributeError(path.Root("poll_interval"), "Invalid poll_interval",
				fmt.Sprintf("poll_interval (%s) must not be longer than wave_timeout (%s).", interval, timeout))
		}
	}
}

// RolloutDuration parses a validated duration attribute, or returns def.
func rolloutDuration(v types.String, def time.Duration) time.Duration {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	d, err := connection.ParseDuration(v.ValueString())
	if err != nil {
		return def
	}
	return d
}

// RolloutSpec builds the spec of a rollout of cmd from validated inputs;
// the family adds its statuses.
func RolloutSpec(ctx context.Context, in RolloutInputs, cmd rollout.Command, diags *diag.Diagnostics) rollout.Spec {
	var texts []string
	diags.Append(in.Waves.ElementsAs(ctx, &texts, false)...)
	waves, err := rollout.ParseWaves(texts)
	if err != nil {
		diags.AddAttributeError(path.Root("waves"), "Invalid waves", "The value of waves "+err.Error()+".")
	}
	var fleets []string
	if !in.AllFleets.ValueBool() {
		fleets = values.SetStrings(ctx, in.FleetIDs, diags)
		if len(fleets) == 0 {
			diags.AddAttributeError(path.Root("fleet_ids"), "Missing fleet_ids",
				"Name the fleets with fleet_ids, or set all_fleets = true.")
		}
	}
	spec := rollout.Spec{
		WorkspaceID:     in.WorkspaceID.ValueString(),
		FleetIDs:        fleets,
		Command:         cmd,
		Salt:            in.Salt.ValueString(),
		Waves:           waves,
		MaxFailureRatio: in.MaxFailureRatio.ValueFloat64(),
		WaveTimeout:     rolloutDuration(in.WaveTimeout, defaultWaveTimeout),
		PollInterval:    max(rolloutDuration(in.PollInterval, defaultRolloutPoll), connection.MinPollInterval),
		Pause:           rolloutDuration(in.PauseBetweenWaves, 0),
		Parallel:        scheduling.StatusParallelism(in.Parallelism),
		Health:          HealthSpec(ctx, in.HealthCheck, diags),
	}
	ApplyPacing(ctx, &spec, in.MinDevicesReported, in.MaxDevicesPerMinute, in.MaintenanceWindows, diags)
	return spec
}

// DescribeRollout names a rollout in messages.
func DescribeRollout(spec rollout.Spec) string {
	return fmt.Sprintf("%s on %s", spec.Command, objects.DescribeFleets(spec.WorkspaceID, spec.FleetIDs))
}

// RolloutStoppedDetail is the detail of the error of a rollout that
// stopped: what happened and how to go on. resumeNote says how the next run
// resumes, restartNote how to start a new rollout instead.
func RolloutStoppedDetail(spec rollout.Spec, rec rollout.Record, err error, thing, resumeNote, restartNote string) string {
	return fmt.Sprintf("%v\n\n%d of %d waves passed their health gate; %d devices have %s. %s %s",
		err, rec.WavesCompleted(), len(spec.Waves), len(rec.Devices()), thing, resumeNote, restartNote)
}

// WarnRolloutDestroyOrReplace warns at plan time that destroying or
// replacing a rollout leaves what it scheduled in place. what is "The
// firmware fw 1.0 scheduled by this rollout", cannot "the ZDM API cannot
// cancel firmware updates", have "its firmware". It reports whether the
// plan is a destroy or a replacement.
func WarnRolloutDestroyOrReplace(req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, what, cannot, have string) bool {
	if req.Plan.Raw.IsNull() {
		resp.Diagnostics.AddWarning("Destroying a rollout only removes it from the Terraform state",
			what+" stays scheduled on its devices: "+cannot+".")
		return true
	}
	if len(resp.RequiresReplace) > 0 {
		resp.Diagnostics.AddWarning("Replacing a rollout starts a new one",
			what+" stays scheduled on its devices: "+cannot+". A new rollout of the same workspace, command and "+
				"salt inherits this rollout's record and resumes it (inherited_waves); any other starts from its "+
				"first wave, and devices that already have "+have+" are not scheduled again.")
		return true
	}
	return false
}

// PlanRolloutResume plans an update of a rollout that is not a destroy or
// replacement: a complete rollout keeps its results (only settings
// changed); any other (stopped, imported) plans a resume: status and the
// waves become unknown so that the apply runs.
func PlanRolloutResume(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, prior RolloutResults) {
	computed := []string{"status", "waves_completed", "wave_results", "next_window_opens_at"}
	if prior.Status.ValueString() == rollout.StatusCompleted {
		for _, name := range computed {
			var v attr.Value
			resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root(name), &v)...)
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), v)...)
		}
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("status"), types.StringUnknown())...)
	if prior.StartedAt.IsNull() {
		// A rollout that did not start here (imported): the run records
		// when it starts.
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("started_at"), types.StringUnknown())...)
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("waves_completed"), types.Int64Unknown())...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("next_window_opens_at"), types.StringUnknown())...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("wave_results"),
		types.ListUnknown(types.ObjectType{AttrTypes: waveResultAttrTypes}))...)
}

// waveResultAttrTypes are the attributes of one wave in the state.
var waveResultAttrTypes = map[string]attr.Type{
	"name":          types.StringType,
	"device_ids":    types.ListType{ElemType: types.StringType},
	"scheduled":     types.Int64Type,
	"complete":      types.BoolType,
	"status_counts": types.MapType{ElemType: types.Int64Type},
	"started_at":    types.StringType,
	"healthy":       types.Int64Type,
	"unhealthy":     types.Int64Type,
}

// WaveResultsList is the list value of a record's waves; counts, when not
// nil, replace the record's counts (one map per wave).
func WaveResultsList(rec rollout.Record, counts []map[string]int) types.List {
	elems := make([]attr.Value, len(rec.Waves))
	for k, w := range rec.Waves {
		c := w.Counts
		if counts != nil {
			c = counts[k]
		}
		if c == nil {
			c = map[string]int{}
		}
		started, healthy, unhealthy := types.StringNull(), types.Int64Null(), types.Int64Null()
		if !w.StartedAt.IsZero() {
			started = types.StringValue(w.StartedAt.UTC().Format(time.RFC3339Nano))
		}
		if w.Health != nil {
			healthy, unhealthy = types.Int64Value(int64(w.Health.Healthy)), types.Int64Value(int64(w.Health.Unhealthy))
		}
		elems[k] = types.ObjectValueMust(waveResultAttrTypes, map[string]attr.Value{
			"name":          types.StringValue(w.Name),
			"device_ids":    values.StringList(w.DeviceIDs),
			"scheduled":     types.Int64Value(int64(w.Scheduled)),
			"complete":      types.BoolValue(w.Complete),
			"status_counts": scheduling.CountsMap(c),
			"started_at":    started,
			"healthy":       healthy,
			"unhealthy":     unhealthy,
		})
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: waveResultAttrTypes}, elems)
}

// SetRecord copies a record into the results; counts, when not nil,
// replace the record's per-wave counts.
func (m *RolloutResults) SetRecord(rec rollout.Record, counts []map[string]int) {
	m.Status = types.StringValue(rec.Status)
	m.StartedAt = types.StringNull()
	if !rec.StartedAt.IsZero() {
		m.StartedAt = types.StringValue(rec.StartedAt.UTC().Format(time.RFC3339Nano))
	}
	m.WavesCompleted = types.Int64Value(int64(rec.WavesCompleted()))
	m.WaveResults = WaveResultsList(rec, counts)
	m.NextWindowOpensAt = NextWindow(rec)
}

// waveResult is one element of wave_results, read from the state.
type waveResult struct {
	Name         types.String `tfsdk:"name"`
	DeviceIDs    types.List   `tfsdk:"device_ids"`
	Scheduled    types.Int64  `tfsdk:"scheduled"`
	Complete     types.Bool   `tfsdk:"complete"`
	StatusCounts types.Map    `tfsdk:"status_counts"`
	StartedAt    types.String `tfsdk:"started_at"`
	Healthy      types.Int64  `tfsdk:"healthy"`
	Unhealthy    types.Int64  `tfsdk:"unhealthy"`
}

// Record rebuilds the record a run keeps from the state's status,
// started_at and wave_results; nil when the state holds none.
func (m RolloutResults) Record(ctx context.Context, diags *diag.Diagnostics) *rollout.Record {
	if m.WaveResults.IsNull() || m.WaveResults.IsUnknown() {
		return nil
	}
	var items []waveResult
	diags.Append(m.WaveResults.ElementsAs(ctx, &items, false)...)
	rec := &rollout.Record{Status: m.Status.ValueString()}
	if t, err := time.Parse(time.RFC3339Nano, m.StartedAt.ValueString()); err == nil {
		rec.StartedAt = t
	}
	for _, it := range items {
		w := rollout.WaveRecord{Name: it.Name.ValueString(), Scheduled: int(it.Scheduled.ValueInt64()), Complete: it.Complete.ValueBool()}
		diags.Append(it.DeviceIDs.ElementsAs(ctx, &w.DeviceIDs, false)...)
		var counts map[string]int64
		diags.Append(it.StatusCounts.ElementsAs(ctx, &counts, false)...)
		w.Counts = map[string]int{}
		for k, v := range counts {
			w.Counts[k] = int(v)
		}
		if t, err := time.Parse(time.RFC3339Nano, it.StartedAt.ValueString()); err == nil {
			w.StartedAt = t
		}
		if !it.Healthy.IsNull() && !it.Unhealthy.IsNull() {
			w.Health = &rollout.HealthCounts{Healthy: int(it.Healthy.ValueInt64()), Unhealthy: int(it.Unhealthy.ValueInt64())}
		}
		rec.Waves = append(rec.Waves, w)
	}
	return rec
}
