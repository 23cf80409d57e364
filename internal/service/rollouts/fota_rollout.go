package rollouts

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/kit"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

// This file holds what the zdm_fota_rollout resource and action share: the
// firmware inputs next to the inputs of every rollout
// (RolloutInputs), how they are checked, and the rollout spec
// built from them. The rollout itself runs in package rollout; what every
// rollout shares on the Terraform side is in rollout.go.

// defaultFOTARolloutSuccessful is the success status unless success_statuses
// names others.
const defaultFOTARolloutSuccessful = fleetstatus.StatusDone

// fotaRolloutInputs are the arguments of the rollout resource and action.
type fotaRolloutInputs struct {
	RolloutInputs
	FirmwareID      types.String `tfsdk:"firmware_id"`
	FirmwareVersion types.String `tfsdk:"firmware_version"`
	SuccessStatuses types.Set    `tfsdk:"success_statuses"`
	FailureStatuses types.Set    `tfsdk:"failure_statuses"`
}

// firmware is the firmware of validated inputs.
func (in fotaRolloutInputs) firmware() fleetstatus.Firmware {
	return fleetstatus.Firmware{ID: in.FirmwareID.ValueString(), Version: in.FirmwareVersion.ValueString()}
}

// identity is the rollout.Identity of the inputs, "" while a part of it
// is unknown.
func (in fotaRolloutInputs) identity() string {
	if in.WorkspaceID.IsUnknown() || in.FirmwareID.IsUnknown() || in.FirmwareVersion.IsUnknown() || in.Salt.IsUnknown() {
		return ""
	}
	return rollout.Identity(in.WorkspaceID.ValueString(), rollout.FOTA(in.firmware()), in.Salt.ValueString())
}

// fotaRolloutDocs are the descriptions of the rollout inputs, shared by the
// resource's and the action's schemas.
var fotaRolloutDocs = func() map[string]string {
	docs := RolloutDocs(RolloutWords{Thing: "the firmware", Identity: "the firmware"})
	maps.Copy(docs, map[string]string{
		"firmware_id":      "ID of the firmware to install.",
		"firmware_version": "Version of the firmware to install.",
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
	})
	return docs
}()

// validateFOTARolloutInputs checks what the schema's validators cannot: the
// targets, the waves, the statuses and the durations together.
func validateFOTARolloutInputs(ctx context.Context, in fotaRolloutInputs, diags *diag.Diagnostics) {
	ValidateRolloutInputs(ctx, in.RolloutInputs, "the firmware", diags)
	if !in.SuccessStatuses.IsUnknown() && !in.FailureStatuses.IsUnknown() {
		success := kit.SetStrings(ctx, in.SuccessStatuses, diags)
		if in.SuccessStatuses.IsNull() {
			success = []string{defaultFOTARolloutSuccessful}
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
	ValidateRolloutDurations(in.RolloutInputs, diags)
}

// fotaRolloutSpec builds the rollout's spec from validated inputs.
func fotaRolloutSpec(ctx context.Context, in fotaRolloutInputs, diags *diag.Diagnostics) rollout.Spec {
	spec := RolloutSpec(ctx, in.RolloutInputs, rollout.FOTA(in.firmware()), diags)
	spec.Success = kit.SetStrings(ctx, in.SuccessStatuses, diags)
	if len(spec.Success) == 0 {
		spec.Success = []string{defaultFOTARolloutSuccessful}
	}
	spec.Failure = kit.SetStrings(ctx, in.FailureStatuses, diags)
	return spec
}

// fotaRolloutStoppedDetail is the detail of the error of a rollout that stopped:
// what happened and how to go on. resumeNote says how the next run resumes.
func fotaRolloutStoppedDetail(spec rollout.Spec, rec rollout.Record, err error, resumeNote string) string {
	return RolloutStoppedDetail(spec, rec, err, "the firmware", resumeNote,
		"To roll out a fixed firmware instead, change firmware_version: a new rollout starts from the first wave.")
}

// claim claims the rollout's firmware and fleets for the plan (see
// scheduling.ClaimCommand).
func (in fotaRolloutInputs) claim(ctx context.Context, d *connection.ProviderData, diags *diag.Diagnostics) {
	if in.FirmwareID.IsUnknown() || in.FirmwareVersion.IsUnknown() || in.Salt.IsUnknown() {
		return
	}
	fw := in.firmware()
	scheduling.ClaimFleets(ctx, d, in.WorkspaceID, in.FleetIDs, in.AllFleets, "firmware", fw.ID+" "+fw.Version,
		"zdm_fota_rollout with salt "+connection.Quote(in.Salt.ValueString()), diags)
}
