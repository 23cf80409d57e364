package rollouts

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	actionschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
)

// This file holds what sets zdm_fota_rollout (resource and action) apart
// from the other rollouts: the firmware and its statuses next to the
// inputs of every rollout (RolloutInputs), and its rolloutCommand. The
// resource is resource_rollout.go, the action action_rollout.go; the waves
// run in package rollout, with rollout.FOTA.

// NewFOTARolloutResource and NewFOTARolloutAction make the resource and the
// action zdm_fota_rollout.
var (
	NewFOTARolloutResource = newRolloutResource[fotaRolloutModel](fotaRollout)
	NewFOTARolloutAction   = newRolloutAction[fotaRolloutInputs](fotaRollout)
)

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

// fotaRolloutModel maps the zdm_fota_rollout resource.
type fotaRolloutModel struct {
	fotaRolloutInputs
	RolloutResults
}

// firmware is the firmware of validated inputs.
func (in fotaRolloutInputs) firmware() fleetstatus.Firmware {
	return fleetstatus.Firmware{ID: in.FirmwareID.ValueString(), Version: in.FirmwareVersion.ValueString()}
}

func (in fotaRolloutInputs) command(*diag.Diagnostics) rollout.Command {
	return rollout.FOTA(in.firmware())
}

func (in fotaRolloutInputs) commandKnown() bool {
	return !in.FirmwareID.IsUnknown() && !in.FirmwareVersion.IsUnknown()
}

func (in fotaRolloutInputs) describe() string {
	return "firmware " + in.FirmwareID.ValueString() + " " + in.FirmwareVersion.ValueString()
}

func (in fotaRolloutInputs) idValues() []string {
	return []string{in.FirmwareID.ValueString(), in.FirmwareVersion.ValueString()}
}

func (in fotaRolloutInputs) claimed() (what, value string, ok bool) {
	fw := in.firmware()
	return "firmware", fw.ID + " " + fw.Version, in.commandKnown()
}

