package rollouts

import (
	"context"

	actionschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

// This file holds the description of what a rollout sends
// (rolloutCommand, commandInputs): all that sets a job rollout
// (job_rollout.go) apart from a firmware rollout (fota_rollout.go). One
// resource (resource_rollout.go) and one action (action_rollout.go) serve
// both commands from it.

// rolloutCommand describes the command of one rollout family: its type
// name, schemas and the words of its messages. Its resource and action
// hold it; what depends on the configured values is in commandInputs.
type rolloutCommand struct {
	// RolloutResourceDocs describe the resource's attributes; Thing names
	// what the devices get ("the job") in messages too, and Inputs are
	// the inputs' descriptions of both schemas.
	RolloutResourceDocs
	// name is the type name without the provider's prefix: "job_rollout".
	name string
	// resourceDoc and actionDoc describe the resource and the action.
	resourceDoc, actionDoc string
	// resourceAttributes and actionAttributes are the attributes of the
	// command (firmware_id, ...); newRollout ends the description of those
	// that replace the resource.
	resourceAttributes func(newRollout string) map[string]schema.Attribute
	actionAttributes   func() map[string]actionschema.Attribute
	// idFormat is the resource's ID, also its import ID:
	// "<workspace_id>/<job_name>". idAttributes are the attributes after
	// workspace_id that it holds, in order; idEscaped says which of them
	// may hold a "/" ("the job name").
	idFormat     string
	idAttributes []string
	idEscaped    string
	// cannot and have end the warnings of a destroy or replacement (see
	// WarnRolloutDestroyOrReplace).
	cannot, have string
	// neverTwice says, after a stop, that a resume sends nothing twice:
	// "no device is sent the job twice". invokeAgain says how an invoked
	// again action resumes: "sending the job only to the devices that ...".
	neverTwice, invokeAgain string
	// restart says how to start a new rollout instead of resuming.
	restart string
	// forgotten is the log line of a destroy.
	forgotten string
}

// typeName is the full type name of the resource and the action.
func (c *rolloutCommand) typeName() string { return "zdm_" + c.name }

// resourceStoppedDetail and actionStoppedDetail are the details of the
// error of a rollout that stopped: what happened and how to go on.
func (c *rolloutCommand) resourceStoppedDetail(spec rollout.Spec, rec rollout.Record, err error) string {
	return RolloutStoppedDetail(spec, rec, err, c.Thing, "Fix the cause (or raise max_failure_ratio or wave_timeout) "+
		"and apply again: the rollout resumes from the first incomplete wave, and "+c.neverTwice+". After a stop in "+
		"the first apply, Terraform marks the resource tainted and plans to replace it: the replacement inherits this "+
		"record (inherited_waves) and resumes the same rollout.", c.restart)
}

func (c *rolloutCommand) actionStoppedDetail(spec rollout.Spec, rec rollout.Record, err error) string {
	return RolloutStoppedDetail(spec, rec, err, c.Thing, "Fix the cause (or raise max_failure_ratio or wave_timeout) "+
		"and invoke the action again: it resumes, "+c.invokeAgain+".", c.restart)
}

// commandInputs are the inputs of a rollout of one command (the resource's
// model and the action's configuration): the shared RolloutInputs and
// what makes the command.
type commandInputs interface {
	// shared are the inputs every rollout has.
	shared() RolloutInputs
	// command is the rollout's command; an invalid value adds an error.
	command(diags *diag.Diagnostics) rollout.Command
	// commandKnown reports whether the inputs of the command are known.
	commandKnown() bool
	// describe names the command in messages: `job "reboot"`.
	describe() string
	// idValues are the values of the rolloutCommand's idAttributes.
	idValues() []string
	// claimed is what the command claims for the plan's walk and its
	// value (see scheduling.ClaimCommand); ok is false while unknown.
	claimed() (what, value string, ok bool)
	// validate checks what the command's schema validators cannot.
	validate(ctx context.Context, diags *diag.Diagnostics)
	// statuses are the spec's success and failure statuses; nil for the
	// engine's own.
	statuses(ctx context.Context, diags *diag.Diagnostics) (success, failure []string)
}

// rolloutInputs are the inputs of a rollout of one command, I (the
// resource's model or the action's configuration), through their pointer.
type rolloutInputs[I any] interface {
	*I
	commandInputs
}

// getInputs reads the inputs I from a plan, state or configuration.
func getInputs[I any, P rolloutInputs[I]](ctx context.Context, from connection.Getter, diags *diag.Diagnostics) P {
	var in I
	diags.Append(from.Get(ctx, &in)...)
	return P(&in)
}

// decodeInputs is connection.Decode of the inputs I: the start of an
// operation that needs the API.
func decodeInputs[I any, P rolloutInputs[I]](ctx context.Context, d *connection.ProviderData, from connection.Getter, diags *diag.Diagnostics) (P, bool) {
	in, ok := connection.Decode[I](ctx, d, from, diags)
	return P(&in), ok
}

// shared are the inputs every rollout has; the command's inputs embed them.
func (in RolloutInputs) shared() RolloutInputs { return in }

// validateConfig checks, in the configuration of the resource or the
// action, what the schema's validators cannot: the targets, the waves, the
// command's own inputs and the durations together.
func validateConfig[I any, P rolloutInputs[I]](ctx context.Context, c *rolloutCommand, cfg tfsdk.Config, diags *diag.Diagnostics) {
	in := getInputs[I, P](ctx, cfg, diags)
	if diags.HasError() {
		return
	}
	ValidateRolloutInputs(ctx, in.shared(), c.Thing, diags)
	in.validate(ctx, diags)
	ValidateRolloutDurations(in.shared(), diags)
}

// commandSpec builds the rollout's spec from validated inputs.
func commandSpec(ctx context.Context, in commandInputs, diags *diag.Diagnostics) rollout.Spec {
	spec := RolloutSpec(ctx, in.shared(), in.command(diags), diags)
	spec.Success, spec.Failure = in.statuses(ctx, diags)
	return spec
}

// commandIdentity is the rollout.Identity of the inputs, "" while a part of
// it is unknown.
func commandIdentity(in commandInputs) string {
	s := in.shared()
	if s.WorkspaceID.IsUnknown() || s.Salt.IsUnknown() || !in.commandKnown() {
		return ""
	}
	var diags diag.Diagnostics
	cmd := in.command(&diags)
	if diags.HasError() {
		return ""
	}
	return rollout.Identity(s.WorkspaceID.ValueString(), cmd, s.Salt.ValueString())
}

// claim claims the rollout's command, value and fleets for the plan (see
// scheduling.ClaimCommand).
func (c *rolloutCommand) claim(ctx context.Context, d *connection.ProviderData, in commandInputs, diags *diag.Diagnostics) {
	s := in.shared()
	what, value, ok := in.claimed()
	if !ok || s.Salt.IsUnknown() {
		return
	}
	scheduling.ClaimFleets(ctx, d, s.WorkspaceID, s.FleetIDs, s.AllFleets, what, value,
		c.typeName()+" with salt "+connection.Quote(s.Salt.ValueString()), diags)
}
