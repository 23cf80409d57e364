package devices

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/kit"
)

// Bulk writes of devices: the creates and updates of one apply of
// zdm_fleet_devices, sent concurrently, with the outcome of each kept under
// the key of the device in the resource's map.
//
//   - Creates that do not name a fleet (the resource has no fleet yet) are
//     sent one at a time until one succeeds: its answer names the default
//     fleet, and the other creates then name that fleet, so every device of
//     one apply lands in the same fleet.
//   - Everything else runs at most `parallelism` at a time.
//   - Creates that fail ambiguously (client.ErrAmbiguous: the service may
//     have created the device) are resolved together by one list of the
//     workspace and the adoption rule of single creates (adoptCreated),
//     never matching a device the resource already holds or got in this
//     apply.
//   - Nothing is retried here beyond what the client retries; a failure is
//     recorded and the other writes go on.
//   - When Terraform is interrupted, no write starts any more, the writes
//     already sent are finished (client.FinishOnceSent) and their ambiguous
//     creates still resolved (client.ResolveContext); the keys never sent
//     are reported as such.

// deviceWrite is one create (id empty) or update of a bulk apply.
type deviceWrite struct {
	key   string
	id    string // empty: create
	name  string
	fleet string // empty: the workspace's default fleet (creates only)
}

// deviceOutcome is what happened to one deviceWrite.
type deviceOutcome struct {
	// device is the device as the service answered, or as adopted; nil
	// when the write failed.
	device *client.Device
	// err tells why the write failed; nil on success.
	err error
	// adopted is set when the device was adopted after an ambiguous create.
	adopted bool

	sent      time.Time // local time just before the request
	ambiguous bool      // the create failed ambiguously (before resolution)
}

// maxSerialCreateFailures is how many creates without a fleet are sent one
// at a time, while they fail, to learn the default fleet, before the others
// are sent concurrently without a fleet too.
const maxSerialCreateFailures = 3

// bulkWrites is the result of writeDevices.
type bulkWrites struct {
	outcomes []deviceOutcome // one per write, in order
	// fleet is the fleet the creates without a fleet went to (the default
	// fleet), or "" when there were none or none was created.
	fleet string
}

// writeDevices sends the writes to workspace ws, at most parallelism at a
// time. held are the IDs of the devices the resource already holds: an
// ambiguous create never adopts one of them.
func writeDevices(ctx context.Context, d *connection.ProviderData, ws string, writes []deviceWrite, parallelism int, held map[string]bool) bulkWrites {
	res := bulkWrites{outcomes: make([]deviceOutcome, len(writes))}
	if len(writes) == 0 {
		return res
	}
	// The shared list of ws then holds what the service answered (or is
	// forgotten when an outcome is not known).
	defer recordWrites(d, ws, res.outcomes)

	// A write already sent is finished when Terraform is interrupted; no
	// write starts after that (see client.FinishOnceSent).
	wctx := client.FinishOnceSent(ctx)
	send := func(i int) {
		w, o := writes[i], &res.outcomes[i]
		o.sent = time.Now()
		if w.id == "" {
			o.device, o.err = d.Client.CreateDevice(wctx, ws, w.name, w.fleet)
			o.ambiguous = errors.Is(o.err, client.ErrAmbiguous)
		} else {
			o.device, o.err = d.Client.UpdateDevice(wctx, ws, w.id, w.name, w.fleet)
		}
		if o.err != nil {
			o.device = nil
		}
	}

	done := make([]bool, len(writes))
	// Creates without a fleet: one at a time until the default fleet is
	// known. After maxSerialCreateFailures failures in a row, the others go
	// without a fleet too (the service puts them in the same default fleet).
	failures := 0
	for i, w := range writes {
		if w.id != "" || w.fleet != "" {
			continue
		}
		if res.fleet != "" {
			writes[i].fleet = res.fleet
			continue
		}
		if failures >= maxSerialCreateFailures || ctx.Err() != nil {
			break
		}
		send(i)
		done[i] = true
		if o := res.outcomes[i]; o.err == nil {
			res.fleet = o.device.FleetID
		} else {
			failures++
		}
	}

	// Everything else, concurrently.
	var todo []int
	for i := range writes {
		if !done[i] {
			todo = append(todo, i)
		}
	}
	started := connection.RunBounded(ctx, len(todo), parallelism, func(j int) { send(todo[j]) })
	for _, i := range todo[started:] {
		res.outcomes[i].err = fmt.Errorf("not sent: the operation was interrupted (%w)", context.Cause(ctx))
	}

	adoptAmbiguousDevices(ctx, d, ws, writes, res.outcomes, held)
	if res.fleet == "" {
		for i, w := range writes {
			if o := res.outcomes[i]; w.id == "" && w.fleet == "" && o.device != nil {
				res.fleet = o.device.FleetID
				break
			}
		}
	}
	return res
}

// recordWrites hands the devices the service answered to the shared list
// of ws (connection.ProviderData.WroteDevices), so that the next read, such
// as the check of the next resource's create for a second copy, does not
// list the workspace again. When any write failed, its outcome may be
// unknown, and the list is forgotten instead.
func recordWrites(d *connection.ProviderData, ws string, outcomes []deviceOutcome) {
	answered := make([]client.Device, 0, len(outcomes))
	for _, o := range outcomes {
		if o.err != nil || o.device == nil {
			d.WroteDevice(ws, nil)
			return
		}
		answered = append(answered, *o.device)
	}
	d.WroteDevices(ws, answered)
}

