package bulkwrite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// Write is one create (ID empty) or update of a bulk apply.
type Write struct {
	Key   string // the key of the device in the resource's map
	ID    string // empty: create
	Name  string
	Fleet string // empty: the workspace's default fleet (creates only)
}

// Outcome is what happened to one Write.
type Outcome struct {
	// Device is the device as the service answered, or as adopted; nil
	// when the write failed.
	Device *client.Device
	// Err tells why the write failed; nil on success.
	Err error
	// Adopted is set when the device was adopted after an ambiguous create.
	Adopted bool

	sent      time.Time // local time just before the request
	ambiguous bool      // the create failed ambiguously (before resolution)
}

// maxSerialCreateFailures is how many creates without a fleet are sent one
// at a time, while they fail, to learn the default fleet, before the others
// are sent concurrently without a fleet too.
const maxSerialCreateFailures = 3

// Result is the result of Devices.
type Result struct {
	Outcomes []Outcome // one per write, in order
	// Fleet is the fleet the creates without a fleet went to (the default
	// fleet), or "" when there were none or none was created.
	Fleet string
}

// Devices sends the writes to workspace ws, at most parallelism at a time.
// held are the IDs of the devices the resource already holds: an ambiguous
// create never adopts one of them. The creates without a fleet that are sent
// after the default fleet is known get it in writes.
func Devices(ctx context.Context, d *connection.ProviderData, ws string, writes []Write, parallelism int, held map[string]bool) Result {
	res := Result{Outcomes: make([]Outcome, len(writes))}
	if len(writes) == 0 {
		return res
	}
	// The shared list of ws then holds what the service answered (or is
	// forgotten when an outcome is not known).
	defer record(d, ws, res.Outcomes)

	// A write already sent is finished when Terraform is interrupted; no
	// write starts after that (see client.FinishOnceSent).
	wctx := client.FinishOnceSent(ctx)
	send := func(i int) {
		w, o := writes[i], &res.Outcomes[i]
		o.sent = time.Now()
		if w.ID == "" {
			o.Device, o.Err = d.Client.CreateDevice(wctx, ws, w.Name, w.Fleet)
			o.ambiguous = errors.Is(o.Err, client.ErrAmbiguous)
		} else {
			o.Device, o.Err = d.UpdateDevice(wctx, ws, w.ID, w.Name, w.Fleet)
		}
		if o.Err != nil {
			o.Device = nil
		}
	}

	done := make([]bool, len(writes))
	// Creates without a fleet: one at a time until the default fleet is
	// known. After maxSerialCreateFailures failures in a row, the others go
	// without a fleet too (the service puts them in the same default fleet).
	failures := 0
	for i, w := range writes {
		if w.ID != "" || w.Fleet != "" {
			continue
		}
		if res.Fleet != "" {
			writes[i].Fleet = res.Fleet
			continue
		}
		if failures >= maxSerialCreateFailures || ctx.Err() != nil {
			break
		}
		send(i)
		done[i] = true
		if o := res.Outcomes[i]; o.Err == nil {
			res.Fleet = o.Device.FleetID()
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
		res.Outcomes[i].Err = fmt.Errorf("not sent: the operation was interrupted (%w)", context.Cause(ctx))
	}

	adoptAmbiguous(ctx, d, ws, writes, res.Outcomes, held)
	if res.Fleet == "" {
		for i, w := range writes {
			if o := res.Outcomes[i]; w.ID == "" && w.Fleet == "" && o.Device != nil {
				res.Fleet = o.Device.FleetID()
				break
			}
		}
	}
	return res
}

// record hands the devices the service answered to the shared list of ws
// (connection.ProviderData.WroteDevices), so that the next read, such as
// the check of the next resource's create for a second copy, does not list
// the workspace again. When any write failed, its outcome may be unknown,
// and the list is forgotten instead.
func record(d *connection.ProviderData, ws string, outcomes []Outcome) {
	answered := make([]client.Device, 0, len(outcomes))
	// Each answer was decoded alone, with its own copy of the account,
	// workspace and fleet: the devices kept in the shared list share one.
	share := client.ShareRepeated()
	for _, o := range outcomes {
		if o.Err != nil || o.Device == nil {
			d.WroteDevice(ws, nil)
			return
		}
		answered = append(answered, *o.Device)
		share(&answered[len(answered)-1])
	}
	d.WroteDevices(ws, answered)
}

// adoptAmbiguous resolves the ambiguous creates among outcomes by the
// adoption rule of single creates (objects.ResolveCreates), with one listing of
// the devices of ws for all of them (and of its fleets, when a create named
// no fleet). Devices held by the resource, or answered to another write,
// are owned, so never adopted.
func adoptAmbiguous(ctx context.Context, d *connection.ProviderData, ws string, writes []Write, outcomes []Outcome, held map[string]bool) {
	for id := range held {
		d.Own("device", id)
	}
	var pending []int
	needDefault := false
	for i, o := range outcomes {
		switch {
		case o.ambiguous:
			pending = append(pending, i)
			needDefault = needDefault || writes[i].Fleet == ""
		case o.Device != nil:
			d.Own("device", o.Device.ID)
		}
	}
	if len(pending) == 0 {
		return
	}
	as := make([]objects.AmbiguousCreate, len(pending))
	for k, i := range pending {
		w := writes[i]
		as[k] = objects.AmbiguousCreate{Kind: "device", Name: w.Name, Summary: "Cannot create device " + connection.Quote(w.Name) + " in workspace " + ws,
			Ws: ws, Cause: outcomes[i].Err, Sent: outcomes[i].sent, Import: ImportHint(ws, w.Fleet)}
	}
	defaultFleet := ""
	list := func(ctx context.Context) ([]client.Device, error) {
		if needDefault && defaultFleet == "" {
			fleets, err := d.Client.ListFleets(ctx, ws)
			if err != nil {
				return nil, err
			}
			defaultFleet = objects.DefaultFleetOf(fleets)
		}
		all, err := d.Client.ListDevices(ctx, ws)
		tflog.Debug(ctx, "listed the devices of the workspace to resolve ambiguous creates",
			map[string]any{"workspace_id": ws, "ambiguous": len(pending), "listed": len(all)})
		return all, err
	}
	found, diags := objects.ResolveCreates(ctx, d, as, list,
		func(k int, dev client.Device) objects.Candidate {
			w := writes[pending[k]]
			return objects.DeviceCandidate(dev, w.Name, w.Fleet, defaultFleet)
		},
		func(dev client.Device) string { return dev.ID })
	for k, i := range pending {
		o := &outcomes[i]
		if found[k] == nil {
			o.Err = errors.New(diagDetails(diags[k]))
			continue
		}
		o.Device, o.Err, o.Adopted = found[k], nil, true
	}
}

// ImportHint says how a device that an ambiguous create of a
// zdm_fleet_devices may have made comes under that resource: never as a
// zdm_device, which would manage it a second time.
func ImportHint(ws, fleet string) string {
	if fleet == "" {
		fleet = "<fleet_id>"
	}
	return "not as a zdm_device (which would manage it a second time) but into this zdm_fleet_devices: terraform " +
		"state rm <address of this zdm_fleet_devices>, then terraform import <address of this zdm_fleet_devices> " +
		ws + "/" + fleet + ", which takes the fleet's devices keyed by name; keys of the configuration that differ take " +
		"the devices of their names at the next apply."
}

// diagDetails joins the details of the errors of diags.
func diagDetails(diags diag.Diagnostics) string {
	var parts []string
	for _, e := range diags.Errors() {
		parts = append(parts, e.Detail())
	}
	return strings.Join(parts, " ")
}
