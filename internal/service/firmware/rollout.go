package firmware

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/kit"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

// This file holds what the zdm_fota_rollout resource and action share: their
// inputs, how they are checked, the rollout spec built from them, and the
// messages of a rollout that stops. The rollout itself runs in package
// rollout.

// Defaults of the rollout inputs.
const (
	defaultWaveTimeout       = 30 * time.Minute
	defaultRolloutPoll       = 10 * time.Second
	defaultRolloutSuccessful = fleetstatus.StatusDone
)

// rolloutInputs are the arguments of the rollout resource and action.
type rolloutInputs struct {
	WorkspaceID       types.String  `tfsdk:"workspace_id"`
	FleetIDs          types.Set     `tfsdk:"fleet_ids"`
	AllFleets         types.Bool    `tfsdk:"all_fleets"`
	FirmwareID        types.String  `tfsdk:"firmware_id"`
	FirmwareVersion   types.String  `tfsdk:"firmware_version"`
	Salt              types.String  `tfsdk:"salt"`
	Waves             types.List    `tfsdk:"waves"`
	SuccessStatuses   types.Set     `tfsdk:"success_statuses"`
	FailureStatuses   types.Set     `tfsdk:"failure_statuses"`
	MaxFailureRatio   types.Float64 `tfsdk:"max_failure_ratio"`
	WaveTimeout       types.String  `tfsdk:"wave_timeout"`
	PollInterval      types.String  `tfsdk:"poll_interval"`
	PauseBetweenWaves types.String  `tfsdk:"pause_between_waves"`
	Parallelism       types.Int64   `tfsdk:"parallelism"`
}

// firmware is the firmware of validated inputs.
func (in rolloutInputs) firmware() fleetstatus.Firmware {
	return fleetstatus.Firmware{ID: in.FirmwareID.ValueString(), Version: in.FirmwareVersion.ValueString()}
}

// rolloutDocs are the descriptions of the rollout inputs, shared by the
// resource's and the action's schemas.
var rolloutDocs = map[string]string{
	"workspace_id": "ID of the workspace whose devices get the firmware. It must be set explicitly: the " +
		"provider's `workspace_id` is not used for a rollout.",
	"fleet_ids": "IDs of the fleets of `workspace_id` whose devices get the firmware. Exactly one of `fleet_ids` " +
		"and `all_fleets = true` must be set.",
	"all_fleets": "Set to `true` to roll out to every fleet of the workspace. It is never implied: without it, " +
		"`fleet_ids` must name the fleets.",
	"firmware_id":      "ID of the firmware to install.",
	"firmware_version": "Version of the firmware to install.",
	"salt": "Changes the order in which devices are picked for the waves. The order is a hash of each device ID " +
		"with the workspace, the firmware and this salt, so every run picks the same devices for each wave.",
	"waves": "The waves, in order: each a percentage of the devices (`\"10%\"`) or a number of devices (`\"50\"`) " +
		"that have the firmware once the wave is scheduled, counted from the start of the rollout. Percentages " +
		"and counts must each grow, and the last wave must be `\"100%\"`. Example: `[\"1%\", \"10%\", \"50%\", " +
		"\"100%\"]`. A percentage is rounded up, so the first wave holds at least one device.",
	"success_statuses": "Firmware update statuses that mean a device installed the firmware. Defaults to " +
		"`[\"done\"]`.",
	"failure_statuses": "Firmware update statuses that mean a device failed to install the firmware, such as " +
		"`[\"failed\"]`. The API names no failure status, so set the ones your devices report. A device whose " +
		"update is replaced by another firmware while the rollout runs also counts as failed. Must not overlap " +
		"`success_statuses`.",
	"max_failure_ratio": "Share of a wave's devices that may fail (0 to 1) before the rollout stops. Defaults to " +
		"`0`: the first failed device stops it.",
	"wave_timeout": "How long to wait for the devices of one wave to reach a success or failure status, such as " +
		"`\"30m\"`. Defaults to 30 minutes. A wave not done in time stops the rollout.",
	"poll_interval": "How often the devices of a wave are read while waiting. Defaults to `\"10s\"`; must not " +
		"be longer than `wave_timeout`.",
	"pause_between_waves": "How long to wait after a wave passed its health gate before starting the next, " +
		"such as `\"15m\"`. No pause by default.",
	"parallelism": "How many devices are read or scheduled at once (1 to 64; default 16).",
}

// validateRolloutInputs checks what the schema's validators cannot: the
// targets, the waves, the statuses and the durations together.
func validateRolloutInputs(ctx context.Context, in rolloutInputs, diags *diag.Diagnostics) {
	scheduling.ValidateFleetTargets(in.FleetIDs, in.AllFleets, "the firmware", diags)
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
	if !in.SuccessStatuses.IsUnknown() && !in.FailureStatuses.IsUnknown() {
		success := kit.SetStrings(ctx, in.SuccessStatuses, diags)
		if in.SuccessStatuses.IsNull() {
			success = []string{defaultRolloutSuccessful}
		}
		var both []string
		for _, s := range kit.SetStrings(ctx, in.FailureStatuses, diags) {
			if slices.Contains(success, s) {
				both = append(both, connection.Quote(s))
			}
		}
		if len(both) > 0 {
			diags.AddAttributeError(path.Root("failure_statuses"), "Overlapping success and failure statuses",
				"The status "+strings.Join(both, ", ")+" is in both success_statuses and failure_statuses: a status "+
					"means success or failure, not both.")
		}
	}
	if !in.WaveTimeout.IsUnknown() && !in.PollInterval.IsUnknown() {
		timeout, interval := rolloutDuration(in.WaveTimeout, defaultWaveTimeout), rolloutDuration(in.PollInterval, defaultRolloutPoll)
		if interval > timeout {
			diags.AddAttributeError(path.Root("poll_interval"), "Invalid poll_interval",
				fmt.Sprintf("poll_interval (%s) must not be longer than wave_timeout (%s).", interval, timeout))
		}
	}
}

