package connection

import (
	"context"
	"slices"
	"sync"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// Fleet membership held still: a fleet-wide send against a device move of
// the same apply.
//
// The gate of a fleet-wide send (scheduling.SendFleetCommand) reads which
// devices of the target fleets hold the command, then sends one request to
// the fleets. A device moved into a target fleet between the read and the
// request (zdm_device, zdm_fleet_devices and the bulk writer, in the same
// graph walk) would get the command a second time: the read did not see it
// in the fleet, the request reaches it there. Both run in this provider
// process, so the send holds its fleets from its read until its request has
// returned, and a move holds the fleet it moves into for its request: the
// move is either seen by the read or made after the request.
//
// The holds are per workspace and fleet; a send to every fleet of a
// workspace (no fleet named) holds the whole workspace. A caller takes all
// its fleets at once and waits for nothing else while holding them, so two
// holds never wait for each other. Another provider configuration (an
// alias) is another process and another lock: it is not covered.
type fleetHolds struct {
	mu   sync.Mutex
	cond *sync.Cond
	held map[fleetKey]bool // a fleet, or the whole workspace (fleet "")
	all  map[string]int    // the fleets held per workspace
}

type fleetKey struct{ workspace, fleet string }

// HoldFleets holds the fleets of workspace ws (none: every fleet of it)
// still against moves of this provider configuration, waiting for the
// holds of others that overlap, and returns the release. Release it once
// the request that depends on the membership has returned.
func (d *ProviderData) HoldFleets(ws string, fleets []string) (release func()) {
	h := &d.fleetHolds
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cond == nil {
		h.cond = sync.NewCond(&h.mu)
		h.held, h.all = map[fleetKey]bool{}, map[string]int{}
	}
	keys := []fleetKey{{ws, ""}}
	if len(fleets) > 0 {
		keys = keys[:0]
		for _, f := range slices.Compact(slices.Sorted(slices.Values(fleets))) {
			keys = append(keys, fleetKey{ws, f})
		}
	}
	busy := func() bool {
		if h.held[fleetKey{ws, ""}] || (len(fleets) == 0 && h.all[ws] > 0) {
			return true
		}
		for _, k := range keys {
			if h.held[k] {
				return true
			}
		}
		return false
	}
	for busy() {
		h.cond.Wait()
	}
	for _, k := range keys {
		h.held[k] = true
		if k.fleet != "" {
			h.all[ws]++
		}
	}
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, k := range keys {
			delete(h.held, k)
			if k.fleet != "" {
				h.all[ws]--
			}
		}
		h.cond.Broadcast()
	}
}

// UpdateDevice renames device id of workspace ws and moves it into fleet
// (see client.UpdateDevice), holding fleet still for the request
// (HoldFleets): a fleet-wide send of the same apply either sees the device
// in the fleet or reaches the fleet before it.
func (d *ProviderData) UpdateDevice(ctx context.Context, ws, id, name, fleet string) (*client.Device, error) {
	var fleets []string
	if fleet != "" {
		fleets = []string{fleet}
	}
	defer d.HoldFleets(ws, fleets)()
	return d.Client.UpdateDevice(ctx, ws, id, name, fleet)
}
