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
// workspace (no fleet named) holds the whole workspace. A send holds its
// fleets alone; moves into one fleet share it, so that the requests of a
// bulk move still run side by side, and a send waiting for a fleet keeps
// new moves into it waiting (a long bulk move does not starve it). A
// caller takes all its fleets at once and waits for nothing else while
// holding them, so two holds never wait for each other. Another provider
// configuration (an alias) is another process and another lock: it is not
// covered.
type fleetHolds struct {
	mu      sync.Mutex
	cond    *sync.Cond
	alone   map[fleetKey]int // sends holding a fleet (or a workspace: fleet "")
	shared  map[fleetKey]int // moves holding a fleet
	waiting map[fleetKey]int // sends waiting for a fleet
	inWS    map[string]int   // holds of any kind per workspace
}

type fleetKey struct{ workspace, fleet string }

func (h *fleetHolds) init() {
	if h.cond == nil {
		h.cond = sync.NewCond(&h.mu)
		h.alone, h.shared, h.waiting, h.inWS = map[fleetKey]int{}, map[fleetKey]int{}, map[fleetKey]int{}, map[string]int{}
	}
}

// HoldFleets holds the fleets of workspace ws (none: every fleet of it)
// still for a fleet-wide send, alone, waiting for the holds that overlap,
// and returns the release. Release it once the send's request has
// returned.
func (d *ProviderData) HoldFleets(ws string, fleets []string) (release func()) {
	h := &d.fleetHolds
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	keys := []fleetKey{{ws, ""}}
	if len(fleets) > 0 {
		keys = keys[:0]
		for _, f := range slices.Compact(slices.Sorted(slices.Values(fleets))) {
			keys = append(keys, fleetKey{ws, f})
		}
	}
	busy := func() bool {
		if h.alone[fleetKey{ws, ""}] > 0 || h.shared[fleetKey{ws, ""}] > 0 || (len(fleets) == 0 && h.inWS[ws] > 0) {
			return true
		}
		for _, k := range keys {
			if h.alone[k] > 0 || h.shared[k] > 0 {
				return true
			}
		}
		return false
	}
	for _, k := range keys {
		h.waiting[k]++
	}
	for busy() {
		h.cond.Wait()
	}
	for _, k := range keys {
		h.waiting[k]--
		h.alone[k]++
		h.inWS[ws]++
	}
	return h.releaser(h.alone, keys)
}

// holdMove holds fleet of workspace ws still for a move into it, shared
// with other moves, and returns the release.
func (d *ProviderData) holdMove(ws, fleet string) (release func()) {
	h := &d.fleetHolds
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	k := fleetKey{ws, fleet}
	busy := func() bool {
		if h.alone[fleetKey{ws, ""}] > 0 || h.waiting[fleetKey{ws, ""}] > 0 {
			return true
		}
		if fleet == "" {
			for key, n := range h.alone {
				if key.workspace == ws && n > 0 {
					return true
				}
			}
		}
		return h.alone[k] > 0 || h.waiting[k] > 0
	}
	for busy() {
		h.cond.Wait()
	}
	h.shared[k]++
	h.inWS[ws]++
	return h.releaser(h.shared, []fleetKey{k})
}

// releaser returns the release of the holds of keys in m.
func (h *fleetHolds) releaser(m map[fleetKey]int, keys []fleetKey) func() {
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, k := range keys {
			m[k]--
			h.inWS[k.workspace]--
		}
		h.cond.Broadcast()
	}
}

// UpdateDevice renames device id of workspace ws and moves it into fleet
// (see client.UpdateDevice), holding fleet still for the request
// (HoldFleets): a fleet-wide send of the same apply either sees the device
// in the fleet or reaches the fleet before it.
func (d *ProviderData) UpdateDevice(ctx context.Context, ws, id, name, fleet string) (*client.Device, error) {
	defer d.holdMove(ws, fleet)()
	return d.Client.UpdateDevice(ctx, ws, id, name, fleet)
}
