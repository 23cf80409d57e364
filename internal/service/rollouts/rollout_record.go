package rollouts

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
)

// The record of a rollout survives its replacement.
//
// The service shows which devices hold a command now, not which ones a
// rollout sent it to: a device whose job was since replaced by another
// value or purged, or whose firmware was replaced, looks never sent. Only
// the record in the state (wave_results, started_at) knows. When Terraform
// replaces a rollout (tainted after a stop in its first apply, or
// -replace), it plans the create of the replacement with a null prior
// state, so the replacement would start without that record: it would send
// the command again to such devices and cut the waves anew.
//
// So the record is handed over, within one graph walk (one provider
// configuration, connection.Registry):
//
//   - Terraform refreshes the old object before it plans the replacement,
//     in the same provider process: Read remembers the record under the
//     rollout's identity (workspace, command, salt: rollout.Identity).
//   - The plan of the create (ModifyPlan with a null prior state) claims
//     the record of its identity and plans it as known values:
//     inherited_waves, the old wave_results, and started_at.
//   - The apply is another walk (another process): Terraform runs the
//     Delete of the old object before the create of the replacement, and
//     Delete remembers the record again; Terraform's second plan of the
//     create, at apply time, claims it and plans the same values. Had it
//     found nothing (create_before_destroy runs the create first), the
//     planned values would differ from the first plan's and Terraform stops
//     with "Provider produced inconsistent final plan" before anything is
//     sent. With -refresh=false the first plan finds nothing and leaves
//     them unknown; the apply-time plan fills them from the Delete.
//   - Create passes the inherited record to the run as its prior record:
//     recorded devices keep their waves and are never sent the command
//     again, completed waves stay complete, and devices created after
//     started_at join the last wave.
//
// A record is claimed by one create only. A rollout of another identity
// (another workspace, command or salt) is a new rollout and inherits
// nothing.

// rolloutRecords holds the records of the rollouts this provider
// configuration read or forgot, by identity. Its zero value is ready.
type rolloutRecords struct {
	mu sync.Mutex
	m  map[string]*heldRecord
}

// heldRecord is a remembered record, and whether a create claimed it.
type heldRecord struct {
	waves     types.List
	startedAt types.String
	devices   int
	claimed   bool
}

// RememberRollout records, for a replacement planned next in this walk,
// the record of a rollout read (Read) or forgotten (Delete); identity is
// its rollout.Identity. A rollout without a record (imported, not applied)
// is not remembered.
func RememberRollout(ctx context.Context, d *connection.ProviderData, identity string, m RolloutResults) {
	if d == nil || identity == "" || m.WaveResults.IsNull() || m.WaveResults.IsUnknown() || m.StartedAt.IsUnknown() {
		return
	}
	var diags diag.Diagnostics
	rec := m.Record(ctx, &diags)
	if diags.HasError() || rec == nil {
		return
	}
	r := connection.Registry[rolloutRecords](d)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]*heldRecord{}
	}
	r.m[identity] = &heldRecord{waves: m.WaveResults, startedAt: m.StartedAt, devices: len(rec.Devices())}
}

// claim returns the record of identity not claimed yet, and claims it.
func (r *rolloutRecords) claim(identity string) *heldRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.m[identity]
	if h == nil || h.claimed {
		return nil
	}
	h.claimed = true
	return h
}

// PlanInheritedRecord is the plan of a rollout's create (a null prior
// state): when a rollout of the same identity was read or forgotten in
// this walk (the object it replaces), its record becomes the planned
// inherited_waves and started_at, and a warning says what the replacement
// keeps. what names the rollout ("job \"reboot\" on ..."), thing what it
// sends ("the job").
func PlanInheritedRecord(ctx context.Context, d *connection.ProviderData, identity, what, thing string, resp *resource.ModifyPlanResponse) {
	if d == nil || identity == "" {
		return
	}
	h := connection.Registry[rolloutRecords](d).claim(identity)
	if h == nil {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("inherited_waves"), h.waves)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("started_at"), h.startedAt)...)
	resp.Diagnostics.AddWarning("The replacement resumes the rollout it replaces",
		fmt.Sprintf("Terraform replaces the rollout of %s. The replacement has the same workspace, command and salt, "+
			"so it keeps the record of the rollout it replaces (inherited_waves): the %d devices recorded there keep "+
			"their waves and are never sent %s again, even where the service no longer shows it; the waves it "+
			"completed stay complete; devices created in the fleets after its start (%s) join the last wave. To "+
			"start a new rollout from its first wave instead, change salt.", what, h.devices, thing, h.startedAt.ValueString()))
}

// Inherited is the record a create resumes: the planned inherited_waves
// and started_at; nil when the rollout replaces none. An unknown
// inherited_waves (nothing to inherit) becomes null.
func (m *RolloutResults) Inherited(ctx context.Context, diags *diag.Diagnostics) *rollout.Record {
	if m.InheritedWaves.IsUnknown() {
		m.InheritedWaves = types.ListNull(types.ObjectType{AttrTypes: waveResultAttrTypes})
		return nil
	}
	if m.InheritedWaves.IsNull() {
		return nil
	}
	return RolloutResults{WaveResults: m.InheritedWaves, StartedAt: m.StartedAt}.Record(ctx, diags)
}
