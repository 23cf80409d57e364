package devices

import (
	"context"
	"sync"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// The fresh lists of the checks for twins (twins.go), shared.
//
// A check needs a list of its fleet that started after its own create was
// answered: the walk's batched list holds our writes, not another
// process's. Many creates of one apply (a configuration of many zdm_device)
// each need one; a list that starts after several of them were answered
// serves them all. So the checks of one fleet queue for one list: a check
// joins the list that has not started yet, or queues one that starts when
// the list in flight ends. At most one list of a fleet is in flight, and
// one waits, however many creates end meanwhile.

// freshLists is the registry of these lists, per walk
// (connection.Registry); its zero value is ready.
type freshLists struct {
	mu     sync.Mutex
	places map[string]*freshPlace
}

// freshPlace is the queue of one fleet: next has not started (nil: none
// waits), running ends when the list in flight has (nil: none).
type freshPlace struct {
	next    *freshCall
	running chan struct{}
}

// freshCall is one list, done when items or err are set.
type freshCall struct {
	done  chan struct{}
	items []client.Device
	err   error
}

// fleetDevicesAfter returns the devices of fleet of ws from a list that
// starts after this call (shared with the calls that arrive before it
// starts), holding every device of fleet and perhaps others.
func fleetDevicesAfter(ctx context.Context, d *connection.ProviderData, ws, fleet string) ([]client.Device, error) {
	f := connection.Registry[freshLists](d)
	key := ws + "\x00" + fleet
	f.mu.Lock()
	if f.places == nil {
		f.places = map[string]*freshPlace{}
	}
	p := f.places[key]
	if p == nil {
		p = &freshPlace{}
		f.places[key] = p
	}
	if c := p.next; c != nil {
		f.mu.Unlock()
		select {
		case <-c.done:
			return c.items, c.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c := &freshCall{done: make(chan struct{})}
	p.next = c
	prev := p.running
	f.mu.Unlock()
	defer close(c.done)
	if prev != nil {
		select {
		case <-prev:
		case <-ctx.Done():
			f.mu.Lock()
			p.next = nil
			f.mu.Unlock()
			c.err = ctx.Err()
			return nil, c.err
		}
	}
	running := make(chan struct{})
	f.mu.Lock()
	p.next, p.running = nil, running // later calls queue the next list
	f.mu.Unlock()
	c.items, c.err = d.Client.ListDevicesOfFleets(ctx, ws, map[string]bool{fleet: true})
	close(running)
	return c.items, c.err
}
