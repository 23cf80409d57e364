package connection

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// fakeService is a device collection with counted list and get calls. A list
// blocks while gate is set, until the gate is closed.
type fakeService struct {
	mu      sync.Mutex
	devices map[string]map[string]client.Device // workspace -> id -> device
	listErr error
	gate    chan struct{}

	lists, gets atomic.Int64
}

func newFakeService(ws string, n int) *fakeService {
	s := &fakeService{devices: map[string]map[string]client.Device{ws: {}}}
	for i := range n {
		s.put(ws, fmt.Sprintf("dev-%d", i), fmt.Sprintf("name-%d", i))
	}
	return s
}

func (s *fakeService) put(ws, id, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.devices[ws] == nil {
		s.devices[ws] = map[string]client.Device{}
	}
	s.devices[ws][id] = client.Device{ID: id, Name: name, Place: &client.Place{WorkspaceID: ws}}
}

func (s *fakeService) remove(ws, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.devices[ws], id)
}

func (s *fakeService) list(ctx context.Context, ws string) ([]client.Device, error) {
	s.lists.Add(1)
	s.mu.Lock()
	gate, listErr := s.gate, s.listErr
	s.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if listErr != nil {
		return nil, listErr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]client.Device, 0, len(s.devices[ws]))
	for _, d := range s.devices[ws] {
		out = append(out, d)
	}
	return out, nil
}

func (s *fakeService) get(ctx context.Context, ws, id string) (*client.Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.gets.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.devices[ws][id]
	if !ok {
		return nil, &client.APIError{StatusCode: http.StatusNotFound, Method: http.MethodGet, Path: "/v3/workspaces/" + ws + "/devices/" + id}
	}
	return &d, nil
}

func (s *fakeService) setGate(g chan struct{}) {
	s.mu.Lock()
	s.gate = g
	s.mu.Unlock()
}

func (s *fakeService) counts() (lists, gets int64) {
	return s.lists.Load(), s.gets.Load()
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTestBatcher(s *fakeService) (*batcher[client.Device], *fakeClock) {
	b := newBatcher("device", s.list, s.get, func(d *client.Device) string { return d.ID })
	clock := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	b.now = clock.now
	return b, clock
}

// readsSeen returns how many reads of ws b has seen.
func readsSeen[T any](b *batcher[T], ws string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if w := b.wss[ws]; w != nil {
		return w.reads
	}
	return 0
}

func mustRead(t *testing.T, b *batcher[client.Device], ws, id string) *client.Device {
	t.Helper()
	d, err := b.read(t.Context(), ws, id)
	if err != nil {
		t.Fatalf("read %s: %v", id, err)
	}
	if d.ID != id {
		t.Fatalf("read %s returned %s", id, d.ID)
	}
	return d
}

func wantCounts(t *testing.T, s *fakeService, lists, gets int64) {
	t.Helper()
	if l, g := s.counts(); l != lists || g != gets {
		t.Fatalf("calls: %d lists and %d gets, want %d and %d", l, g, lists, gets)
	}
}

// waitFor polls cond until it holds or the test times out.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestBatcherFirstReadIsGet(t *testing.T) {
	t.Parallel()
	s := newFakeService("w", 3)
	b, _ := newTestBatcher(s)
	mustRead(t, b, "w", "dev-0")
	wantCounts(t, s, 0, 1)
	mustRead(t, b, "w", "dev-1") // the second read lists
	mustRead(t, b, "w", "dev-2") // and the third uses that list
	wantCounts(t, s, 1, 1)
}

