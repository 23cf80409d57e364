package rollouts

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

// newRolloutResource makes the constructor of the resource of command c
// (NewJobRolloutResource, NewFOTARolloutResource).
func newRolloutResource[M any, P rolloutModel[M]](c *rolloutCommand) func() resource.Resource {
	return func() resource.Resource {
		var r interface {
			resource.ResourceWithConfigure
			resource.ResourceWithValidateConfig
			resource.ResourceWithModifyPlan
			resource.ResourceWithImportState
		} = &rolloutResource[M, P]{c: c}
		return r
	}
}

// rolloutModel is the model of a rollout resource, M, through its pointer:
// the command's inputs and the RolloutResults.
type rolloutModel[M any] interface {
	rolloutInputs[M]
	results() *RolloutResults
}

// results are the computed attributes of a model, which embeds them.
func (m *RolloutResults) results() *RolloutResults { return m }

// rolloutResource is the resource of a rollout of one command
// (zdm_job_rollout, zdm_fota_rollout): it rolls the command out to the
// devices of fleets in waves, each gated on its devices, records the waves
// in the state and resumes where it stopped. The waves run in package
// rollout.
type rolloutResource[M any, P rolloutModel[M]] struct {
	c    *rolloutCommand
	data *connection.ProviderData
}

func (r *rolloutResource[M, P]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + r.c.name
}

func (r *rolloutResource[M, P]) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	c := r.c
	attrs := RolloutResourceAttributes(c.RolloutResourceDocs)
	maps.Copy(attrs, PacingAttributes())
	maps.Copy(attrs, c.resourceAttributes(newRolloutNote(c.Stays)))
	attrs["id"] = schema.StringAttribute{
		MarkdownDescription: "`" + c.idFormat + "`, also the import ID; a `/` inside " + c.idEscaped +
			" is written `%2F` (and a `%` `%25`).",
		Computed:      true,
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: c.resourceDoc,
		Attributes:          attrs,
		Blocks:              RolloutResourceBlocks(),
	}
}

func (r *rolloutResource[M, P]) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	validateConfig[M, P](ctx, r.c, req.Config, &resp.Diagnostics)
}

