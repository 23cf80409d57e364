package scheduling

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/service/jobs/jobvalue"
)

// Schema attributes shared by the resources.

// JobValueAttribute is the value attribute of the job resources: a dynamic
// attribute that takes an object or the JSON text of an object (see
// jobvalue.Text).
func JobValueAttribute(what string) schema.DynamicAttribute {
	return schema.DynamicAttribute{
		MarkdownDescription: JobValueDoc + " Changing the value " + what + " with the new value; rewriting it " +
			"(white space, order of keys, an object instead of its `jsonencode`) changes nothing.",
		Optional:      true,
		Computed:      true,
		Validators:    []validator.Dynamic{jobvalue.Object{}},
		PlanModifiers: []planmodifier.Dynamic{jobvalue.Plan{}},
	}
}

// JobValueDoc describes the value of a job, for the resources and the
// action.
const JobValueDoc = "Arguments of the job, a JSON object: write it as an object (`value = { reason = \"maintenance\" }`) " +
	"or as JSON text (`value = jsonencode({ reason = \"maintenance\" })`, or a string read from a file); `{}` when " +
	"not set. It is checked at plan time."

// LegacyJobValueAttribute is the value attribute of the job resources in
// their first schema version (JSON text only), for their state upgrade.
func LegacyJobValueAttribute() schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Computed: true}
}

// TriggersAttribute is the triggers attribute of the scheduling resources.
func TriggersAttribute(what string) schema.MapAttribute {
	return schema.MapAttribute{
		MarkdownDescription: "Arbitrary strings (such as a release tag or a timestamp) that " + what + " again, in " +
			"place, whenever any of them changes; the service does not see them. A new resource has no prior " +
			"triggers: setting them on a create (or on a replacement) does not send a command the devices " +
			"already hold; only a later change of them does.",
		ElementType: types.StringType,
		Optional:    true,
	}
}

// FleetIDsAttribute is the fleet_ids attribute of the fleet-wide resources.
func FleetIDsAttribute(description string) schema.SetAttribute {
	return schema.SetAttribute{
		MarkdownDescription: description,
		ElementType:         types.StringType,
		Optional:            true,
		Validators:          validators.NotEmptySet(),
	}
}

// AllFleetsAttribute is the all_fleets attribute of the fleet-wide
// scheduling resources; what names what is scheduled ("the job").
func AllFleetsAttribute(what string) schema.BoolAttribute {
	return schema.BoolAttribute{
		MarkdownDescription: "Set to `true` to schedule " + what + " on every fleet of `workspace_id`. It is never " +
			"implied: without it, `fleet_ids` must name the fleets. Setting it on a resource scheduled on every " +
			"fleet before it existed sends nothing again.",
		Optional: true,
	}
}

// waitAttributes are the wait attributes of the scheduling resources
// (waitModel); what names what is scheduled ("job", "firmware update").
func waitAttributes(what string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"wait": schema.BoolAttribute{
			MarkdownDescription: "Wait, after scheduling the " + what + " (on create, or when a change sends it " +
				"again), until every targeted device reports it in a success status (`success_statuses`, default " +
				"`done`), polling each device every `poll_interval`, at most for the `timeouts` of the operation " +
				"(default 10 minutes). A wait that fails or times out fails the apply, naming each device not done " +
				"with its status; the state keeps what was scheduled, and applying again sends nothing: it only " +
				"waits again (also after `terraform untaint`, or when `wait` is turned on later). Defaults to `false`: " +
				"the apply ends once the " + what + " is scheduled.",
			Optional: true,
		},
		"success_statuses": schema.SetAttribute{
			MarkdownDescription: successStatusesDoc(what),
			ElementType:         types.StringType,
			Optional:            true,
			Validators:          waitStatusSetValidators(true),
		},
		"failure_statuses": schema.SetAttribute{
			MarkdownDescription: failureStatusesDoc(what, "the apply fails"),
			ElementType:         types.StringType,
			Optional:            true,
			Validators:          waitStatusSetValidators(false),
		},
		"poll_interval": schema.StringAttribute{
			MarkdownDescription: pollIntervalDoc(""),
			Optional:            true,
			Validators:          []validator.String{connection.PollIntervalValidator},
		},
	}
}

// waitTimeoutsBlock is the timeouts block of the scheduling resources: it
// bounds the wait of a create and of an update.
func waitTimeoutsBlock(ctx context.Context) map[string]schema.Block {
	b := timeouts.Block(ctx, timeouts.Opts{
		Create: true, Update: true,
		CreateDescription: "With `wait`, how long a create waits for the devices, as a duration such as " +
			"`\"30m\"`. Defaults to `10m`.",
		UpdateDescription: "With `wait`, how long an update that sends again, or only waits again, waits for the " +
			"devices, as a duration such as `\"30m\"`. Defaults to `10m`.",
	})
	if nested, ok := b.(schema.SingleNestedBlock); ok {
		nested.MarkdownDescription = "How long the wait of `wait = true` may last. A wait that does not end in " +
			"time fails the apply, naming each device not done with its status; the state keeps what was scheduled."
		b = nested
	}
	return map[string]schema.Block{"timeouts": b}
}

// AddWaitSchema adds the wait attributes and the timeouts block to the
// schema of a scheduling resource.
func AddWaitSchema(ctx context.Context, s *schema.Schema, what string) {
	for name, a := range waitAttributes(what) {
		s.Attributes[name] = a
	}
	if s.Blocks == nil {
		s.Blocks = map[string]schema.Block{}
	}
	for name, b := range waitTimeoutsBlock(ctx) {
		s.Blocks[name] = b
	}
}

// JobValueUpgrade upgrades the state of a job resource r from version 0,
// whose value was JSON text only, to its schema (version 1, a dynamic
// value): the text stays, as a string.
func JobValueUpgrade(ctx context.Context, r resource.Resource) map[int64]resource.StateUpgrader {
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	prior := sr.Schema
	prior.Version = 0
	prior.Attributes = maps.Clone(prior.Attributes)
	prior.Attributes["value"] = LegacyJobValueAttribute()
	return map[int64]resource.StateUpgrader{0: jobvalue.StringToDynamicUpgrader(prior, "value")}
}