func TestBatcherConcurrentReadsShareOneList(t *testing.T) {
	t.Parallel()
	const n = 50
	s := newFakeService("w", n)
	b, _ := newTestBatcher(s)
	mustRead(t, b, "w", "dev-0")

	gate := make(chan struct{})
	s.setGate(gate)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 1; i < n; i++ {
		wg.Go(func() {
			id := fmt.Sprintf("dev-%d", i)
			d, err := b.read(t.Context(), "w", id)
			switch {
			case err != nil:
				errs <- err
			case d.ID != id || d.Name != fmt.Sprintf("name-%d", i):
				errs <- fmt.Errorf("read %s returned %+v", id, d)
			}
		})
	}
	// Every read has joined (or led) the one list before it is answered.
	waitFor(t, "all reads to join", func() bool { return readsSeen(b, "w") == n })
	close(gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	wantCounts(t, s, 1, 1)
}

func TestBatcherWorkspacesAreSeparate(t *testing.T) {
	t.Parallel()
	s := newFakeService("a", 2)
	s.put("b", "dev-b0", "x")
	s.put("b", "dev-b1", "y")
	b, _ := newTestBatcher(s)
	for _, r := range [][2]string{{"a", "dev-0"}, {"b", "dev-b0"}, {"a", "dev-1"}, {"b", "dev-b1"}} {
		mustRead(t, b, r[0], r[1])
	}
	// One GET and one list per workspace.
	wantCounts(t, s, 2, 2)
}

func TestBatcherTTL(t *testing.T) {
	t.Parallel()
	s := newFakeService("w", 3)
	b, clock := newTestBatcher(s)
	mustRead(t, b, "w", "dev-0")
	mustRead(t, b, "w", "dev-1")
	wantCounts(t, s, 1, 1)

	// Changes after the list are not seen while it is fresh...
	s.put("w", "dev-1", "renamed")
	clock.advance(b.ttl - time.Millisecond)
	if d := mustRead(t, b, "w", "dev-1"); d.Name != "name-1" {
		t.Errorf("within the TTL: name %q, want the listed name-1", d.Name)
	}
	wantCounts(t, s, 1, 1)

	// ...nor while reads keep using it (the TTL counts from the last
	// use)...
	clock.advance(b.ttl - time.Millisecond)
	if d := mustRead(t, b, "w", "dev-1"); d.Name != "name-1" {
		t.Errorf("within the TTL of the last read: name %q, want the listed name-1", d.Name)
	}
	wantCounts(t, s, 1, 1)

	// ...and are once a pause of the TTL without reads expired it.
	clock.advance(b.ttl)
	if d := mustRead(t, b, "w", "dev-1"); d.Name != "renamed" {
		t.Errorf("after the TTL: name %q, want renamed", d.Name)
	}
	wantCounts(t, s, 2, 1)
}

func TestBatcherForgetAfterWrite(t *testing.T) {
	t.Parallel()
	s := newFakeService("w", 2)
	b, _ := newTestBatcher(s)
	mustRead(t, b, "w", "dev-0")
	mustRead(t, b, "w", "dev-1")
	wantCounts(t, s, 1, 1)

	// Our own update: the next read lists again and sees it.
	s.put("w", "dev-1", "renamed")
	b.forget("w")
	if d := mustRead(t, b, "w", "dev-1"); d.Name != "renamed" {
		t.Errorf("after forget: name %q, want renamed", d.Name)
	}
	wantCounts(t, s, 2, 1)
	b.forget("other") // unknown workspaces are fine
}

func TestBatcherForgetDetachesInFlightList(t *testing.T) {
	t.Parallel()
	s := newFakeService("w", 2)
	b, _ := newTestBatcher(s)
	mustRead(t, b, "w", "dev-0")

	gate := make(chan struct{})
	s.setGate(gate)
	first := make(chan *client.Device, 1)
	go func() {
		d, err := b.read(context.Background(), "w", "dev-1")
		if err != nil {
			d = nil
		}
		first <- d
	}()
	waitFor(t, "the first list", func() bool { l, _ := s.counts(); return l == 1 })

	// A write while that list is in flight: a later read must not use it.
	s.put("w", "dev-1", "renamed")
	b.forget("w")
	second := make(chan *client.Device, 1)
	go func() {
		d, err := b.read(context.Background(), "w", "dev-1")
		if err != nil {
			d = nil
		}
		second <- d
	}()
	waitFor(t, "the second list", func() bool { l, _ := s.counts(); return l == 2 })
	close(gate)
	if d := <-first; d == nil {
		t.Error("the read that joined before the write failed")
	}
	if d := <-second; d == nil || d.Name != "renamed" {
		t.Errorf("the read after the write got %+v, want the renamed device", d)
	}
}

func TestBatcherMissIsConfirmedByGet(t *testing.T) {
	t.Parallel()
	s := newFakeService("w", 3)
	b, _ := newTestBatcher(s)
	mustRead(t, b, "w", "dev-0")
	mustRead(t, b, "w", "dev-1")
	wantCounts(t, s, 1, 1)

	// Created after the list was taken: not in it, but a GET finds it.
	s.put("w", "dev-new", "new")
	if d := mustRead(t, b, "w", "dev-new"); d.Name != "new" {
		t.Errorf("name %q, want new", d.Name)
	}
	wantCounts(t, s, 1, 2)

	// Gone: the GET's 404 is returned.
	s.remove("w", "dev-2")
	b.forget("w")
	_, err := b.read(t.Context(), "w", "dev-2")
	if !client.IsNotFound(err) {
		t.Fatalf("read of a gone device: %v, want a 404", err)
	}
	wantCounts(t, s, 2, 3)
}

func TestBatcherListRefusedFallsBackToGets(t *testing.T) {
	t.Parallel()
	s := newFakeService("w", 4)
	s.listErr = &client.APIError{StatusCode: http.StatusForbidden}
	b, _ := newTestBatcher(s)
	for i := range 4 {
		mustRead(t, b, "w", fmt.Sprintf("dev-%d", i))
	}
	// One refused list, then GETs only.
	wantCounts(t, s, 1, 4)
}

func TestBatcherTransientListErrorIsRetried(t *testing.T) {
	t.Parallel()
	s := newFakeService("w", 3)
	s.listErr = &client.APIError{StatusCode: http.StatusServiceUnavailable}
	b, _ := newTestBatcher(s)
	mustRead(t, b, "w", "dev-0")
	mustRead(t, b, "w", "dev-1") // the list fails: GET
	wantCounts(t, s, 1, 2)
	s.mu.Lock()
	s.listErr = nil
	s.mu.Unlock()
	mustRead(t, b, "w", "dev-2") // a failed list is not reused: list again
	mustRead(t, b, "w", "dev-1")
	wantCounts(t, s, 2, 2)
}

func TestBatcherLeaderCanceled(t *testing.T) {
	t.Parallel()
	s := newFakeService("w", 3)
	b, _ := newTestBatcher(s)
	mustRead(t, b, "w", "dev-0")

	gate := make(chan struct{})
	s.setGate(gate)
	ctx, cancel := context.WithCancel(context.Background())
	leaderErr := make(chan error, 1)
	go func() {
		_, err := b.read(ctx, "w", "dev-1")
		leaderErr <- err
	}()
	waitFor(t, "the list", func() bool { l, _ := s.counts(); return l == 1 })
	follower := make(chan error, 1)
	go func() {
		_, err := b.read(context.Background(), "w", "dev-2")
		follower <- err
	}()
	waitFor(t, "the follower to join", func() bool { return readsSeen(b, "w") == 3 })
	cancel()
	if err := <-leaderErr; !errors.Is(err, context.Canceled) {
		t.Errorf("leader: %v, want context.Canceled", err)
	}
	// The follower's own context is alive: it reads with a GET.
	if err := <-follower; err != nil {
		t.Errorf("follower: %v", err)
	}
	close(gate)
	wantCounts(t, s, 1, 2)
}

// requestLog records the requests that reach the front of a frontEnv, in
// the order they arrive.
type requestLog struct {
	mu    sync.Mutex
	items []string // "METHOD /path"
	ws    string   // the workspace ID, replaced by {ws} in routes
}

func (l *requestLog) record(_ http.ResponseWriter, r *http.Request) bool {
	l.mu.Lock()
	l.items = append(l.items, r.Method+" "+r.URL.Path)
	l.mu.Unlock()
	return false
}

func (l *requestLog) reset() {
	l.mu.Lock()
	l.items = nil
	l.mu.Unlock()
}

func (l *requestLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.items...)
}

