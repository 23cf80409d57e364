package objects

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// The create and the read that the resources of objects the service creates
// and reads but cannot delete (zdm_workspace, zdm_fleet, zdm_device) share.

// InWorkspace is the state model of an object that lives in a workspace (a
// fleet or a device).
type InWorkspace interface {
	// Workspace is the configured or planned workspace_id.
	Workspace() types.String
	// Key is the workspace and the ID of the object.
	Key() (ws, id string)
}

// ObjectResource is what the resource of an object in a workspace (a fleet,
// a device) adds to the create and the read they share: M is its state
// model, O the object the service answers.
type ObjectResource[M InWorkspace, O any] struct {
	// Kind names the object: "fleet", "device".
	Kind string
	// Data is the provider's configuration; nil before it is known.
	Data *connection.ProviderData
	// Send sends the create of the planned object in workspace ws; Wrote
	// records the write to ws for the batched reads, with the object the
	// service answered (nil without an answer).
	Send  func(ctx context.Context, ws string, plan M) (*O, error)
	Wrote func(ws string, o *O)
	// Adopt resolves an ambiguous create (see ResolveCreate).
	Adopt func(ctx context.Context, a AmbiguousCreate, plan M, diags *diag.Diagnostics) *O
	// Get reads the object id of workspace ws.
	Get func(ctx context.Context, ws, id string) (*O, error)
	// Name is the planned name, ID the ID of an answered object, Flatten its
	// state.
	Name    func(plan M) string
	ID      func(o *O) string
	Flatten func(o *O, ws string) M
	// Check, when set, adds its diagnostics about an object read.
	Check func(o *O, diags *diag.Diagnostics)
	// Keep, when set, copies the attributes that only the configuration
	// sets (not the service) from the plan (at create) or the prior state
	// (at read) to the new state.
	Keep func(from M, to *M)
}

// Create is the resource's Create: the plan, its workspace (the planned
// workspace_id, or the provider's), the create (CreateObject), the state
// and the identity.
func (k ObjectResource[M, O]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := connection.Decode[M](ctx, k.Data, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	ws := WorkspaceOrDefault(k.Data, plan.Workspace(), path.Root("workspace_id"), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	name := k.Name(plan)
	a := AmbiguousCreate{Kind: k.Kind, Name: name, Summary: "Cannot create " + k.Kind + " " + connection.Quote(name) + " in workspace " + ws, Ws: ws}
	o := CreateObject(ctx, k.Data, a,
		func(ctx context.Context) (*O, error) {
			o, err := k.Send(ctx, ws, plan)
			if err != nil {
				k.Wrote(ws, nil)
			} else {
				k.Wrote(ws, o)
			}
			return o, err
		},
		func(a AmbiguousCreate) *O { return k.Adopt(ctx, a, plan, &resp.Diagnostics) }, k.ID, &resp.Diagnostics)
	if o == nil {
		return
	}
	state := k.Flatten(o, ws)
	if k.Keep != nil {
		k.Keep(plan, &state)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	ws, id := state.Key()
	SetIdentity(ctx, resp.Identity, NewInWorkspaceIdentity(ws, id), &resp.Diagnostics)
}

// Read is the resource's Read: ReadInWorkspace, then the state of the
// object read.
func (k ObjectResource[M, O]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	o, ws := ReadInWorkspace[M](ctx, k.Data, k.Kind, k.Get, req, resp)
	if o == nil {
		return
	}
	state := k.Flatten(o, ws)
	if k.Keep != nil {
		var prior M
		resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
		k.Keep(prior, &state)
	}
	if k.Check != nil {
		k.Check(o, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	ClearImported(ctx, resp)
}

// CreateObject sends the create of the object that a describes (a.Kind,
// a.Name, a.Ws: "" for a workspace; a.Summary is the summary of its
// errors) with send, so that an interrupt finishes the request instead of
// abandoning it. An ambiguous create (client.ErrAmbiguous) goes to adopt,
// with a.Sent and a.Cause set (see ResolveCreate). The object created or
// adopted is owned and returned; nil means an error was reported.
func CreateObject[O any](ctx context.Context, d *connection.ProviderData, a AmbiguousCreate, send func(context.Context) (*O, error),
	adopt func(AmbiguousCreate) *O, idOf func(*O) string, diags *diag.Diagnostics) *O {
	a.Sent = time.Now()
	o, err := send(client.FinishOnceSent(ctx))
	if errors.Is(err, client.ErrAmbiguous) {
		a.Cause = err
		if o = adopt(a); o == nil {
			return nil
		}
	} else if err != nil {
		diags.AddError(a.Summary, connection.DescribeError(err, a.Ws))
		return nil
	}
	id := idOf(o)
	d.Own(a.Kind, id)
	fields := map[string]any{"id": id}
	if a.Ws != "" {
		fields["workspace_id"] = a.Ws
	}
	tflog.Trace(ctx, "created "+a.Kind, fields)
	return o
}

// ReadInWorkspace runs the Read of an object of kind that lives in a
// workspace, up to the answer: it reads the state (a model M), sets the
// identity, and reads the object with read. A 404 removes the resource from
// the state only once the workspace is proven visible to this base_url and
// key (ConfirmGone), and fails an import. The object read is owned and
// returned with its workspace; nil means there is nothing more to do: the
// provider is not configured yet (the state is kept), the resource was
// removed, or an error was reported.
func ReadInWorkspace[M InWorkspace, O any](ctx context.Context, d *connection.ProviderData, kind string,
	read func(ctx context.Context, ws, id string) (*O, error), req resource.ReadRequest, resp *resource.ReadResponse) (*O, string) {
	if d == nil {
		// The provider configuration is not known yet: keep the state.
		IdentityFromState(ctx, req.State, resp.Identity, &resp.Diagnostics)
		return nil, ""
	}
	var state M
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return nil, ""
	}
	ws, id := state.Key()
	SetIdentity(ctx, resp.Identity, NewInWorkspaceIdentity(ws, id), &resp.Diagnostics)
	o, err := read(ctx, ws, id)
	if client.IsNotFound(err) && FollowsImport(ctx, req, &resp.Diagnostics) {
		NotFoundAtImport(&resp.Diagnostics, kind, kind+" "+connection.Quote(id)+" of workspace "+connection.Quote(ws))
		return nil, ""
	}
	if client.IsNotFound(err) {
		if err := d.ConfirmGone(ctx, kind, ws, id, err); err != nil {
			resp.Diagnostics.AddError("Cannot read "+kind+" "+id+" of workspace "+ws, err.Error())
			return nil, ""
		}
		tflog.Warn(ctx, kind+" not found; removing it from the state", map[string]any{"id": id, "workspace_id": ws})
		resp.State.RemoveResource(ctx)
		return nil, ""
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read "+kind+" "+id+" of workspace "+ws, connection.DescribeError(err, ws))
		return nil, ""
	}
	d.Own(kind, id)
	return o, ws
}

// Delete is the resource's Delete: the object stays in the service, which
// cannot delete it; a warning says so.
func (k ObjectResource[M, O]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state M
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	_, id := state.Key()
	resp.Diagnostics.AddWarning(ForgetWarning(k.Kind, k.Name(state), id))
}

// ImportState is the resource's ImportState (see
// ImportInWorkspaceWithIdentity).
func (k ObjectResource[M, O]) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ImportInWorkspaceWithIdentity(ctx, k.Data, k.Kind, req, resp)
}
