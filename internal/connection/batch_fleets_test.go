package connection

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// putIn adds device id to fleet of ws.
func (s *fakeService) putIn(ws, fleet, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.devices[ws] == nil {
		s.devices[ws] = map[string]client.Device{}
	}
	s.devices[ws][id] = client.Device{ID: id, Name: "name-" + id, Place: &client.Place{WorkspaceID: ws, FleetID: fleet}}
}

// listOf is list keeping the devices of fleets (nil: all), as
// client.ListDevicesOfFleets does.
func (s *fakeService) listOf(ctx context.Context, ws string, fleets map[string]bool) ([]client.Device, error) {
	all, err := s.list(ctx, ws)
	if err != nil || fleets == nil {
		return all, err
	}
	var out []client.Device
	for _, d := range all {
		if fleets[d.FleetID()] {
			out = append(out, d)
		}
	}
	return out, nil
}

// newFleetService holds 4 fleets f0 to f3 of 5 devices each in ws "w",
// and a batcher that lists keeping fleets.
func newFleetService() (*fakeService, *batcher[client.Device]) {
	s := newFakeService("w", 0)
	for f := range 4 {
		for i := range 5 {
			s.putIn("w", fmt.Sprintf("f%d", f), fmt.Sprintf("f%d-dev-%d", f, i))
		}
	}
	b, _ := newTestBatcher(s)
	b.listOf = s.listOf
	return s, b
}

// fleetsOf returns the sorted distinct fleets of devices, and their count.
func fleetsOf(devices []client.Device) ([]string, int) {
	seen := map[string]bool{}
	for _, d := range devices {
		seen[d.FleetID()] = true
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	slices.Sort(out)
	return out, len(devices)
}

func wantFleets(t *testing.T, what string, devices []client.Device, fleets []string, n int) {
	t.Helper()
	if got, count := fleetsOf(devices); !slices.Equal(got, fleets) || count != n {
		t.Fatalf("%s: %d devices of fleets %v, want %d of %v", what, count, got, n, fleets)
	}
}

// A list asked for by a fleet keeps exactly that fleet's devices (the
// whole workspace's list, the positive control, holds the others); a fleet
// kept lists nothing; a fleet it did not keep lists the whole workspace,
// which then answers every fleet.
func TestBatcherKeepsTheFleetsAskedFor(t *testing.T) {
	s, b := newFleetService()
	ctx := t.Context()

	got, byID, err := b.index(ctx, "w", []string{"f1"})
	if err != nil {
		t.Fatal(err)
	}
	wantFleets(t, "f1", got, []string{"f1"}, 5)
	if _, ok := byID.Get("f2-dev-0"); ok {
		t.Fatal("the list kept a device of a fleet nobody asked for")
	}
	wantCounts(t, s, 1, 0)

	if got, err = b.all(ctx, "w", []string{"f1"}); err != nil {
		t.Fatal(err)
	}
	wantFleets(t, "f1 again", got, []string{"f1"}, 5)
	wantCounts(t, s, 1, 0)

	whole, err := s.list(ctx, "w") // the positive control (counted)
	if err != nil {
		t.Fatal(err)
	}
	wantFleets(t, "the service's whole list", whole, []string{"f0", "f1", "f2", "f3"}, 20)
	wantCounts(t, s, 2, 0)

	got, _, err = b.index(ctx, "w", []string{"f2"})
	if err != nil {
		t.Fatal(err)
	}
	wantFleets(t, "f2 after f1", got, []string{"f0", "f1", "f2", "f3"}, 20)
	wantCounts(t, s, 3, 0)

	for _, f := range [][]string{{"f3"}, {"f1"}, nil} {
		if got, err = b.all(ctx, "w", f); err != nil {
			t.Fatal(err)
		}
		wantFleets(t, fmt.Sprint(f, " after the whole workspace"), got, []string{"f0", "f1", "f2", "f3"}, 20)
	}
	wantCounts(t, s, 3, 0)
}

// A request for the whole workspace after a kept list lists it whole.
func TestBatcherWholeAfterAKeptList(t *testing.T) {
	s, b := newFleetService()
	if _, err := b.all(t.Context(), "w", []string{"f0"}); err != nil {
		t.Fatal(err)
	}
	got, err := b.all(t.Context(), "w", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantFleets(t, "the whole workspace", got, []string{"f0", "f1", "f2", "f3"}, 20)
	wantCounts(t, s, 2, 0)
}

// Concurrent reads of one fleet share one list.
func TestBatcherOneFleetListsOnce(t *testing.T) {
	s, b := newFleetService()
	gate := make(chan struct{})
	s.setGate(gate)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			got, _, err := b.index(context.Background(), "w", []string{"f0"})
			if err == nil && len(got) != 5 {
				err = fmt.Errorf("%d devices, want 5", len(got))
			}
			errs <- err
		}()
	}
	waitFor(t, "the list to start", func() bool { l, _ := s.counts(); return l == 1 })
	close(gate)
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	wantCounts(t, s, 1, 0)
}