// routes counts the requests by route: the workspace ID becomes {ws}, a
// device or fleet ID {id}.
func (l *requestLog) routes() map[string]int {
	out := map[string]int{}
	for _, it := range l.all() {
		it = strings.Replace(it, "/workspaces/"+l.ws, "/workspaces/{ws}", 1)
		for _, kind := range []string{"/devices/", "/fleets/"} {
			if k := strings.Index(it, kind); k >= 0 {
				it = it[:k+len(kind)] + "{id}"
			}
		}
		out[it]++
	}
	return out
}

// Routes of the batched reads.
const (
	batchGetDevice   = "GET /v3/workspaces/{ws}/devices/{id}"
	batchListDevices = "GET /v3/workspaces/{ws}/devices"
	batchGetFleet    = "GET /v3/workspaces/{ws}/fleets/{id}"
	batchListFleets  = "GET /v3/workspaces/{ws}/fleets"
)

// TestAccRefreshIsBatched checks the costs DESIGN.md states for a refresh
// ("Batched reads"), exactly: the first read of a kind in a workspace is a
// GET, the second starts one list that answers every other read; so 50
// devices and 3 fleets cost one GET and one list each. A device deleted
// outside Terraform is missing from the list and confirmed with its own GET
// before it is planned again.
func TestAccRefreshIsBatched(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	log := &requestLog{ws: fe.Bootstrap.WorkspaceID}
	record := log.record
	fe.Override.Store(&record)
	c := acctest.NewCLI(t)
	const n = 50
	c.Write("main.tf", acctest.RequiredProviders+fe.Config("", fmt.Sprintf(`
resource "zdm_fleet" "f" {
  count = 3
  name  = "fleet-${count.index}"
}
resource "zdm_device" "d" {
  count    = %d
  name     = "device-${count.index}"
  fleet_id = zdm_fleet.f[count.index %% 3].id
}
`, n)))
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")

	log.reset()
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("no-op plan: exit code %d, want 0:\n%s", code, out)
	}
	routes := log.routes()
	t.Logf("no-op plan: %d requests: %v", len(log.all()), routes)
	want := map[string]int{batchGetDevice: 1, batchListDevices: 1, batchGetFleet: 1, batchListFleets: 1}
	if !maps.Equal(routes, want) {
		t.Errorf("refreshing %d devices and 3 fleets: requests %v, want exactly %v", n, routes, want)
	}

	// Outside Terraform: two devices deleted, one renamed. At most one of the
	// deleted devices can be the first read (a plain GET); the other is read
	// after the list, which lacks it, and must be confirmed by its own GET.
	api := acctest.APIClient(t, fe.Env)
	devices, err := api.ListDevices(t.Context(), fe.Bootstrap.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]client.Device{}
	for _, d := range devices {
		byName[d.Name] = d
	}
	deleted := map[string]bool{}
	for _, name := range []string{"device-7", "device-9"} {
		if err := fe.Server.DeleteDevice(byName[name].ID); err != nil {
			t.Fatal(err)
		}
		deleted[byName[name].ID] = true
	}
	renamed := byName["device-8"]
	if _, err := api.UpdateDevice(t.Context(), fe.Bootstrap.WorkspaceID, renamed.ID, "renamed", renamed.FleetID()); err != nil {
		t.Fatal(err)
	}
	log.reset()
	out, code := c.Run("plan", "-no-color", "-detailed-exitcode")
	if code != 2 {
		t.Fatalf("plan after drift: exit code %d, want 2:\n%s", code, out)
	}
	for _, want := range []string{
		"zdm_device.d[7] will be created",
		"zdm_device.d[9] will be created",
		"zdm_device.d[8] will be updated in-place",
		"Plan: 2 to add, 1 to change, 0 to destroy.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan after drift does not say %q:\n%s", want, out)
		}
	}
	requests := log.all()
	routes = log.routes()
	t.Logf("plan after drift: %d requests: %v", len(requests), requests)

	// The device GETs: each deleted device exactly once, and at most one
	// other device (the first read).
	gets := map[string]int{}
	listAt := -1
	confirmedAfterList := 0
	devicesPath := "/v3/workspaces/" + fe.Bootstrap.WorkspaceID + "/devices"
	for i, r := range requests {
		switch {
		case r == "GET "+devicesPath:
			listAt = i
		case strings.HasPrefix(r, "GET "+devicesPath+"/"):
			id := strings.TrimPrefix(r, "GET "+devicesPath+"/")
			gets[id]++
			if deleted[id] && listAt >= 0 {
				confirmedAfterList++
			}
		}
	}
	others := 0
	for id, k := range gets {
		if k != 1 {
			t.Errorf("device %s was read with %d GETs, want 1", id, k)
		}
		if !deleted[id] {
			others++
		}
	}
	for id := range deleted {
		if gets[id] != 1 {
			t.Errorf("the deleted device %s was confirmed by %d GETs, want 1: %v", id, gets[id], requests)
		}
	}
	if others > 1 {
		t.Errorf("%d devices that the list holds were read with a GET, want at most 1 (the first read): %v", others, requests)
	}
	// A deleted device that is not the first read is read after the list.
	if confirmedAfterList < 1 {
		t.Errorf("no deleted device was confirmed by a GET after the list: %v", requests)
	}
	wantGets := 1 + len(deleted) // the first read, and one confirmation per deleted device
	if others == 0 {
		wantGets = len(deleted) // the first read was one of the deleted devices
	}
	want = map[string]int{batchGetDevice: wantGets, batchListDevices: 1, batchGetFleet: 1, batchListFleets: 1}
	if !maps.Equal(routes, want) {
		t.Errorf("refresh after drift: requests %v, want exactly %v", routes, want)
	}
}