// adoptAmbiguousDevices resolves the ambiguous creates among outcomes by
// the adoption rule of single creates (resolveCreates), with one listing of
// the devices of ws for all of them (and of its fleets, when a create named
// no fleet). Devices held by the resource, or answered to another write,
// are owned, so never adopted.
func adoptAmbiguousDevices(ctx context.Context, d *connection.ProviderData, ws string, writes []deviceWrite, outcomes []deviceOutcome, held map[string]bool) {
	for id := range held {
		d.Own("device", id)
	}
	var pending []int
	needDefault := false
	for i, o := range outcomes {
		switch {
		case o.ambiguous:
			pending = append(pending, i)
			needDefault = needDefault || writes[i].fleet == ""
		case o.device != nil:
			d.Own("device", o.device.ID)
		}
	}
	if len(pending) == 0 {
		return
	}
	as := make([]kit.AmbiguousCreate, len(pending))
	for k, i := range pending {
		w := writes[i]
		as[k] = kit.AmbiguousCreate{Kind: "device", Name: w.name, Summary: "Cannot create device " + connection.Quote(w.name) + " in workspace " + ws,
			Ws: ws, Cause: outcomes[i].err, Sent: outcomes[i].sent, Import: fleetDevicesImportHint(ws, w.fleet)}
	}
	defaultFleet := ""
	list := func(ctx context.Context) ([]client.Device, error) {
		if needDefault && defaultFleet == "" {
			fleets, err := d.Client.ListFleets(ctx, ws)
			if err != nil {
				return nil, err
			}
			defaultFleet = kit.DefaultFleetOf(fleets)
		}
		all, err := d.Client.ListDevices(ctx, ws)
		tflog.Debug(ctx, "listed the devices of the workspace to resolve ambiguous creates",
			map[string]any{"workspace_id": ws, "ambiguous": len(pending), "listed": len(all)})
		return all, err
	}
	found, diags := kit.ResolveCreates(ctx, d, as, list,
		func(k int, dev client.Device) kit.Candidate {
			w := writes[pending[k]]
			return kit.DeviceCandidate(dev, w.name, w.fleet, defaultFleet)
		},
		func(dev client.Device) string { return dev.ID })
	for k, i := range pending {
		o := &outcomes[i]
		if found[k] == nil {
			o.err = errors.New(diagDetails(diags[k]))
			continue
		}
		o.device, o.err, o.adopted = found[k], nil, true
	}
}

// diagDetails joins the details of the errors of diags.
func diagDetails(diags diag.Diagnostics) string {
	var parts []string
	for _, e := range diags.Errors() {
		parts = append(parts, e.Detail())
	}
	return strings.Join(parts, " ")
}

// writeFailures describes the failed writes of a bulk apply, one line per
// key (the first connection.MaxListed with their reason, then the other
// keys), sorted by key; it returns "" when nothing failed.
func writeFailures(writes []deviceWrite, outcomes []deviceOutcome) (failed []string, detail string) {
	type failure struct{ key, line string }
	var fs []failure
	for i, o := range outcomes {
		if o.err == nil {
			continue
		}
		w := writes[i]
		verb := "create"
		if w.id != "" {
			verb = "update of " + w.id
		}
		fs = append(fs, failure{w.key, fmt.Sprintf("- %s (%s %s): %v", connection.Quote(w.key), verb, connection.Quote(w.name), o.err)})
	}
	if len(fs) == 0 {
		return nil, ""
	}
	sort.Slice(fs, func(a, b int) bool { return fs[a].key < fs[b].key })
	var b strings.Builder
	for i, f := range fs {
		failed = append(failed, f.key)
		if i < connection.MaxListed {
			b.WriteString(f.line)
			b.WriteByte('\n')
		}
	}
	if len(fs) > connection.MaxListed {
		rest := make([]string, 0, len(fs)-connection.MaxListed)
		for _, f := range fs[connection.MaxListed:] {
			rest = append(rest, connection.Quote(f.key))
		}
		fmt.Fprintf(&b, "- and %d more: %s\n", len(rest), strings.Join(rest, ", "))
	}
	return failed, b.String()
}

// adoptedKeys lists the keys whose device was adopted after an ambiguous
// create, as "key" (id), sorted.
func adoptedKeys(writes []deviceWrite, outcomes []deviceOutcome) []string {
	var out []string
	for i, o := range outcomes {
		if o.adopted {
			out = append(out, connection.Quote(writes[i].key)+" ("+o.device.ID+")")
		}
	}
	sort.Strings(out)
	return out
}

// fleetDevicesImportHint says how a device that an ambiguous create of a
// zdm_fleet_devices may have made comes under that resource: never as a
// zdm_device, which would manage it a second time.
func fleetDevicesImportHint(ws, fleet string) string {
	if fleet == "" {
		fleet = "<fleet_id>"
	}
	return "not as a zdm_device (which would manage it a second time) but into this zdm_fleet_devices: terraform " +
		"state rm <address of this zdm_fleet_devices>, then terraform import <address of this zdm_fleet_devices> " +
		ws + "/" + fleet + ", which takes the fleet's devices keyed by name."
}