// A device read by ID that is not in a list kept for other fleets (it was
// moved to a fleet nobody asked for) is read alone and found there, never
// taken for gone; a device that is gone answers the GET's 404 (the
// positive control).
func TestBatcherReadOutsideTheFleetsKeptIsReadAlone(t *testing.T) {
	s, b := newFleetService()
	ctx := t.Context()
	if _, _, err := b.index(ctx, "w", []string{"f0"}); err != nil {
		t.Fatal(err)
	}
	s.putIn("w", "f3", "f0-dev-1") // moved outside Terraform, after the list
	s.remove("w", "f0-dev-2")
	b.forget("w")
	if _, _, err := b.index(ctx, "w", []string{"f0"}); err != nil {
		t.Fatal(err)
	}
	wantCounts(t, s, 2, 0)
	mustRead(t, b, "w", "f0-dev-0") // in the list
	wantCounts(t, s, 2, 0)
	d := mustRead(t, b, "w", "f0-dev-1")
	if d.FleetID() != "f3" {
		t.Fatalf("the moved device reads in fleet %q, want f3", d.FleetID())
	}
	wantCounts(t, s, 2, 1)
	if _, err := b.read(ctx, "w", "f0-dev-2"); !client.IsNotFound(err) {
		t.Fatalf("reading a removed device: %v, want the GET's 404", err)
	}
	wantCounts(t, s, 2, 2)
}

