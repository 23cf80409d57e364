package scheduling

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/kit"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
	"github.com/zdm/terraform-provider-zdm/internal/service/rolloutgates"
)

// Schema attributes shared by the actions.

// ActionTargetAttributes are the target and wait attributes of the
// scheduling actions; what names what is scheduled ("job", "firmware update").
func ActionTargetAttributes(what string) map[string]schema.Attribute {
	notEmpty := []validator.String{stringvalidator.LengthAtLeast(1), kit.NotBlank{}}
	return map[string]schema.Attribute{
		"device_id": schema.StringAttribute{
			MarkdownDescription: "ID of the device that gets the " + what + ". Exactly one of `device_id` and " +
				"`workspace_id` must be set.",
			Optional:   true,
			Validators: notEmpty,
		},
		"workspace_id": schema.StringAttribute{
			MarkdownDescription: "ID of the workspace whose fleets get the " + what + " (on every device they hold " +
				"when the action runs). It must be set explicitly: the provider's `workspace_id` is not used, so that " +
				"leaving out `device_id` cannot target a whole workspace by mistake. Exactly one of `device_id` and " +
				"`workspace_id` must be set.",
			Optional:   true,
			Validators: notEmpty,
		},
		"fleet_ids": schema.SetAttribute{
			MarkdownDescription: "IDs of the fleets of `workspace_id` that get the " + what + ". With `workspace_id`, " +
				"exactly one of `fleet_ids` and `all_fleets = true` must be set (an empty set is an error).",
			ElementType: types.StringType,
			Optional:    true,
			Validators: []validator.Set{
				setvalidator.SizeAtLeast(1),
				setvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1), kit.NotBlank{}),
			},
		},
		"all_fleets": schema.BoolAttribute{
			MarkdownDescription: "Set to `true` to send the " + what + " to every fleet of `workspace_id`. It is never " +
				"implied: without it, `fleet_ids` must name the fleets. Only with `workspace_id`.",
			Optional: true,
		},
		"wait": schema.BoolAttribute{
			MarkdownDescription: "Wait until every targeted device reports the " + what + " in a success status " +
				"(`success_statuses`, default `done`), polling each " +
				"device every `poll_interval`. Defaults to `false`: the action ends once the " + what + " is scheduled.",
			Optional: true,
		},
		"success_statuses": schema.SetAttribute{
			MarkdownDescription: successStatusesDoc(what),
			ElementType:         types.StringType,
			Optional:            true,
			Validators:          waitStatusSetValidators(true),
		},
		"failure_statuses": schema.SetAttribute{
			MarkdownDescription: failureStatusesDoc(what, "the action fails"),
			ElementType:         types.StringType,
			Optional:            true,
			Validators:          waitStatusSetValidators(false),
		},
		"timeout": schema.StringAttribute{
			MarkdownDescription: "With `wait`, how long to wait, as a duration such as `\"10m\"`; the action fails " +
				"after it naming the devices not done. Defaults to `5m`.",
			Optional:   true,
			Validators: []validator.String{kit.Duration{}},
		},
		"poll_interval": schema.StringAttribute{
			MarkdownDescription: pollIntervalDoc("; at most `timeout`"),
			Optional:            true,
			Validators:          []validator.String{kit.PollInterval},
		},
	}
}

// RolloutActionAttributes are the attributes every rollout action has (the
// inputs of RolloutInputs), described by docs: RolloutDocs with the
// family's gate descriptions (max_failure_ratio, wave_timeout) added. The
// action adds what it rolls out.
func RolloutActionAttributes(docs map[string]string) map[string]schema.Attribute {
	notEmpty := []validator.String{stringvalidator.LengthAtLeast(1), kit.NotBlank{}}
	str := func(name string, required bool, v ...validator.String) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: docs[name], Required: required, Optional: !required, Validators: v}
	}
	return map[string]schema.Attribute{
		"workspace_id": str("workspace_id", true, notEmpty...),
		"fleet_ids": schema.SetAttribute{
			MarkdownDescription: docs["fleet_ids"],
			ElementType:         types.StringType,
			Optional:            true,
			Validators:          []validator.Set{setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(notEmpty...)},
		},
		"all_fleets": schema.BoolAttribute{MarkdownDescription: docs["all_fleets"], Optional: true},
		"salt":       str("salt", false),
		"waves": schema.ListAttribute{
			MarkdownDescription: docs["waves"],
			ElementType:         types.StringType,
			Required:            true,
			Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.SizeAtMost(rollout.MaxWaves)},
		},
		"max_failure_ratio": schema.Float64Attribute{
			MarkdownDescription: docs["max_failure_ratio"],
			Optional:            true,
			Validators:          []validator.Float64{float64validator.Between(0, 1)},
		},
		"wave_timeout":        str("wave_timeout", false, kit.Duration{}),
		"poll_interval":       str("poll_interval", false, kit.PollInterval),
		"pause_between_waves": str("pause_between_waves", false, kit.Duration{}),
		"parallelism": schema.Int64Attribute{
			MarkdownDescription: docs["parallelism"],
			Optional:            true,
			Validators:          []validator.Int64{int64validator.Between(1, MaxStatusParallelism)},
		},
		"health_check":           rolloutgates.HealthActionAttribute(),
		"min_devices_reported":   rolloutgates.PacingActionAttributes()["min_devices_reported"],
		"max_devices_per_minute": rolloutgates.PacingActionAttributes()["max_devices_per_minute"],
	}
}

// RolloutActionBlocks are the blocks of the staged rollout actions: the
// maintenance windows.
func RolloutActionBlocks() map[string]schema.Block {
	return map[string]schema.Block{"maintenance_window": rolloutgates.WindowActionBlock()}
}