// TestBatcherAllSharesListsWithReads checks that all lists at once (no
// read threshold), that reads and later calls within the TTL share its
// list, and that a write or the TTL makes the next call list again.
func TestBatcherAllSharesListsWithReads(t *testing.T) {
	s := newFakeService("ws", 3)
	b, clock := newTestBatcher(s)
	got, err := b.all(t.Context(), "ws", nil)
	if err != nil || len(got) != 3 {
		t.Fatalf("all = %d devices, %v; want 3", len(got), err)
	}
	if lists, _ := s.counts(); lists != 1 {
		t.Fatalf("first all made %d lists, want 1", lists)
	}
	if _, err := b.all(t.Context(), "ws", nil); err != nil {
		t.Fatal(err)
	}
	mustRead(t, b, "ws", "dev-1")
	if lists, gets := s.counts(); lists != 1 || gets != 0 {
		t.Fatalf("after a second all and a read: %d lists, %d gets; want 1 and 0", lists, gets)
	}
	b.forget("ws")
	s.put("ws", "dev-9", "new")
	if got, _ = b.all(t.Context(), "ws", nil); len(got) != 4 {
		t.Fatalf("all after a write = %d devices, want 4 (a fresh list)", len(got))
	}
	clock.advance(defaultBatchTTL)
	if _, err := b.all(t.Context(), "ws", nil); err != nil {
		t.Fatal(err)
	}
	if lists, _ := s.counts(); lists != 3 {
		t.Fatalf("lists = %d, want 3 (after the write and after the TTL)", lists)
	}
	s.listErr = errors.New("boom")
	clock.advance(defaultBatchTTL)
	if _, err := b.all(t.Context(), "ws", nil); err == nil {
		t.Fatal("all returned no error when the list failed")
	}
}

