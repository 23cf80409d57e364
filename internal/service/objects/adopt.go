package objects

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// Adoption after an ambiguous create (see DESIGN.md, "Ambiguous creates are
// resolved by lookup"): when a create request was sent and no answer came,
// the object may exist. It is adopted only when a listing shows exactly one
// object that can only be ours:
//
//   - same name and same requested attributes (description; the fleet asked
//     for, or the workspace's default fleet when none was);
//   - not an object this provider configuration has read, created, adopted,
//     updated or imported during the operation (another resource manages
//     it);
//   - created at or after the request by the service's clock (see
//     client.EarliestServiceTime), not by this machine's.
//
// Several candidates, or none that is certain, are an error, never an
// adoption. None is never reported as "nothing was created": the request may
// still be processed, so the error says how to find the object by name and
// creation time, and how to import it.

// Candidate is what the adoption filter knows of a listed object.
type Candidate struct {
	ID        string
	CreatedAt string
	// Matches tells whether the object has the name and attributes the
	// create asked for.
	Matches bool
}

// adoptable returns the IDs of the candidates that can only be the object of
// a create sent when the service's clock showed at least since: matching,
// not owned, and created at or after since.
func adoptable(cands []Candidate, since time.Time, owned func(id string) bool) []string {
	var ids []string
	for _, c := range cands {
		if c.Matches && !owned(c.ID) && CreatedAtOrAfter(c.CreatedAt, since) {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// CreatedAtOrAfter reports whether the RFC 3339 timestamp createdAt is not
// before since, at the precision the service wrote: a creation time in whole
// seconds is compared with since truncated to the second. Unreadable
// timestamps do not match.
func CreatedAtOrAfter(createdAt string, since time.Time) bool {
	t, err := time.Parse(time.RFC3339Nano, createdAt)
	if err != nil {
		return false
	}
	if i := strings.IndexAny(createdAt, "."); i < 0 {
		since = since.Truncate(time.Second)
	} else {
		digits := 0
		for _, r := range createdAt[i+1:] {
			if r < '0' || r > '9' {
				break
			}
			digits++
		}
		unit := time.Second
		for range min(digits, 9) {
			unit /= 10
		}
		since = since.Truncate(unit)
	}
	return !t.Before(since)
}

// AmbiguousCreate is a create whose outcome is unknown.
type AmbiguousCreate struct {
	// Kind is "workspace", "fleet" or "device"; name the requested name.
	Kind, Name string
	// Summary is the summary of the errors.
	Summary string
	// Ws is the workspace of the object ("" for a workspace).
	Ws string
	// Cause is the error of the create.
	Cause error
	// Sent is the local time just before the request was sent.
	Sent time.Time
	// Import, when set, says how to bring the object under the resource
	// that asked for it, instead of an import of a zdm_<Kind>.
	Import string
}

// RecheckInterval is the wait between two listings of an ambiguous create
// that showed no candidate yet.
const RecheckInterval = time.Second

// ResolveCreate resolves the ambiguous create a: it lists the collection
// (list) with client.ResolveContext, so that an interrupt does not stop it,
// and returns the only adoptable object, with a warning. Otherwise it
// reports an error on diags and returns nil. With no candidate yet it lists
// again: until the resolve deadline after a timeout (the request may still
// be queued), once more otherwise.
func ResolveCreate[T any](ctx context.Context, d *connection.ProviderData, a AmbiguousCreate, list func(context.Context) ([]T, error), toCandidate func(T) Candidate, idOf func(T) string, diags *diag.Diagnostics) *T {
	found, ds := ResolveCreates(ctx, d, []AmbiguousCreate{a}, list, func(_ int, o T) Candidate { return toCandidate(o) }, idOf)
	diags.Append(ds[0]...)
	return found[0]
}

// ResolveCreates resolves several ambiguous creates of one collection by
// the rule of resolveCreate, with one listing per round for all of them
// (for the bulk writes of zdm_fleet_devices): toCandidate(i, o) tells
// whether o matches create i. It returns, for each create, the adopted
// object (nil when none) and its diagnostics (the warning of an adoption or
// the error). Creates are resolved in order, so an object adopted by one is
// owned, and never adopted by a later one.
func ResolveCreates[T any](ctx context.Context, d *connection.ProviderData, as []AmbiguousCreate, list func(context.Context) ([]T, error), toCandidate func(int, T) Candidate, idOf func(T) string) ([]*T, []diag.Diagnostics) {
	found := make([]*T, len(as))
	diags := make([]diag.Diagnostics, len(as))
	pending := make([]int, len(as))
	for i := range as {
		pending[i] = i
	}
	rctx, cancel := d.Client.ResolveContext(ctx)
	defer cancel()
	for listing := 1; len(pending) > 0; listing++ {
		all, err := list(rctx)
		if err != nil {
			for _, i := range pending {
				diags[i].AddError(as[i].Summary, as[i].mayExist("Listing the "+as[i].Kind+"s to find out failed: "+err.Error()+".", time.Time{}))
			}
			break
		}
		byID := make(map[string]int, len(all))
		for k := range all {
			byID[idOf(all[k])] = k
		}
		deadline, _ := rctx.Deadline()
		var again []int
		for _, i := range pending {
			a := as[i]
			since, ok := d.Client.EarliestServiceTime(a.Sent)
			if !ok {
				diags[i].AddError(a.Summary, a.mayExist("The service sends no Date header, so the provider cannot tell which "+
					a.Kind+"s were created after the request.", time.Time{}))
				continue
			}
			cands := make([]Candidate, 0, 4)
			for _, o := range all {
				if c := toCandidate(i, o); c.Matches {
					cands = append(cands, c)
				}
			}
			ids := adoptable(cands, since, func(id string) bool { return d.Owns(a.Kind, id) })
			switch {
			case len(ids) == 1:
				d.Own(a.Kind, ids[0])
				diags[i].AddWarning(adoptedWarning(a.Kind, a.Name, ids[0]))
				o := all[byID[ids[0]]]
				found[i] = &o
				continue
			case len(ids) > 1:
				diags[i].AddError(a.Summary, fmt.Sprintf("The connection failed after the create request of %s %s was sent "+
					"(%s). %d %ss named %s that no resource manages were created since the request (%s), so the provider cannot "+
					"tell which one is its own, and adopts none. Import the right one: %s",
					a.Kind, connection.Quote(a.Name), a.Cause.Error(), len(ids), a.Kind, connection.Quote(a.Name), strings.Join(ids, ", "), a.importHint()))
				continue
			}
			timedOut := errors.Is(a.Cause, context.DeadlineExceeded)
			if (timedOut || listing < 2) && time.Until(deadline) > RecheckInterval {
				again = append(again, i)
				continue
			}
			diags[i].AddError(a.Summary, a.mayExist(fmt.Sprintf("No %s named %s created since the request shows up yet "+
				"(listed %d times), but the request may still be processed.", a.Kind, connection.Quote(a.Name), listing), since))
		}
		pending = again
		if len(pending) == 0 {
			break
		}
		t := time.NewTimer(RecheckInterval)
		select {
		case <-t.C:
		case <-rctx.Done():
			t.Stop()
		}
	}
	return found, diags
}

// mayExist is the detail of an ambiguous create that was not resolved:
// what happened, why, and how to find and import the object.
func (a AmbiguousCreate) mayExist(why string, since time.Time) string {
	if since.IsZero() {
		since = a.Sent
	}
	when := since.UTC().Truncate(time.Second).Format(time.RFC3339)
	return fmt.Sprintf("The connection failed after the create request of %s %s was sent (%s), so the %s may have "+
		"been created. %s Do not apply again before checking: that could create a second %s, and the API cannot delete "+
		"one. Look for %ss named %s created at or after %s: %s If one shows up, import it: %s "+
		"If none shows up, applying again creates it.",
		a.Kind, connection.Quote(a.Name), a.Cause.Error(), a.Kind, why, a.Kind, a.Kind, connection.Quote(a.Name), when, a.findHint(when), a.importHint())
}

// findHint is the configuration that lists the objects of the create's kind
// named as asked and created at or after when.
func (a AmbiguousCreate) findHint(when string) string {
	switch a.Kind {
	case "device":
		return fmt.Sprintf(`data "zdm_devices" "find" { workspace_id = %s name = %s } lists them; keep those with `+
			`timecmp(created_at, %s) >= 0.`, connection.Quote(a.Ws), connection.Quote(a.Name), connection.Quote(when))
	case "fleet":
		return fmt.Sprintf(`data "zdm_fleets" "find" { workspace_id = %s } lists the fleets; keep those named %s with `+
			`timecmp(created_at, %s) >= 0.`, connection.Quote(a.Ws), connection.Quote(a.Name), connection.Quote(when))
	default:
		return fmt.Sprintf(`data "zdm_workspaces" "find" {} lists the workspaces; keep those named %s with `+
			`timecmp(created_at, %s) >= 0.`, connection.Quote(a.Name), connection.Quote(when))
	}
}

// importHint says how to import an object of the create's kind.
func (a AmbiguousCreate) importHint() string {
	if a.Import != "" {
		return a.Import
	}
	id := "<" + a.Kind + "_id>"
	if a.Ws != "" {
		id = a.Ws + "/" + id
	}
	return "terraform import <address of this zdm_" + a.Kind + "> " + id + " (or an import block with that id)."
}

// adoptedWarning is emitted when an ambiguous create was resolved by
// adopting the object found in a listing.
func adoptedWarning(kind, name, id string) (string, string) {
	return "Adopted a " + kind + " after an interrupted create",
		"The connection failed after the create request of " + kind + " " + connection.Quote(name) +
			" was sent, so the service may have created it. Exactly one matching " + kind + " that no resource manages, " +
			"created after the request by the service's clock, was found (" + ObjectRef(kind, name, id) +
			") and is now managed by Terraform instead of creating another one."
}

// DeviceCandidate is a listed device for the adoption of a device named
// name created in fleet (or, when fleet is "", in the workspace's default
// fleet defaultFleet; "" when it is not known: then nothing matches).
func DeviceCandidate(d client.Device, name, fleet, defaultFleet string) Candidate {
	want := fleet
	if want == "" {
		want = defaultFleet
	}
	return Candidate{ID: d.ID, CreatedAt: d.CreatedAt, Matches: d.Name == name && want != "" && d.FleetID() == want}
}

// DefaultFleetOf returns the ID of the default fleet among the fleets of a
// workspace: the only fleet named "default", or "" when there is none or
// more than one. The API contract says that a device created without a
// fleet goes to the workspace's default fleet, but not how to recognize that
// fleet: the provider recognizes it by its name, and a service that names it
// otherwise gets an error instead of an adoption, never a wrong adoption.
func DefaultFleetOf(fleets []client.Fleet) string {
	id := ""
	for _, f := range fleets {
		if f.Name == "default" {
			if id != "" {
				return ""
			}
			id = f.ID
		}
	}
	return id
}