// rolloutDuration parses a validated duration attribute, or returns def.
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

// rolloutSpec builds the rollout's spec from validated inputs.
func rolloutSpec(ctx context.Context, in rolloutInputs, diags *diag.Diagnostics) rollout.Spec {
	var texts []string
	diags.Append(in.Waves.ElementsAs(ctx, &texts, false)...)
	waves, err := rollout.ParseWaves(texts)
	if err != nil {
		diags.AddAttributeError(path.Root("waves"), "Invalid waves", "The value of waves "+err.Error()+".")
	}
	success := kit.SetStrings(ctx, in.SuccessStatuses, diags)
	if len(success) == 0 {
		success = []string{defaultRolloutSuccessful}
	}
	var fleets []string
	if !in.AllFleets.ValueBool() {
		fleets = kit.SetStrings(ctx, in.FleetIDs, diags)
		if len(fleets) == 0 {
			diags.AddAttributeError(path.Root("fleet_ids"), "Missing fleet_ids",
				"Name the fleets with fleet_ids, or set all_fleets = true.")
		}
	}
	return rollout.Spec{
		WorkspaceID:     in.WorkspaceID.ValueString(),
		FleetIDs:        fleets,
		Command:         rollout.FOTA(in.firmware()),
		Salt:            in.Salt.ValueString(),
		Waves:           waves,
		Success:         success,
		Failure:         kit.SetStrings(ctx, in.FailureStatuses, diags),
		MaxFailureRatio: in.MaxFailureRatio.ValueFloat64(),
		WaveTimeout:     rolloutDuration(in.WaveTimeout, defaultWaveTimeout),
		PollInterval:    rolloutDuration(in.PollInterval, defaultRolloutPoll),
		Pause:           rolloutDuration(in.PauseBetweenWaves, 0),
		Parallel:        scheduling.StatusParallelism(in.Parallelism),
	}
}

// describeRollout names a rollout in messages.
func describeRollout(spec rollout.Spec) string {
	target := kit.DescribeFleets(spec.WorkspaceID, spec.FleetIDs)
	return fmt.Sprintf("%s on %s", spec.Command, target)
}

// rolloutStoppedDetail is the detail of the error of a rollout that stopped:
// what happened and how to go on. resumeNote says how the next run resumes.
func rolloutStoppedDetail(spec rollout.Spec, rec rollout.Record, err error, resumeNote string) string {
	done := rec.WavesCompleted()
	return fmt.Sprintf("%v\n\n%d of %d waves passed their health gate; %d devices have the firmware. %s "+
		"To roll out a fixed firmware instead, change firmware_version: a new rollout starts from the first wave.",
		err, done, len(spec.Waves), len(rec.Devices()), resumeNote)
}

// waveResultAttrTypes are the attributes of one wave in the state.
var waveResultAttrTypes = map[string]attr.Type{
	"name":          types.StringType,
	"device_ids":    types.ListType{ElemType: types.StringType},
	"scheduled":     types.Int64Type,
	"complete":      types.BoolType,
	"status_counts": types.MapType{ElemType: types.Int64Type},
}

// waveResultsList is the list value of a record's waves; counts, when not
// nil, replace the record's counts (one map per wave).
func waveResultsList(rec rollout.Record, counts []map[string]int) types.List {
	elems := make([]attr.Value, len(rec.Waves))
	for k, w := range rec.Waves {
		c := w.Counts
		if counts != nil {
			c = counts[k]
		}
		if c == nil {
			c = map[string]int{}
		}
		elems[k] = types.ObjectValueMust(waveResultAttrTypes, map[string]attr.Value{
			"name":          types.StringValue(w.Name),
			"device_ids":    kit.StringList(w.DeviceIDs),
			"scheduled":     types.Int64Value(int64(w.Scheduled)),
			"complete":      types.BoolValue(w.Complete),
			"status_counts": scheduling.CountsMap(c),
		})
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: waveResultAttrTypes}, elems)
}

// waveResult is one element of wave_results, read from the state.
type waveResult struct {
	Name         types.String `tfsdk:"name"`
	DeviceIDs    types.List   `tfsdk:"device_ids"`
	Scheduled    types.Int64  `tfsdk:"scheduled"`
	Complete     types.Bool   `tfsdk:"complete"`
	StatusCounts types.Map    `tfsdk:"status_counts"`
}

// recordFromState rebuilds the record a run keeps from the state's status,
// started_at and wave_results; nil when the state holds none.
func recordFromState(ctx context.Context, status, startedAt types.String, waves types.List, diags *diag.Diagnostics) *rollout.Record {
	if waves.IsNull() || waves.IsUnknown() {
		return nil
	}
	var items []waveResult
	diags.Append(waves.ElementsAs(ctx, &items, false)...)
	rec := &rollout.Record{Status: status.ValueString()}
	if t, err := time.Parse(time.RFC3339Nano, startedAt.ValueString()); err == nil {
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
		rec.Waves = append(rec.Waves, w)
	}
	return rec
}