// validate checks that no status is both a success and a failure.
func (in fotaRolloutInputs) validate(ctx context.Context, diags *diag.Diagnostics) {
	if in.SuccessStatuses.IsUnknown() || in.FailureStatuses.IsUnknown() {
		return
	}
	success := values.SetStrings(ctx, in.SuccessStatuses, diags)
	if in.SuccessStatuses.IsNull() {
		success = []string{defaultFOTARolloutSuccessful}
	}
	var both []string
	for _, s := range values.SetStrings(ctx, in.FailureStatuses, diags) {
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

// statuses are success_statuses (by default done) and failure_statuses.
func (in fotaRolloutInputs) statuses(ctx context.Context, diags *diag.Diagnostics) (success, failure []string) {
	success = values.SetStrings(ctx, in.SuccessStatuses, diags)
	if len(success) == 0 {
		success = []string{defaultFOTARolloutSuccessful}
	}
	return success, values.SetStrings(ctx, in.FailureStatuses, diags)
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

// fotaRollout is the command of zdm_fota_rollout: a firmware version.
var fotaRollout = &rolloutCommand{
	name:               "fota_rollout",
	resourceAttributes: fotaRolloutResourceAttributes,
	actionAttributes:   fotaRolloutActionAttributes,
	idFormat:           "<workspace_id>/<firmware_id>/<firmware_version>",
	idAttributes:       []string{"firmware_id", "firmware_version"},
	idEscaped:          "the firmware ID or version",
	cannot:             "the ZDM API cannot cancel firmware updates",
	have:               "its firmware",
	neverTwice:         "no device is scheduled twice",
	invokeAgain:        "scheduling only the devices that do not have the firmware yet",
	restart:            "To roll out a fixed firmware instead, change firmware_version: a new rollout starts from the first wave.",
	forgotten:          "forgetting a firmware rollout: the updates it scheduled stay",
	RolloutResourceDocs: RolloutResourceDocs{
		Inputs:  fotaRolloutDocs,
		Stays:   "the updates already scheduled stay",
		Command: "`firmware_id`, `firmware_version`",
		Thing:   "the firmware",
		StartedAt: "When the rollout started (RFC 3339, the service's clock). While the rollout is " +
			"not `completed` (`stopped`, or `imported`), devices created in the fleets (or moved into them) after " +
			"this time join its last wave when the next apply resumes it. A `completed` rollout does nothing more: " +
			"devices that join the fleets later keep their firmware until a new version is rolled out, or a " +
			"`zdm_fota` or the `zdm_schedule_fota` action updates them.",
		DeviceIDs: "Devices of the wave that have the firmware (scheduled by the rollout, or " +
			"found with it already), sorted. Empty until the wave starts.",
		Counts: "Devices of the wave per firmware update status, read on every " +
			"refresh: for example `{ done = 9, failed = 1 }`. `replaced` counts devices whose " +
			"update is now another firmware.",
	},
	resourceDoc: "Rolls one firmware version out to the devices of fleets in **waves**, with a health " +
		"gate between waves. Each wave schedules the firmware on more devices (picked in a stable order), " +
		"then waits until they all report a success or failure status; when the failure ratio of a wave " +
		"exceeds `max_failure_ratio`, or it is not done within `wave_timeout`, the rollout stops and the apply " +
		"fails with the failing devices and their statuses. The state records the waves and the devices " +
		"scheduled, so applying the same version again **resumes** from the first incomplete wave and never " +
		"schedules a device twice; a new `firmware_version` starts a new rollout. Progress is logged at info " +
		"level (`TF_LOG=info`). Each refresh reads the status of every scheduled device (`parallelism` at a " +
		"time) and updates the per-wave counts.\n\n" +
		"The API cannot cancel firmware updates: destroying the resource only removes it from the state. " +
		"See the guide *Rolling out firmware* for a full example. Works with every Terraform and OpenTofu " +
		"version; with Terraform 1.14 and later the `zdm_fota_rollout` action runs the same rollout without " +
		"state.",
	actionDoc: "Rolls one firmware version out to the devices of fleets in **waves**, with a health " +
		"gate between waves, each time the action is invoked: the same rollout as the `zdm_fota_rollout` " +
		"resource, without state. Each wave schedules the firmware on more devices (picked in a stable " +
		"order), then waits until they all report a success or failure status; when the failure ratio of a " +
		"wave exceeds `max_failure_ratio`, or it is not done within `wave_timeout`, the action fails with the " +
		"failing devices and their statuses. Invoking it again with the same firmware resumes: devices that " +
		"already have the firmware are not scheduled again, and waves whose devices are all done pass at " +
		"once. Progress is reported per wave. Needs Terraform 1.14 or later.",
}

// fotaRolloutResourceAttributes are the action's attributes, the firmware
// replacing the rollout.
func fotaRolloutResourceAttributes(newRollout string) map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{}
	for name, a := range fotaRolloutActionAttributes() {
		switch a := a.(type) {
		case actionschema.StringAttribute:
			attrs[name] = schema.StringAttribute{
				MarkdownDescription: a.MarkdownDescription + newRollout,
				Required:            true,
				Validators:          a.Validators,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			}
		case actionschema.SetAttribute:
			attrs[name] = schema.SetAttribute{
				MarkdownDescription: a.MarkdownDescription,
				ElementType:         a.ElementType,
				Optional:            true,
				Validators:          a.Validators,
			}
		}
	}
	return attrs
}

// fotaRolloutActionAttributes are the action's firmware and statuses.
func fotaRolloutActionAttributes() map[string]actionschema.Attribute {
	notEmpty := validators.NotEmpty()
	str := func(name string) actionschema.StringAttribute {
		return actionschema.StringAttribute{MarkdownDescription: fotaRolloutDocs[name], Required: true, Validators: notEmpty}
	}
	set := func(name string, v ...validator.Set) actionschema.SetAttribute {
		return actionschema.SetAttribute{MarkdownDescription: fotaRolloutDocs[name], ElementType: types.StringType, Optional: true, Validators: v}
	}
	return map[string]actionschema.Attribute{
		"firmware_id":      str("firmware_id"),
		"firmware_version": str("firmware_version"),
		"success_statuses": set("success_statuses", validators.NotEmptySet()...),
		"failure_statuses": set("failure_statuses", setvalidator.ValueStringsAre(notEmpty...)),
	}
}
