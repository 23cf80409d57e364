package connection

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// batcher answers the reads of one kind of object (devices, fleets) of a
// workspace from one shared list call. Its rules, and why they never hide a
// change made before the operation started, are in DESIGN.md ("Batched
// reads").
type batcher[T any] struct {
	kind string
	list func(ctx context.Context, workspaceID string) ([]T, error)
	// listOf lists the objects of the fleets named (nil: all), dropping
	// the others as it reads; nil when the kind has no fleet (every list
	// is then whole).
	listOf func(ctx context.Context, workspaceID string, fleets map[string]bool) ([]T, error)
	get    func(ctx context.Context, workspaceID, id string) (*T, error)
	idOf   func(*T) string
	ttl    time.Duration
	now    func() time.Time
	// baseURL names the service in messages.
	baseURL string

	mu  sync.Mutex
	wss map[string]*batchWorkspace[T]
}

// defaultBatchTTL is how long a completed list answers reads, counted from
// the moment it was answered or last used, whichever is later. Terraform
// reads each resource just before planning it, so the reads of a refresh
// spread over the whole plan walk, with pauses as long as Terraform's own
// work on one resource (seconds for a zdm_fleet_devices of 10,000 devices on
// a loaded machine): a list that the reads keep using within a minute serves
// the whole refresh, where 5 seconds counted from the request listed a
// workspace of a million devices ten times in one plan.
const defaultBatchTTL = time.Minute

// batchAfterReads is the number of reads of a workspace from which reads are
// answered by listing; the reads before are plain GETs.
const batchAfterReads = 2

// batchWorkspace is what a batcher knows of one workspace.
type batchWorkspace[T any] struct {
	reads  int          // reads seen
	noList bool         // the service refused the list: GET only
	cur    *listCall[T] // latest list, in flight or done; nil after a write
	// fleets are the fleets whose objects reads of this workspace asked
	// for so far: the next list keeps theirs (see batcher.listed).
	fleets map[string]bool
	// missed: a list did not keep a fleet asked for; the lists after are
	// whole.
	missed bool
}

// listCall is one list request shared by the reads that join it. Its fields
// other than done and used are written once, before done is closed; used is
// guarded by the batcher's mu.
type listCall[T any] struct {
	done     chan struct{}
	answered time.Time
	used     time.Time // the last read it answered once complete
	items    []T
	err      error
	// fleets are the fleets whose objects the list kept (nil: it kept the
	// whole workspace). It holds every object of those fleets, and may
	// hold others (our writes); it never shows that an object of another
	// fleet is absent.
	fleets map[string]bool

	// byID finds items by ID, built by the first read that needs it
	// (lookup): a list that only answers whole-list reads, such as each
	// version our bulk writes make, never builds it.
	byIDOnce sync.Once
	byID     *Index[T]
}

// lookup returns the items' index by ID; c must be complete.
func (c *listCall[T]) lookup(idOf func(*T) string) *Index[T] {
	c.byIDOnce.Do(func() {
		c.byID = NewIndex(c.items, idOf)
	})
	return c.byID
}

// covers tells whether the list c holds every object of fleets (nil: of the
// whole workspace).
func (c *listCall[T]) covers(fleets []string) bool {
	if c.fleets == nil {
		return true
	}
	if fleets == nil {
		return false
	}
	for _, f := range fleets {
		if !c.fleets[f] {
			return false
		}
	}
	return true
}

// fresh tells whether the completed list c still answers reads at now: it
// was answered or last used less than ttl ago.
func (c *listCall[T]) fresh(now time.Time, ttl time.Duration) bool {
	return c.err == nil && (now.Sub(c.answered) < ttl || now.Sub(c.used) < ttl)
}

// use returns whether the completed list c still answers reads at now
// and, when it does, records the read (the caller holds the batcher's mu).
func (c *listCall[T]) use(now time.Time, ttl time.Duration) bool {
	if !c.fresh(now, ttl) {
		return false
	}
	c.used = now
	return true
}

