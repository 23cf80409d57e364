package rollouts

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

// newRolloutAction makes the constructor of the action of command c
// (NewJobRolloutAction, NewFOTARolloutAction).
func newRolloutAction[I any, P rolloutInputs[I]](c *rolloutCommand) func() action.Action {
	return func() action.Action {
		var a interface {
			action.ActionWithConfigure
			action.ActionWithValidateConfig
			action.ActionWithModifyPlan
		} = &rolloutAction[I, P]{c: c}
		return a
	}
}

// rolloutAction runs the staged rollout of the resource of its command
// each time it is invoked, without state.
type rolloutAction[I any, P rolloutInputs[I]] struct {
	c    *rolloutCommand
	data *connection.ProviderData
}

func (a *rolloutAction[I, P]) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + a.c.name
}

func (a *rolloutAction[I, P]) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := RolloutActionAttributes(a.c.Inputs)
	maps.Copy(attrs, a.c.actionAttributes())
	resp.Schema = schema.Schema{
		MarkdownDescription: a.c.actionDoc,
		Attributes:          attrs,
		Blocks:              RolloutActionBlocks(),
	}
}

func (a *rolloutAction[I, P]) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	validateConfig[I, P](ctx, a.c, req.Config, &resp.Diagnostics)
}

func (a *rolloutAction[I, P]) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = connection.ConfigureData("Action", req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan (plan -invoke, and the plan of apply -invoke) probes the
// storage service of health_check, as a resource's plan does, so that a
// storage service the workspace lacks fails the plan rather than the gate
// of the first wave.
func (a *rolloutAction[I, P]) ModifyPlan(ctx context.Context, req action.ModifyPlanRequest, resp *action.ModifyPlanResponse) {
	CheckStorage(ctx, a.data, req.Config, &resp.Diagnostics)
}

// Invoke runs the rollout without state: the storage check of its health
// gate (the probe of the plan, again before the first send), the waves
// with their progress sent to the CLI, then the warning of a closed
// maintenance window or the error of a stop.
func (a *rolloutAction[I, P]) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	cfg, ok := decodeInputs[I, P](ctx, a.data, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	spec := commandSpec(ctx, cfg, &resp.Diagnostics)
	CheckStorageAtApply(ctx, a.data, spec, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	rec, err := rollout.Run(ctx, a.data.Client, spec, nil, scheduling.ProgressFunc(resp))
	if WarnOutsideWindow(err, DescribeRollout(spec), &resp.Diagnostics) {
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Rollout of "+DescribeRollout(spec)+" stopped", a.c.actionStoppedDetail(spec, rec, err))
	}
}
