package scheduling

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
)

// Unfinished schedulings: a scheduling resource whose wait failed on create
// is saved in the state, and Terraform taints it, so the next plan replaces
// it: Delete (which only forgets) then Create, which would send the command
// again without a change of the configuration. The replacement adopts the
// scheduling instead, and only waits (see DESIGN.md, "Waiting in
// resources"):
//
//   - Create, when its wait fails, marks the object's private state
//     (unfinishedKey) with what it scheduled.
//   - Read (Terraform refreshes a tainted object before planning its
//     replacement) remembers a marked object in the provider's registry of
//     unfinished schedulings, for the rest of the walk.
//   - Delete (Terraform destroys the tainted object before creating its
//     replacement, in the same apply) remembers it too: when its planned
//     private state says so, or, without a refresh in the plan, when its
//     state shows a wait that has not succeeded.
//   - ModifyPlan of a create looks the planned object up: the same targets,
//     the same job name or firmware, the same value and triggers. On a match
//     it plans to adopt, with a warning, and marks the planned private
//     state (adoptKey), which Terraform hands to the Delete of the tainted
//     object. Terraform plans the create again in the apply, after that
//     Delete, and the framework does not hand the planned private state to
//     Create: Create looks the object up in the registry of its walk, which
//     Delete filled, checks on the service that the devices still show that
//     scheduling, sends nothing, and waits. A changed value or triggers is a
//     change of the configuration: it does not match, and sends.

// Private state keys.
const (
	// unfinishedKey marks an object whose wait did not succeed.
	unfinishedKey = "unfinished_wait"
	// adoptKey marks a planned create that adopts an unfinished scheduling.
	adoptKey = "adopt_scheduling"
)

// UnfinishedScheduling is a scheduling whose wait did not succeed.
type UnfinishedScheduling struct {
	// Key names the scheduling: the resource type, its targets, and the
	// job name (see schedulingKey).
	Key string `json:"key"`
	// Value is what was scheduled as JSON: the job value, or the firmware.
	Value string `json:"value"`
	// Triggers is the triggers map as JSON ("null" when not set).
	Triggers string `json:"triggers"`
	// ScheduledAt and Devices are what was scheduled.
	ScheduledAt string   `json:"scheduled_at"`
	Devices     []string `json:"devices"`
}

// SchedulingKey is the Key of a scheduling of resource type typ on targets
// (device or workspace and fleets), of job name (empty for firmware).
func SchedulingKey(typ string, parts ...string) string {
	return typ + "\x00" + strings.Join(parts, "\x00")
}

// FleetsKey is the part of a key for the fleets of a scheduling: the sorted
// fleet IDs, or "*" for every fleet.
func FleetsKey(ctx context.Context, fleets types.Set, all types.Bool, diags *diag.Diagnostics) string {
	if all.ValueBool() {
		return "*"
	}
	ids := values.SetStrings(ctx, fleets, diags)
	slices.Sort(ids)
	return strings.Join(ids, ",")
}