func newBatcher[T any](kind string, list func(context.Context, string) ([]T, error),
	get func(context.Context, string, string) (*T, error), idOf func(*T) string) *batcher[T] {
	return &batcher[T]{
		kind: kind, list: list, get: get, idOf: idOf,
		ttl: defaultBatchTTL, now: time.Now,
		wss: make(map[string]*batchWorkspace[T]),
	}
}

// read returns the object id of workspace ws, from a shared list when it
// holds the object, else from a GET (whose error, such as a 404, is
// returned as is).
func (b *batcher[T]) read(ctx context.Context, ws, id string) (*T, error) {
	c, leader := b.join(ws)
	if c == nil {
		return b.get(ctx, ws, id)
	}
	if err := b.await(ctx, ws, c, leader); err != nil {
		return nil, err
	}
	if c.err == nil {
		if v, ok := c.lookup(b.idOf).Get(id); ok {
			cp := *v
			return &cp, nil
		}
		tflog.Debug(ctx, b.kind+" not in the list of its workspace; reading it alone",
			map[string]any{"id": id, "workspace_id": ws})
	} else if client.IsNotFound(c.err) {
		// Never "everything is gone": the list of a visible workspace
		// cannot be missing (see visibility.go).
		return nil, fmt.Errorf("the service at %s answered %s when listing the %ss of workspace %s; a 404 on a list "+
			"never means that its objects are gone, so the %s is kept in the state. Check base_url (host, port, http "+
			"or https, not storage_url, no proxy answering for the service) and the workspace_id",
			b.baseURL, c.err.Error(), b.kind, Quote(ws), b.kind)
	}
	return b.get(ctx, ws, id)
}

// all returns the objects of workspace ws: the shared list when one is in
// flight or fresh and covers fleets, else a new list that later reads
// share. With fleets nil it is every object of the workspace; otherwise it
// holds every object of fleets, and may hold others (see batcher.listed).
func (b *batcher[T]) all(ctx context.Context, ws string, fleets []string) ([]T, error) {
	c, err := b.listed(ctx, ws, fleets)
	if err != nil {
		return nil, err
	}
	return c.items, nil
}

// index is all with the objects' index by ID. Both are shared: callers
// must not modify them.
func (b *batcher[T]) index(ctx context.Context, ws string, fleets []string) ([]T, *Index[T], error) {
	c, err := b.listed(ctx, ws, fleets)
	if err != nil {
		return nil, nil, err
	}
	return c.items, c.lookup(b.idOf), nil
}

// listed returns the completed list that all and index answer from: one
// that holds every object of fleets (nil: of the whole workspace). The
// fleets asked for are remembered, and a new list keeps the objects of
// every fleet asked for or expected so far, dropping the others as it is
// read: a state that manages one fleet of a large workspace lists it once
// and holds that fleet's objects only. A read for a fleet that the current
// list did not keep lists again, the whole workspace from then on, so a
// plan lists a workspace at most twice. A read for the whole workspace
// gets a whole list, which then answers every read. It leaves the index by ID unbuilt: a whole-list read
// never pays for one.
func (b *batcher[T]) listed(ctx context.Context, ws string, fleets []string) (*listCall[T], error) {
	b.mu.Lock()
	w := b.workspace(ws)
	if b.listOf == nil {
		fleets = nil // every list is whole
	}
	if fleets != nil {
		if w.fleets == nil {
			w.fleets = map[string]bool{}
		}
		for _, f := range fleets {
			w.fleets[f] = true
		}
	}
	c, leader := w.cur, false
	if c != nil && !c.covers(fleets) {
		// A fleet the list did not keep: its fleets were not all known
		// when it was taken, and may not be next time either (an apply
		// that creates fleets one after another), so the next list is
		// whole, which answers every fleet: at most 2 lists.
		c, fleets = nil, nil
		w.missed = true
	}
	if w.missed {
		fleets = nil
	}
	if c != nil {
		select {
		case <-c.done:
			if !c.use(b.now(), b.ttl) {
				c = nil
			}
		default:
		}
	}
	if c == nil {
		c, leader = &listCall[T]{done: make(chan struct{})}, true
		if fleets != nil {
			c.fleets = maps.Clone(w.fleets)
		}
		w.cur = c
	}
	b.mu.Unlock()
	if err := b.await(ctx, ws, c, leader); err != nil {
		return nil, err
	}
	if c.err != nil {
		return nil, c.err
	}
	return c, nil
}

