package rollouts

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/kit"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
)

var (
	_ action.Action                   = (*fotaRolloutAction)(nil)
	_ action.ActionWithConfigure      = (*fotaRolloutAction)(nil)
	_ action.ActionWithValidateConfig = (*fotaRolloutAction)(nil)
	_ action.ActionWithModifyPlan     = (*fotaRolloutAction)(nil)
)

func NewFOTARolloutAction() action.Action {
	return &fotaRolloutAction{}
}

// fotaRolloutAction runs the staged rollout of the zdm_fota_rollout
// resource each time it is invoked, without state.
type fotaRolloutAction struct {
	data *connection.ProviderData
}

func (a *fotaRolloutAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_fota_rollout"
}

func (a *fotaRolloutAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	notEmpty := []validator.String{stringvalidator.LengthAtLeast(1), kit.NotBlank{}}
	str := func(name string, v ...validator.String) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: fotaRolloutDocs[name], Required: true, Validators: v}
	}
	set := func(name string, v ...validator.Set) schema.SetAttribute {
		return schema.SetAttribute{MarkdownDescription: fotaRolloutDocs[name], ElementType: types.StringType, Optional: true, Validators: v}
	}
	attrs := RolloutActionAttributes(fotaRolloutDocs)
	maps.Copy(attrs, map[string]schema.Attribute{
		"firmware_id":      str("firmware_id", notEmpty...),
		"firmware_version": str("firmware_version", notEmpty...),
		"success_statuses": set("success_statuses", setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(notEmpty...)),
		"failure_statuses": set("failure_statuses", setvalidator.ValueStringsAre(notEmpty...)),
	})
	resp.Schema = schema.Schema{
		MarkdownDescription: "Rolls one firmware version out to the devices of fleets in **waves**, with a health " +
			"gate between waves, each time the action is invoked: the same rollout as the `zdm_fota_rollout` " +
			"resource, without state. Each wave schedules the firmware on more devices (picked in a stable " +
			"order), then waits until they all report a success or failure status; when the failure ratio of a " +
			"wave exceeds `max_failure_ratio`, or it is not done within `wave_timeout`, the action fails with the " +
			"failing devices and their statuses. Invoking it again with the same firmware resumes: devices that " +
			"already have the firmware are not scheduled again, and waves whose devices are all done pass at " +
			"once. Progress is reported per wave. Needs Terraform 1.14 or later.",
		Attributes: attrs,
		Blocks:     RolloutActionBlocks(),
	}
}

func (a *fotaRolloutAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	validateConfig[fotaRolloutInputs](ctx, fotaRollout, req.Config, &resp.Diagnostics)
}

func (a *fotaRolloutAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = connection.ConfigureData("Action", req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan probes the storage service of health_check at plan time
// (PlanRolloutAction).
func (a *fotaRolloutAction) ModifyPlan(ctx context.Context, req action.ModifyPlanRequest, resp *action.ModifyPlanResponse) {
	PlanRolloutAction(ctx, a.data, req, resp)
}

func (a *fotaRolloutAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	if a.data == nil {
		connection.NotConfigured(&resp.Diagnostics)
		return
	}
	var cfg fotaRolloutInputs
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	spec := commandSpec(ctx, &cfg, &resp.Diagnostics)
	InvokeRollout(ctx, a.data, spec, resp, func(rec rollout.Record, err error) string {
		return fotaRollout.actionStoppedDetail(spec, rec, err)
	})
}
