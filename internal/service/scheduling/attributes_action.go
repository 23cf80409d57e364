package scheduling

import (
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
)

// Schema attributes shared by the actions.

// ActionTargetAttributes are the target and wait attributes of the
// scheduling actions; what names what is scheduled ("job", "firmware update").
func ActionTargetAttributes(what string) map[string]schema.Attribute {
	notEmpty := validators.NotEmpty()
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
			Validators:  validators.NotEmptySet(),
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
			Validators: []validator.String{connection.DurationValidator{}},
		},
		"poll_interval": schema.StringAttribute{
			MarkdownDescription: pollIntervalDoc("; at most `timeout`"),
			Optional:            true,
			Validators:          []validator.String{connection.PollIntervalValidator},
		},
	}
}
