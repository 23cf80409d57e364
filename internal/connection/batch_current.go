package connection

import "github.com/zdm/terraform-provider-zdm/internal/client"

// current returns the objects of the completed list of ws that still
// answers reads and holds every object of fleets (nil: of the whole
// workspace), without sending any request; false when there is none (no
// list yet, one in flight, stale, failed, or keeping other fleets).
func (b *batcher[T]) current(ws string, fleets []string) ([]T, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.wss[ws]
	if w == nil || w.cur == nil {
		return nil, false
	}
	c := w.cur
	select {
	case <-c.done:
	default:
		return nil, false
	}
	if !c.fresh(b.now(), b.ttl) || !c.covers(fleets) {
		return nil, false
	}
	return c.items, true
}

// ListedFleetDevices returns the shared list of devices of ws that the
// reads of this configuration already hold and that holds every device of
// fleet, without a request (see batcher.current); false when there is
// none. Callers pick fleet's devices by their FleetID and must not modify
// them.
func (d *ProviderData) ListedFleetDevices(ws, fleet string) ([]client.Device, bool) {
	if d.Batch.devices == nil {
		return nil, false
	}
	return d.Batch.devices.current(ws, fleetList(fleet))
}

// ListedFleets is ListedFleetDevices for the fleets of ws.
func (d *ProviderData) ListedFleets(ws string) ([]client.Fleet, bool) {
	if d.Batch.fleets == nil {
		return nil, false
	}
	return d.Batch.fleets.current(ws, nil)
}