// TestBatcherTTLCountsFromTheAnswer checks that a list that takes longer
// than the TTL to answer (a large workspace) still answers the calls made
// within the TTL of its answer, and that index hands every caller the same
// devices keyed by ID.
func TestBatcherTTLCountsFromTheAnswer(t *testing.T) {
	t.Parallel()
	s := newFakeService("w", 3)
	b, clock := newTestBatcher(s)
	gate := make(chan struct{})
	s.setGate(gate)
	first := make(chan *Index[client.Device], 1)
	go func() {
		_, byID, err := b.index(context.Background(), "w", nil)
		if err != nil {
			byID = nil
		}
		first <- byID
	}()
	waitFor(t, "the list", func() bool { l, _ := s.counts(); return l == 1 })
	clock.advance(3 * b.ttl) // the transfer outlasts the TTL
	close(gate)
	byID := <-first
	if dev, ok := byID.Get("dev-2"); byID.Len() != 3 || !ok || dev.ID != "dev-2" {
		t.Fatalf("index of %d devices, dev-2 found: %v, want the 3 devices by ID", byID.Len(), ok)
	}

	clock.advance(b.ttl - time.Millisecond)
	all, again, err := b.index(t.Context(), "w", nil)
	if err != nil || len(all) != 3 {
		t.Fatalf("index within the TTL of the answer = %d devices, %v", len(all), err)
	}
	a, _ := again.Get("dev-2")
	if b, _ := byID.Get("dev-2"); a != b {
		t.Error("a call within the TTL of the answer got another copy of the list")
	}
	mustRead(t, b, "w", "dev-1")
	wantCounts(t, s, 1, 0)

	// Positive control: a TTL after the last use, the next call lists.
	clock.advance(b.ttl)
	if _, _, err := b.index(t.Context(), "w", nil); err != nil {
		t.Fatal(err)
	}
	wantCounts(t, s, 2, 0)
}