// TestAccRefreshKeepsTheStatesFleets checks a state that manages one fleet
// of a workspace that holds others: its no-op plan lists the devices once
// (keeping the fleet's own); a device of the map moved outside Terraform to
// a fleet the list did not keep is read alone and found there, planned back
// as today (devices_elsewhere), never taken for gone; and a zdm_devices
// data source of the whole workspace still sees every device.
func TestAccRefreshKeepsTheStatesFleets(t *testing.T) {
	fe := acctest.NewFrontEnv(t)
	ws := fe.Bootstrap.WorkspaceID
	log := &requestLog{ws: ws}
	record := log.record
	fe.Override.Store(&record)
	api := acctest.APIClient(t, fe.Env)
	other, err := api.CreateFleet(t.Context(), ws, "other", "")
	if err != nil {
		t.Fatal(err)
	}
	names := func(prefix string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s-%d", prefix, i)
		}
		return out
	}
	if _, err := fe.Server.CreateDevices(ws, other.ID, names("other", 20)); err != nil {
		t.Fatal(err)
	}
	if _, err := fe.Server.CreateDevices(ws, "", names("default", 10)); err != nil {
		t.Fatal(err)
	}
	const managed = `
resource "zdm_fleet" "mine" {
  name = "mine"
}
resource "zdm_fleet_devices" "mine" {
  fleet_id = zdm_fleet.mine.id
  devices  = { for i in range(5) : "d${i}" => "mine-${i}" }
}
`
	c := acctest.NewCLI(t)
	c.Write("main.tf", acctest.RequiredProviders+fe.Config("", managed))
	c.MustRun("init", "-no-color")
	c.MustRun("apply", "-no-color", "-auto-approve")

	log.reset()
	if out, code := c.Run("plan", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Fatalf("no-op plan: exit code %d, want 0:\n%s", code, out)
	}
	routes := log.routes()
	t.Logf("no-op plan: %v", routes)
	if want := map[string]int{batchGetFleet: 1, batchListDevices: 1}; !maps.Equal(routes, want) {
		t.Errorf("no-op plan of one fleet's devices: requests %v, want exactly %v", routes, want)
	}

	// Moved outside Terraform to the fleet the list does not keep: the list
	// lacks it, its own GET finds it in the other fleet.
	all, err := api.ListDevices(t.Context(), ws)
	if err != nil {
		t.Fatal(err)
	}
	var moved string
	for _, d := range all {
		if d.Name == "mine-1" {
			moved = d.ID
		}
	}
	if moved == "" {
		t.Fatalf("no device mine-1 among %d", len(all))
	}
	if err := fe.Server.MoveDevice(moved, other.ID); err != nil {
		t.Fatal(err)
	}
	log.reset()
	out, code := c.Run("plan", "-no-color", "-detailed-exitcode")
	if code != 2 {
		t.Fatalf("plan after the move: exit code %d, want 2:\n%s", code, out)
	}
	for _, want := range []string{"zdm_fleet_devices.mine will be updated in-place", "devices_elsewhere", other.ID,
		"Plan: 0 to add, 1 to change, 0 to destroy."} {
		if !strings.Contains(out, want) {
			t.Errorf("plan after the move does not say %q:\n%s", want, out)
		}
	}
	for _, never := range []string{"no longer exist", "will be created"} {
		if strings.Contains(out, never) {
			t.Errorf("plan after the move says %q: the moved device was taken for gone:\n%s", never, out)
		}
	}
	routes = log.routes()
	t.Logf("plan after the move: %v", log.all())
	if want := map[string]int{batchGetFleet: 1, batchListDevices: 1, batchGetDevice: 1}; !maps.Equal(routes, want) {
		t.Errorf("plan after the move: requests %v, want exactly %v (the moved device read alone)", routes, want)
	}
	c.MustRun("apply", "-no-color", "-auto-approve") // moves it back

	// The whole workspace, read by a data source of the same configuration.
	c.Write("main.tf", acctest.RequiredProviders+fe.Config("", managed+`
data "zdm_devices" "all" {}
output "all" {
  value = length(data.zdm_devices.all.devices)
}
`))
	log.reset()
	out = c.MustRun("apply", "-no-color", "-auto-approve")
	if !strings.Contains(out, "all = 35") {
		t.Errorf("the zdm_devices data source does not see the 35 devices of the workspace:\n%s", out)
	}
	t.Logf("plan with the data source: %v", log.routes())
}

// A fleet expected (read by a zdm_fleet) before the list is kept by it, so
// that its devices later need no list of their own; a fleet neither
// expected nor asked for is not kept.
func TestBatcherKeepsTheFleetsExpected(t *testing.T) {
	s, b := newFleetService()
	b.expect("w", "f2")
	b.expect("w", "") // no fleet: nothing to keep
	got, _, err := b.index(t.Context(), "w", []string{"f1"})
	if err != nil {
		t.Fatal(err)
	}
	wantFleets(t, "f1 with f2 expected", got, []string{"f1", "f2"}, 10)
	if _, _, err := b.index(t.Context(), "w", []string{"f2"}); err != nil {
		t.Fatal(err)
	}
	wantCounts(t, s, 1, 0)
}
