package rollouts

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

// The attributes the rollout actions share.

// RolloutActionAttributes are the attributes every rollout action has (the
// inputs of RolloutInputs), described by docs: RolloutDocs with the
// family's gate descriptions (max_failure_ratio, wave_timeout) added. The
// action adds what it rolls out.
func RolloutActionAttributes(docs map[string]string) map[string]schema.Attribute {
	notEmpty := validators.NotEmpty()
	str := func(name string, required bool, v ...validator.String) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: docs[name], Required: required, Optional: !required, Validators: v}
	}
	return map[string]schema.Attribute{
		"workspace_id": str("workspace_id", true, notEmpty...),
		"fleet_ids": schema.SetAttribute{
			MarkdownDescription: docs["fleet_ids"],
			ElementType:         types.StringType,
			Optional:            true,
			Validators:          validators.NotEmptySet(),
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
		"wave_timeout":        str("wave_timeout", false, connection.DurationValidator{}),
		"poll_interval":       str("poll_interval", false, connection.PollIntervalValidator),
		"pause_between_waves": str("pause_between_waves", false, connection.DurationValidator{}),
		"parallelism": schema.Int64Attribute{
			MarkdownDescription: docs["parallelism"],
			Optional:            true,
			Validators:          []validator.Int64{int64validator.Between(1, scheduling.MaxStatusParallelism)},
		},
		"health_check":           HealthActionAttribute(),
		"min_devices_reported":   PacingActionAttributes()["min_devices_reported"],
		"max_devices_per_minute": PacingActionAttributes()["max_devices_per_minute"],
	}
}

// RolloutActionBlocks are the blocks of the staged rollout actions: the
// maintenance windows.
func RolloutActionBlocks() map[string]schema.Block {
	return map[string]schema.Block{"maintenance_window": WindowActionBlock()}
}