// TestBatcherWroteKeepsTheListCurrent checks that our answered writes are
// written into a fresh list (a create added, an update replacing its
// object) without listing again, while the lists that calls already hold
// stay as they were; that a write without an answer, or one made while a
// list is in flight, makes the next call list; and that the TTL still
// counts from the list's own answer.
func TestBatcherWroteKeepsTheListCurrent(t *testing.T) {
	t.Parallel()
	s := newFakeService("w", 3)
	b, clock := newTestBatcher(s)
	before, _, err := b.index(t.Context(), "w", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantCounts(t, s, 1, 0)

	// Our create and our rename, as the service answered them.
	s.put("w", "dev-9", "new")
	b.wrote("w", &client.Device{ID: "dev-9", Name: "new", Place: &client.Place{WorkspaceID: "w"}})
	s.put("w", "dev-1", "renamed")
	b.wrote("w", &client.Device{ID: "dev-1", Name: "renamed", Place: &client.Place{WorkspaceID: "w"}})
	all, byID, err := b.index(t.Context(), "w", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantCounts(t, s, 1, 0)
	if len(all) != 4 || at(byID, "dev-9") == nil || at(byID, "dev-9").Name != "new" || at(byID, "dev-1").Name != "renamed" {
		t.Fatalf("after our writes: %v", all)
	}
	names := map[string]int{}
	for _, d := range all {
		names[d.Name]++
	}
	if names["renamed"] != 1 || names["name-1"] != 0 {
		t.Errorf("the rename was added instead of replacing the device: %v", names)
	}
	if d := mustRead(t, b, "w", "dev-9"); d.Name != "new" {
		t.Errorf("read of our create: %q", d.Name)
	}
	for _, d := range before {
		if d.Name == "renamed" || d.Name == "new" {
			t.Errorf("a list already handed out changed: %v", before)
		}
	}
	if len(before) != 3 {
		t.Errorf("a list already handed out grew: %v", before)
	}
	wantCounts(t, s, 1, 0)

	// A write without an answer: the next call lists (positive control of
	// the counts above).
	b.wrote("w", nil)
	if _, _, err := b.index(t.Context(), "w", nil); err != nil {
		t.Fatal(err)
	}
	wantCounts(t, s, 2, 0)

	// A write while a list is in flight: that list may predate it, so the
	// next call lists again.
	gate := make(chan struct{})
	s.setGate(gate)
	b.forget("w")
	first := make(chan error, 1)
	go func() { _, _, err := b.index(context.Background(), "w", nil); first <- err }()
	waitFor(t, "the list in flight", func() bool { l, _ := s.counts(); return l == 3 })
	b.wrote("w", &client.Device{ID: "dev-8", Name: "late", Place: &client.Place{WorkspaceID: "w"}})
	s.setGate(nil)
	s.put("w", "dev-8", "late")
	all, _, err = b.index(t.Context(), "w", nil)
	if err != nil || len(all) != 5 {
		t.Fatalf("after a write during a list: %d devices, %v; want 5", len(all), err)
	}
	close(gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	wantCounts(t, s, 4, 0)

	// Writes do not extend the TTL of the list they enter.
	clock.advance(b.ttl - time.Millisecond)
	b.wrote("w", &client.Device{ID: "dev-7", Name: "x", Place: &client.Place{WorkspaceID: "w"}})
	clock.advance(time.Millisecond)
	if _, _, err := b.index(t.Context(), "w", nil); err != nil {
		t.Fatal(err)
	}
	wantCounts(t, s, 5, 0)
}

// TestBatcherWroteAllMergesABulkWrite checks that many answered writes
// enter a fresh list at once: creates added, updates replacing their
// object, the last write of an ID winning, the order of the list kept, and
// no list request; the list handed out before is unchanged.
func TestBatcherWroteAllMergesABulkWrite(t *testing.T) {
	t.Parallel()
	s := newFakeService("w", 3)
	b, _ := newTestBatcher(s)
	before, _, err := b.index(t.Context(), "w", nil)
	if err != nil {
		t.Fatal(err)
	}
	b.wroteAll("w", []client.Device{
		{ID: "dev-10", Name: "a", Place: &client.Place{WorkspaceID: "w"}},
		{ID: "dev-1", Name: "first", Place: &client.Place{WorkspaceID: "w"}},
		{ID: "dev-11", Name: "b", Place: &client.Place{WorkspaceID: "w"}},
		{ID: "dev-1", Name: "second", Place: &client.Place{WorkspaceID: "w"}},
		{ID: "dev-10", Name: "a2", Place: &client.Place{WorkspaceID: "w"}},
	})
	all, byID, err := b.index(t.Context(), "w", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantCounts(t, s, 1, 0)
	var got []string
	for _, d := range all {
		got = append(got, d.ID+"="+d.Name)
	}
	// The list's own order (the service's), with dev-1 replaced in place,
	// then the new devices in the order of their last write.
	var want []string
	for _, d := range before {
		if d.ID == "dev-1" {
			want = append(want, "dev-1=second")
			continue
		}
		want = append(want, d.ID+"="+d.Name)
	}
	want = append(want, "dev-11=b", "dev-10=a2")
	if !slices.Equal(got, want) {
		t.Fatalf("after the bulk write the list is %v, want %v", got, want)
	}
	if at(byID, "dev-10").Name != "a2" || at(byID, "dev-1") != &all[slices.IndexFunc(all, func(d client.Device) bool { return d.ID == "dev-1" })] {
		t.Errorf("the index does not point into the new list: %v", byID)
	}
	if len(before) != 3 || slices.ContainsFunc(before, func(d client.Device) bool { return d.Name == "second" }) {
		t.Errorf("a list already handed out changed: %v", before)
	}
	// Positive control: forgetting the list makes the next call list.
	b.forget("w")
	if _, _, err := b.index(t.Context(), "w", nil); err != nil {
		t.Fatal(err)
	}
	wantCounts(t, s, 2, 0)
}

// TestBatcherWroteAllAppendsCreatesWithoutChangingListsHandedOut checks
// the path of a bulk create (only new IDs): the new objects follow the
// list, and a list handed out before, even one with room after its end,
// keeps its length and objects.
func TestBatcherWroteAllAppendsCreatesWithoutChangingListsHandedOut(t *testing.T) {
	t.Parallel()
	s := newFakeService("w", 3)
	b, _ := newTestBatcher(s)
	if _, _, err := b.index(t.Context(), "w", nil); err != nil {
		t.Fatal(err)
	}
	b.wroteAll("w", []client.Device{{ID: "dev-10", Name: "a", Place: &client.Place{WorkspaceID: "w"}}})
	first, _, err := b.index(t.Context(), "w", nil)
	if err != nil {
		t.Fatal(err)
	}
	b.wroteAll("w", []client.Device{{ID: "dev-11", Name: "b", Place: &client.Place{WorkspaceID: "w"}}, {ID: "dev-12", Name: "c", Place: &client.Place{WorkspaceID: "w"}}})
	b.wroteAll("w", []client.Device{{ID: "dev-13", Name: "d", Place: &client.Place{WorkspaceID: "w"}}})
	all, byID, err := b.index(t.Context(), "w", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantCounts(t, s, 1, 0)
	var got []string
	for _, d := range all {
		got = append(got, d.ID)
	}
	want := []string{}
	for _, d := range first {
		want = append(want, d.ID)
	}
	want = append(want, "dev-11", "dev-12", "dev-13")
	if !slices.Equal(got, want) {
		t.Fatalf("after the bulk creates the list is %v, want %v", got, want)
	}
	if at(byID, "dev-13") != &all[6] || at(byID, all[0].ID) != &all[0] {
		t.Errorf("the index does not point into the latest list")
	}
	if len(first) != 4 || first[3].ID != "dev-10" {
		t.Errorf("a list handed out changed: %v", first)
	}
}

// at returns the item of ID id in x, nil when x has none.
func at[T any](x *Index[T], id string) *T {
	v, _ := x.Get(id)
	return v
}

// TestBatcherWholeListReadsBuildNoIndex checks that a read of the whole
// list (the check for duplicate names before each create) leaves the index
// by ID unbuilt, and that a read by ID builds it once (the positive
// control).
func TestBatcherWholeListReadsBuildNoIndex(t *testing.T) {
	t.Parallel()
	s := newFakeService("w", 3)
	b, _ := newTestBatcher(s)
	if all, err := b.all(t.Context(), "w", nil); err != nil || len(all) != 3 {
		t.Fatalf("all = %d devices, %v", len(all), err)
	}
	c := b.wss["w"].cur
	if c.byID != nil {
		t.Fatal("a whole-list read built the index by ID")
	}
	_, byID, err := b.index(t.Context(), "w", nil)
	if err != nil || byID == nil || c.byID != byID || byID.Len() != 3 {
		t.Fatalf("index: %v, built on the shared list: %v", err, c.byID == byID && byID != nil)
	}
	wantCounts(t, s, 1, 0)
}