func (r *rolloutResource[M, P]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = connection.ConfigureData("Resource", req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan claims the command for the plan's walk, plans a resume while
// the rollout is not complete (status and the waves become unknown, so
// that the apply runs), keeps the results of a complete rollout when only
// its gate settings change, and warns that destroying or replacing leaves
// what it scheduled in place.
func (r *rolloutResource[M, P]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !req.Plan.Raw.IsNull() {
		// Another rollout or scheduling of this configuration may send
		// another value to one of its fleets.
		plan := getInputs[M, P](ctx, req.Plan, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		r.c.claim(ctx, r.data, plan, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if req.State.Raw.IsNull() {
		CheckStorage(ctx, r.data, req.Plan, &resp.Diagnostics)
		plan := getInputs[M, P](ctx, req.Plan, &resp.Diagnostics)
		if resp.Diagnostics.HasError() || req.Plan.Raw.IsNull() {
			return
		}
		PlanInheritedRecord(ctx, r.data, commandIdentity(plan),
			plan.describe()+" on "+plan.shared().WorkspaceID.ValueString(), r.c.Thing, resp)
		return
	}
	prior := getInputs[M, P](ctx, req.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	what := "The " + prior.describe() + " scheduled by this rollout"
	if WarnRolloutDestroyOrReplace(req, resp, what, r.c.cannot, r.c.have) {
		CheckStorage(ctx, r.data, req.Plan, &resp.Diagnostics)
		return
	}
	if prior.results().Status.ValueString() != rollout.StatusCompleted {
		CheckStorage(ctx, r.data, req.Plan, &resp.Diagnostics)
	}
	PlanRolloutResume(ctx, req, resp, *prior.results())
}

// run runs the rollout of plan, resuming prior, and stores the record in
// plan. It returns false after adding the error of a rollout that stopped;
// plan then still holds what happened, for the state.
func (r *rolloutResource[M, P]) run(ctx context.Context, plan P, prior *rollout.Record, diags *diag.Diagnostics) bool {
	spec := commandSpec(ctx, plan, diags)
	CheckStorageAtApply(ctx, r.data, spec, diags)
	if diags.HasError() {
		return false
	}
	res := plan.results()
	res.ID = types.StringValue(values.JoinID(append([]string{spec.WorkspaceID}, plan.idValues()...)...))
	progress := func(msg string) {
		tflog.Info(ctx, msg, map[string]any{"rollout": res.ID.ValueString()})
	}
	rec, err := rollout.Run(ctx, r.data.Client, spec, prior, progress)
	res.SetRecord(rec, nil)
	if WarnOutsideWindow(err, DescribeRollout(spec), diags) {
		return true
	}
	if err != nil {
		diags.AddError("Rollout of "+DescribeRollout(spec)+" stopped", r.c.resourceStoppedDetail(spec, rec, err))
		return false
	}
	return true
}

// apply runs the rollout of plan, resuming prior, and saves it in state,
// also when it stopped: what was scheduled is recorded. When nothing ran,
// there is no state.
func (r *rolloutResource[M, P]) apply(ctx context.Context, plan P, prior *rollout.Record, state *tfsdk.State, diags *diag.Diagnostics) {
	if diags.HasError() {
		return
	}
	ok := r.run(ctx, plan, prior, diags)
	if !ok && plan.results().Status.IsUnknown() {
		return
	}
	diags.Append(state.Set(ctx, plan)...)
}

func (r *rolloutResource[M, P]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := decodeInputs[M, P](ctx, r.data, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	r.apply(ctx, plan, plan.results().Inherited(ctx, &resp.Diagnostics), &resp.State, &resp.Diagnostics)
}

// Read reads the command on every device the record holds and updates the
// per-wave counts; what was scheduled is kept.
func (r *rolloutResource[M, P]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.data == nil {
		return // the provider configuration is not known yet: keep the state
	}
	state := getInputs[M, P](ctx, req.State, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	res := state.results()
	rec := res.Record(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || rec == nil {
		return
	}
	ids := rec.Devices()
	if len(ids) == 0 {
		// A replacement planned next inherits the record (rollout_record.go).
		RememberRollout(ctx, r.data, commandIdentity(state), *res)
		return
	}
	cmd := state.command(&resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	devices, err := fleetstatus.ReadIDs(ctx, r.data.Client, ids, cmd.Kind(), scheduling.StatusParallelism(state.shared().Parallelism))
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the devices of the rollout "+res.ID.ValueString(), err.Error())
		return
	}
	res.WaveResults = WaveResultsList(*rec, rollout.WaveCounts(*rec, cmd, devices))
	RememberRollout(ctx, r.data, commandIdentity(state), *res)
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *rolloutResource[M, P]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	planned, prior, ok := connection.DecodeUpdate[M](ctx, r.data, req.Plan, req.State, &resp.Diagnostics)
	if !ok {
		return
	}
	plan, state := P(&planned), P(&prior)
	if state.results().Status.ValueString() == rollout.StatusCompleted {
		// Only settings changed; a complete rollout has nothing left to do.
		*plan.results() = *state.results()
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		return
	}
	r.apply(ctx, plan, state.results().Record(ctx, &resp.Diagnostics), &resp.State, &resp.Diagnostics)
}

// Delete forgets the rollout: the API cannot cancel what it scheduled (the
// plan warned). Its record is remembered for a replacement that the apply
// creates next (rollout_record.go).
func (r *rolloutResource[M, P]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	tflog.Info(ctx, r.c.forgotten)
	state := getInputs[M, P](ctx, req.State, &resp.Diagnostics)
	if !resp.Diagnostics.HasError() {
		RememberRollout(ctx, r.data, commandIdentity(state), *state.results())
	}
}

// ImportState takes the ID (idFormat): the next apply runs the configured
// rollout, finding the devices that already have the command (scheduled
// by an earlier rollout or otherwise) and scheduling only the others.
// What the ID does not hold (a job's value) is null in the state until
// that apply.
func (r *rolloutResource[M, P]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	parts, err := values.SplitID(req.ID, 1+len(r.c.idAttributes))
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID",
			"The import ID of a "+r.c.typeName()+" is "+r.c.idFormat+", as its id attribute shows; "+
				connection.Quote(req.ID)+" "+err.Error()+".")
		return
	}
	values := map[string]string{"id": req.ID, "workspace_id": parts[0], "status": StatusImported}
	for k, name := range r.c.idAttributes {
		values[name] = parts[k+1]
	}
	for name, v := range values {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), v)...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("waves_completed"), int64(0))...)
}