// TriggersJSON is the triggers map as JSON (keys sorted); ok is false when
// it is not known.
func TriggersJSON(m types.Map) (string, bool) {
	if m.IsUnknown() {
		return "", false
	}
	if m.IsNull() {
		return "null", true
	}
	out := map[string]string{}
	for k, v := range m.Elements() {
		s, ok := v.(types.String)
		if !ok || s.IsUnknown() {
			return "", false
		}
		out[k] = s.ValueString()
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// FirmwareJSON is the Value of a firmware scheduling.
func FirmwareJSON(id, version string) string {
	b, _ := json.Marshal([]string{id, version})
	return string(b)
}

// sameCommand tells whether u and v schedule the same thing on the same
// targets.
func (u UnfinishedScheduling) sameCommand(v UnfinishedScheduling) bool {
	return u.Key == v.Key && u.Triggers == v.Triggers && jsonvalue.Equal(u.Value, v.Value)
}

// unfinishedRegistry holds the unfinished schedulings seen in a walk,
// by Key.
type unfinishedRegistry struct {
	mu sync.Mutex
	m  map[string]UnfinishedScheduling
}

// rememberUnfinished records u in the registry.
func rememberUnfinished(d *connection.ProviderData, u UnfinishedScheduling) {
	if d == nil || u.Key == "" {
		return
	}
	connection.Registry[unfinishedRegistry](d).mu.Lock()
	defer connection.Registry[unfinishedRegistry](d).mu.Unlock()
	if connection.Registry[unfinishedRegistry](d).m == nil {
		connection.Registry[unfinishedRegistry](d).m = map[string]UnfinishedScheduling{}
	}
	connection.Registry[unfinishedRegistry](d).m[u.Key] = u
}

// findUnfinished returns the unfinished scheduling that want schedules
// again, if any.
func findUnfinished(d *connection.ProviderData, want UnfinishedScheduling) (UnfinishedScheduling, bool) {
	if d == nil {
		return UnfinishedScheduling{}, false
	}
	connection.Registry[unfinishedRegistry](d).mu.Lock()
	defer connection.Registry[unfinishedRegistry](d).mu.Unlock()
	u, ok := connection.Registry[unfinishedRegistry](d).m[want.Key]
	if !ok || !u.sameCommand(want) {
		return UnfinishedScheduling{}, false
	}
	return u, true
}

// PrivateData is the private state of a request or response.
type PrivateData interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// getMark reads the scheduling stored under key in private.
func getMark(ctx context.Context, private PrivateData, key string) (UnfinishedScheduling, bool) {
	if private == nil {
		return UnfinishedScheduling{}, false
	}
	raw, _ := private.GetKey(ctx, key)
	var u UnfinishedScheduling
	if len(raw) == 0 || json.Unmarshal(raw, &u) != nil || u.Key == "" {
		return UnfinishedScheduling{}, false
	}
	return u, true
}

// setMark stores u under key in private; a zero u removes the key.
func setMark(ctx context.Context, private PrivateData, key string, u *UnfinishedScheduling, diags *diag.Diagnostics) {
	if private == nil {
		return
	}
	var raw []byte
	if u != nil {
		var err error
		if raw, err = json.Marshal(u); err != nil {
			diags.AddError("Cannot record the unfinished wait", err.Error())
			return
		}
	}
	diags.Append(private.SetKey(ctx, key, raw)...)
}

// MarkWait records in the private state of an object whether its wait
// succeeded: u when it did not, nothing when it did.
func MarkWait(ctx context.Context, private PrivateData, u UnfinishedScheduling, ok bool, diags *diag.Diagnostics) {
	if ok {
		setMark(ctx, private, unfinishedKey, nil, diags)
		return
	}
	setMark(ctx, private, unfinishedKey, &u, diags)
}

// NoteRead remembers, in Read, an object whose private state marks an
// unfinished wait.
func NoteRead(ctx context.Context, d *connection.ProviderData, private PrivateData) {
	if u, ok := getMark(ctx, private, unfinishedKey); ok {
		rememberUnfinished(d, u)
	}
}

// NoteDelete remembers, in Delete, an unfinished scheduling being forgotten:
// the one its planned private state names (a replacement planned after a
// refresh), or else fromState when the state shows a wait that did not
// succeed (stateUnfinished).
func NoteDelete(ctx context.Context, d *connection.ProviderData, private PrivateData, fromState UnfinishedScheduling, stateUnfinished bool) {
	for _, key := range []string{adoptKey, unfinishedKey} {
		if u, ok := getMark(ctx, private, key); ok {
			rememberUnfinished(d, u)
			return
		}
	}
	if stateUnfinished {
		rememberUnfinished(d, fromState)
	}
}

// PlanAdoption, in ModifyPlan of a create, plans to adopt the unfinished
// scheduling that planned schedules again, if any: it marks the planned
// private state and warns. what names the scheduling ("job \"reboot\" of
// device dev-1").
//
// It returns the scheduling adopted: the caller plans its scheduled_at (and
// devices) as known values. Terraform then requires the plan it makes
// again in the apply to show the same values, which only an adoption does:
// a create that would send instead fails with an inconsistent plan, before
// anything is sent (with create_before_destroy, Create runs before Delete
// could remember the scheduling).
func PlanAdoption(ctx context.Context, d *connection.ProviderData, planned UnfinishedScheduling, private PrivateData, what, noun string, diags *diag.Diagnostics) (UnfinishedScheduling, bool) {
	u, ok := findUnfinished(d, planned)
	if !ok {
		return u, false
	}
	setMark(ctx, private, adoptKey, &u, diags)
	diags.AddWarning("The replacement of an unfinished "+noun+" sends nothing",
		fmt.Sprintf("The %s was scheduled at %s and its wait did not succeed, so Terraform plans to replace it. "+
			"The replacement does not send it again: it checks that the devices still show that scheduling and "+
			"waits again (with wait = false, it only records it). To send it again, change triggers. With "+
			"create_before_destroy, the apply stops before sending anything (Terraform reports an inconsistent "+
			"final plan): run terraform untaint on the resource instead, and apply to wait again in place.",
			what, u.ScheduledAt))
	return u, true
}

// TakeAdoption, in Create, returns the unfinished scheduling that planned
// schedules again, if Delete or Read remembered one in this walk, and
// forgets it: it is adopted once.
func TakeAdoption(d *connection.ProviderData, planned UnfinishedScheduling, known bool) (UnfinishedScheduling, bool) {
	if !known {
		return UnfinishedScheduling{}, false
	}
	u, ok := findUnfinished(d, planned)
	if ok {
		connection.Registry[unfinishedRegistry](d).mu.Lock()
		delete(connection.Registry[unfinishedRegistry](d).m, u.Key)
		connection.Registry[unfinishedRegistry](d).mu.Unlock()
	}
	return u, ok
}

// VerifyAdoption, in Create, reads the devices of the adopted scheduling u
// of kind and checks that each still shows it: a record that matches (the
// value or firmware) and is not scheduled after u. It returns the devices
// read; otherwise it adds an error that says nothing was sent, and returns
// false.
func VerifyAdoption(ctx context.Context, d *connection.ProviderData, u UnfinishedScheduling, kind fleetstatus.Kind, matches func(fleetstatus.Device) bool, what string, diags *diag.Diagnostics) ([]fleetstatus.Device, bool) {
	got, err := fleetstatus.ReadIDs(ctx, d.Client, u.Devices, kind, 0)
	summary := "Cannot adopt the unfinished " + what
	if err != nil {
		diags.AddError(summary, "Reading the devices failed: "+err.Error()+". Nothing was sent; applying again "+
			"checks again.")
		return nil, false
	}
	var other []string
	for _, dev := range got {
		switch {
		case !dev.Found:
			other = append(other, dev.ID+" (no record)")
		case !matches(dev) || ScheduledLater(dev.ScheduledAt, u.ScheduledAt):
			other = append(other, fmt.Sprintf("%s (scheduled at %s, status %s)", dev.ID, dev.ScheduledAt, dev.Status))
		}
	}
	if len(other) > 0 {
		diags.AddError(summary, fmt.Sprintf("The replacement of the %s scheduled at %s was to adopt it without "+
			"sending it again, but %d devices no longer show that scheduling: %s. Nothing was sent. To send it "+
			"again, change triggers.", what, u.ScheduledAt, len(other), connection.Abbreviate(other)))
		return got, false
	}
	diags.AddWarning("Adopted the unfinished "+what,
		fmt.Sprintf("The %s was scheduled at %s and its wait did not succeed; the devices still show that "+
			"scheduling, so it was not sent again. To send it again, change triggers.", what, u.ScheduledAt))
	return got, true
}