// await ends when the list call c of ws is done, having run it when the
// caller leads it, or when ctx ends first (its error).
func (b *batcher[T]) await(ctx context.Context, ws string, c *listCall[T], leader bool) error {
	if leader {
		b.run(ctx, ws, c)
	}
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// workspace is what b knows of ws, made on first use; b.mu is held.
func (b *batcher[T]) workspace(ws string) *batchWorkspace[T] {
	w := b.wss[ws]
	if w == nil {
		w = &batchWorkspace[T]{}
		b.wss[ws] = w
	}
	return w
}

// join returns the list call that a read of ws uses, and whether the caller
// leads it (must run it). A nil call means: read with a GET.
func (b *batcher[T]) join(ws string) (*listCall[T], bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.workspace(ws)
	w.reads++
	if w.noList {
		return nil, false
	}
	if c := w.cur; c != nil {
		select {
		case <-c.done:
			if c.use(b.now(), b.ttl) {
				return c, false
			}
		default:
			return c, false // in flight
		}
	}
	if w.reads < batchAfterReads {
		return nil, false
	}
	// A read by ID names no fleet: it uses the current list, whatever it
	// keeps (a miss is read alone), and a new list of its is whole, since
	// a list that kept other fleets would send each read of this one to a
	// GET of its own.
	c := &listCall[T]{done: make(chan struct{})}
	w.cur = c
	return c, true
}

// expect records that this configuration manages or reads fleet of ws, so
// that the next list of ws keeps its objects (see listed): a zdm_fleet read
// names its fleet before the zdm_fleet_devices of that fleet lists.
func (b *batcher[T]) expect(ws, fleet string) {
	if b.listOf == nil || fleet == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.workspace(ws)
	if w.fleets == nil {
		w.fleets = map[string]bool{}
	}
	w.fleets[fleet] = true
}

// run performs the list call c of ws and publishes its result.
func (b *batcher[T]) run(ctx context.Context, ws string, c *listCall[T]) {
	defer close(c.done)
	var items []T
	var err error
	if c.fleets != nil {
		items, err = b.listOf(ctx, ws, c.fleets)
	} else {
		items, err = b.list(ctx, ws)
	}
	c.answered = b.now()
	if err != nil {
		c.err = err
		if refusesList(err) {
			tflog.Warn(ctx, "the service refused to list the "+b.kind+"s of the workspace; reading them one by one",
				map[string]any{"workspace_id": ws, "error": err.Error()})
			b.mu.Lock()
			b.wss[ws].noList = true
			b.mu.Unlock()
		}
		return
	}
	c.items = items
	fields := map[string]any{"workspace_id": ws, "count": len(items)}
	if c.fleets != nil {
		fields["fleets"] = len(c.fleets)
	}
	tflog.Debug(ctx, "listed the "+b.kind+"s of the workspace to answer reads", fields)
}

// wrote records our write of v to ws, as the service answered it: a fresh
// completed list of ws then holds v (replacing the object of its ID, or
// added), so that the next reads see the write without listing again. A
// list still in flight, which may or may not hold the write, is forgotten,
// as is any list when v is nil (a write whose outcome is unknown).
func (b *batcher[T]) wrote(ws string, v *T) {
	if v == nil {
		b.forget(ws)
		return
	}
	b.wroteAll(ws, []T{*v})
}

// wroteAll records our writes of vs to ws, as the service answered them,
// as wrote does for one: the list is copied once for all of them, so a bulk
// write of ten thousand devices costs one copy of the workspace's list, not
// a list request at the next read.
func (b *batcher[T]) wroteAll(ws string, vs []T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.wss[ws]
	if w == nil || w.cur == nil {
		return
	}
	c := w.cur
	w.cur = nil
	select {
	case <-c.done:
	default:
		return // in flight
	}
	if !c.fresh(b.now(), b.ttl) {
		return
	}
	written := make(map[string]int, len(vs)) // ID -> index in vs, the last write of an ID wins
	for i := range vs {
		written[b.idOf(&vs[i])] = i
	}
	replaces := false
	for i := range c.items {
		if _, ok := written[b.idOf(&c.items[i])]; ok {
			replaces = true
			break
		}
	}
	var items []T
	if replaces {
		// An object of the list changes: a new copy, so that the lists
		// handed out stay as they were.
		items = make([]T, 0, len(c.items)+len(vs))
		for i := range c.items {
			if j, ok := written[b.idOf(&c.items[i])]; ok {
				items = append(items, vs[j])
				delete(written, b.idOf(&vs[j]))
				continue
			}
			items = append(items, c.items[i])
		}
	} else {
		// Only new objects (creates): they are appended after the end of
		// the current list, which the lists handed out do not reach (c is
		// the latest list, and only the latest list is ever appended to),
		// so the copies happen only as the array grows.
		items = c.items
	}
	for i := range vs {
		if j, ok := written[b.idOf(&vs[i])]; ok && j == i {
			items = append(items, vs[i])
		}
	}
	next := &listCall[T]{done: make(chan struct{}), answered: c.answered, used: c.used, items: items, fleets: c.fleets}
	close(next.done)
	w.cur = next
}

// forget drops the list of ws after a write of ours to it.
func (b *batcher[T]) forget(ws string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if w := b.wss[ws]; w != nil {
		w.cur = nil
	}
}

// refusesList tells whether err is the service's final refusal to list (a
// 4xx answer other than 429), after which listing again is pointless.
func refusesList(err error) bool {
	var apiErr *client.APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode >= 400 && apiErr.StatusCode < 500 &&
		apiErr.StatusCode != http.StatusTooManyRequests
}

// batchedReads are the batchers of one provider configuration.
type batchedReads struct {
	devices *batcher[client.Device]
	fleets  *batcher[client.Fleet]
}

// NewBatchedReads returns the batchers of devices and fleets that read with
// c. Every successful list or read of a workspace's objects is reported to
// saw: it proves the workspace visible (see visibility.go).
func NewBatchedReads(c *client.Client, saw func(ws string)) batchedReads {
	r := batchedReads{
		devices: newBatcher("device", provingList(c.ListDevices, saw), provingGet(c.GetDevice, saw), deviceID),
		fleets: newBatcher("fleet", provingList(c.ListFleets, saw), provingGet(c.GetFleet, saw),
			func(f *client.Fleet) string { return f.ID }),
	}
	r.devices.listOf = func(ctx context.Context, ws string, fleets map[string]bool) ([]client.Device, error) {
		items, err := c.ListDevicesOfFleets(ctx, ws, fleets)
		if err == nil {
			saw(ws)
		}
		return items, err
	}
	r.devices.baseURL, r.fleets.baseURL = c.BaseURL(), c.BaseURL()
	return r
}

// provingList wraps a list of a workspace's objects so that its success is
// reported to saw.
func provingList[T any](list func(context.Context, string) ([]T, error), saw func(string)) func(context.Context, string) ([]T, error) {
	return func(ctx context.Context, ws string) ([]T, error) {
		items, err := list(ctx, ws)
		if err == nil {
			saw(ws)
		}
		return items, err
	}
}

// provingGet wraps a read of one object of a workspace so that its success
// is reported to saw.
func provingGet[T any](get func(context.Context, string, string) (*T, error), saw func(string)) func(context.Context, string, string) (*T, error) {
	return func(ctx context.Context, ws, id string) (*T, error) {
		v, err := get(ctx, ws, id)
		if err == nil {
			saw(ws)
		}
		return v, err
	}
}
