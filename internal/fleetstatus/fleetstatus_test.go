package fleetstatus

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// inFlight counts the requests a client has in flight and the most seen.
type inFlight struct {
	next      http.RoundTripper
	now, most atomic.Int64
}

func (t *inFlight) RoundTrip(r *http.Request) (*http.Response, error) {
	n := t.now.Add(1)
	defer t.now.Add(-1)
	for {
		m := t.most.Load()
		if n <= m || t.most.CompareAndSwap(m, n) {
			break
		}
	}
	return t.next.RoundTrip(r)
}

type fixture struct {
	srv     *localzdm.Server
	c       *client.Client
	ws      string
	key     string
	flight  *inFlight
	fleetA  string
	fleetB  string
	devices []string // 6 in A, 4 in B
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	srv := localzdm.StartTest(t)
	b, err := srv.Bootstrap("fleetstatus")
	if err != nil {
		t.Fatal(err)
	}
	flight := &inFlight{next: http.DefaultTransport}
	c, err := client.New(client.Config{BaseURL: srv.BaseURL(), APIKey: b.APIKey, HTTPClient: &http.Client{Transport: flight}})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{srv: srv, c: c, ws: b.WorkspaceID, key: b.APIKey, flight: flight}
	ctx := context.Background()
	for i, name := range []string{"a", "b"} {
		fl, err := c.CreateFleet(ctx, b.WorkspaceID, name, "")
		if err != nil {
			t.Fatal(err)
		}
		n := []int{6, 4}[i]
		names := make([]string, n)
		for j := range names {
			names[j] = fmt.Sprintf("%s-%d", name, j)
		}
		ids, err := srv.CreateDevices(b.WorkspaceID, fl.ID, names)
		if err != nil {
			t.Fatal(err)
		}
		f.devices = append(f.devices, ids...)
		if i == 0 {
			f.fleetA = fl.ID
		} else {
			f.fleetB = fl.ID
		}
	}
	return f
}

func TestReadFOTACountsAndMissing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	// Fleet A gets firmware fw 1.0; two of its devices finish, one fails;
	// one device of B gets fw 0.9.
	if _, err := f.c.ScheduleFleetFOTA(ctx, f.ws, "fw", "1.0", []string{f.fleetA}); err != nil {
		t.Fatal(err)
	}
	for i, st := range []string{"done", "done", "failed"} {
		if err := f.srv.SetFOTAStatus(f.devices[i], st); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.c.ScheduleFOTA(ctx, f.devices[6], "fw", "0.9"); err != nil {
		t.Fatal(err)
	}

	res, err := Read(ctx, f.c, Scope{WorkspaceID: f.ws}, FOTA, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Devices) != 10 {
		t.Fatalf("devices = %d, want 10", len(res.Devices))
	}
	for i := 1; i < len(res.Devices); i++ {
		if res.Devices[i-1].ID >= res.Devices[i].ID {
			t.Fatalf("devices not sorted by ID: %s before %s", res.Devices[i-1].ID, res.Devices[i].ID)
		}
	}
	counts := res.StatusCounts(nil)
	if counts["done"] != 2 || counts["failed"] != 1 || counts["pending"] != 4 || len(counts) != 3 {
		t.Errorf("status counts = %v, want done 2, failed 1, pending 4", counts)
	}
	// Of firmware 1.0 only: the device on 0.9 (pending) is not counted.
	if counts := res.StatusCounts(&Firmware{"fw", "1.0"}); counts["done"] != 2 || counts["failed"] != 1 || counts["pending"] != 3 {
		t.Errorf("status counts of fw 1.0 = %v, want done 2, failed 1, pending 3", counts)
	}
	fw := res.FirmwareCounts()
	if len(fw) != 2 || fw[0] != (FirmwareCount{Firmware{"fw", "0.9"}, 1}) || fw[1] != (FirmwareCount{Firmware{"fw", "1.0"}, 6}) {
		t.Errorf("firmware counts = %v", fw)
	}
	if got := res.Missing(nil); len(got) != 3 {
		t.Errorf("missing = %v, want the 3 devices of B without an update", got)
	}
	if got := res.Missing(&Firmware{"fw", "1.0"}); len(got) != 4 {
		t.Errorf("missing fw 1.0 = %v, want the 4 devices of B", got)
	}
	if most := f.flight.most.Load(); most > 3 {
		t.Errorf("at most %d requests in flight, want at most 3", most)
	}
}

func TestReadScopeAndJob(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.c.ScheduleJob(ctx, f.devices[7], "reboot", []byte(`{"delay":5}`)); err != nil {
		t.Fatal(err)
	}
	res, err := Read(ctx, f.c, Scope{WorkspaceID: f.ws, FleetIDs: []string{f.fleetB}}, Job("reboot"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Devices) != 4 {
		t.Fatalf("devices of fleet B = %d, want 4", len(res.Devices))
	}
	var found int
	for _, d := range res.Devices {
		if d.FleetID != f.fleetB {
			t.Errorf("device %s of fleet %s is outside the scope", d.ID, d.FleetID)
		}
		if d.Found {
			found++
			if d.ID != f.devices[7] || d.Status != "pending" || string(d.Value) != `{"delay":5}` || d.ScheduledAt == "" {
				t.Errorf("job read = %+v", d)
			}
		}
	}
	if found != 1 || len(res.FirmwareCounts()) != 0 {
		t.Errorf("found %d jobs (want 1), firmware counts %v (want none for a job)", found, res.FirmwareCounts())
	}

	res, err = Read(ctx, f.c, Scope{WorkspaceID: f.ws, DeviceIDs: []string{f.devices[7], f.devices[0]}}, Job("reboot"), 0)
	if err != nil || len(res.Devices) != 2 {
		t.Fatalf("device scope: %v, %d devices", err, len(res.Devices))
	}

	_, err = Read(ctx, f.c, Scope{WorkspaceID: f.ws, FleetIDs: []string{"flt-nope"}}, FOTA, 0)
	if err == nil || !strings.Contains(err.Error(), "no fleet flt-nope") {
		t.Errorf("unknown fleet: err = %v", err)
	}
	_, err = Read(ctx, f.c, Scope{WorkspaceID: f.ws, DeviceIDs: []string{"dev-nope"}}, FOTA, 0)
	if err == nil || !strings.Contains(err.Error(), "no device dev-nope") {
		t.Errorf("unknown device: err = %v", err)
	}
}

func TestReadBoundsAndUsesParallelism(t *testing.T) {
	f := newFixture(t)
	names := make([]string, 90)
	for i := range names {
		names[i] = fmt.Sprintf("more-%d", i)
	}
	if _, err := f.srv.CreateDevices(f.ws, "", names); err != nil {
		t.Fatal(err)
	}
	f.srv.SetFaults(localzdm.Faults{Latency: 20 * time.Millisecond})
	for _, p := range []int{1, 8} {
		f.flight.most.Store(0)
		res, err := Read(context.Background(), f.c, Scope{WorkspaceID: f.ws}, FOTA, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Devices) != 100 || len(res.Missing(nil)) != 100 {
			t.Fatalf("parallelism %d: %d devices, %d missing; want 100, 100", p, len(res.Devices), len(res.Missing(nil)))
		}
		// The positive control: with 8 allowed, 8 are reached.
		if most := f.flight.most.Load(); most != int64(p) {
			t.Errorf("parallelism %d: at most %d requests in flight, want exactly %d", p, most, p)
		}
	}
}

func TestReadStopsAtFirstError(t *testing.T) {
	f := newFixture(t)
	// An unknown device ID (a path of a device outside the key's workspace)
	// answers 404, which reads as "never got it"; a hanging server is an
	// error that must stop every read.
	got, err := ReadIDs(context.Background(), f.c, []string{f.devices[0], "dev-unknown"}, FOTA, 2)
	if err != nil || len(got) != 2 || got[0].Found || got[1].Found {
		t.Fatalf("ReadIDs = %+v, %v", got, err)
	}
	f.srv.SetFaults(localzdm.Faults{Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = ReadIDs(ctx, f.c, f.devices, FOTA, 4)
	if err == nil || !strings.Contains(err.Error(), "reading the firmware update of device") {
		t.Fatalf("err = %v, want a read error naming a device", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want it to wrap the context's deadline", err)
	}
}

func TestWaitStopsAtFailureAndTimesOut(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if _, err := f.c.ScheduleFleetFOTA(ctx, f.ws, "fw", "2.0", []string{f.fleetA}); err != nil {
		t.Fatal(err)
	}
	ids := f.devices[:6]
	for _, id := range ids[:4] {
		if err := f.srv.SetFOTAStatus(id, "done"); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.srv.SetFOTAStatus(ids[4], "failed"); err != nil {
		t.Fatal(err)
	}
	var lines []string
	var mu sync.Mutex
	opts := WaitOptions{Kind: FOTA, Firmware: &Firmware{"fw", "2.0"}, Failure: []string{"failed"},
		Timeout: time.Hour, Interval: 10 * time.Millisecond,
		Progress: func(s string) { mu.Lock(); lines = append(lines, s); mu.Unlock() }}
	// One failure, none tolerated: the wait ends at once though a device is
	// still pending and the timeout is an hour away.
	res, err := Wait(ctx, f.c, ids, opts)
	var we *WaitError
	if !errors.As(err, &we) || we.Reason != "failed" {
		t.Fatalf("err = %v, want a failure", err)
	}
	if len(res.Failed) != 1 || res.Failed[0] != ids[4] || len(res.Pending) != 1 || len(res.Succeeded) != 4 {
		t.Errorf("result = %+v", res)
	}
	if !strings.Contains(err.Error(), ids[4]+" (failed)") || !strings.Contains(err.Error(), ids[5]+" (pending)") {
		t.Errorf("error %q does not name the failed and the pending device with their status", err)
	}
	if len(lines) == 0 {
		t.Error("no progress reported")
	}

	// One failure tolerated: the pending device keeps the wait going until
	// the timeout.
	opts.MaxFailures = 1
	opts.Timeout = 50 * time.Millisecond
	_, err = Wait(ctx, f.c, ids, opts)
	if !errors.As(err, &we) || we.Reason != "timeout" || !strings.Contains(err.Error(), ids[5]+" (pending)") {
		t.Fatalf("err = %v, want a timeout naming %s", err, ids[5])
	}
	// Once it finishes, the wait succeeds with the tolerated failure.
	if err := f.srv.SetFOTAStatus(ids[5], "done"); err != nil {
		t.Fatal(err)
	}
	res, err = Wait(ctx, f.c, ids, opts)
	if err != nil || len(res.Succeeded) != 5 || len(res.Failed) != 1 {
		t.Fatalf("Wait = %+v, %v", res, err)
	}
	// A device whose update was replaced by another firmware has failed.
	if _, err := f.c.ScheduleFOTA(ctx, ids[0], "fw", "3.0"); err != nil {
		t.Fatal(err)
	}
	_, err = Wait(ctx, f.c, ids, opts)
	if err == nil || !strings.Contains(err.Error(), ids[0]+" (replaced by fw 3.0)") {
		t.Fatalf("err = %v, want the replaced device named", err)
	}
}

// TestReadRetriesLikeTheClient: three device reads are answered 503 once;
// the client's retries make every read succeed.
func TestReadRetriesLikeTheClient(t *testing.T) {
	f := newFixture(t)
	c, err := client.New(client.Config{BaseURL: f.srv.BaseURL(), APIKey: f.key, RetryWaitMin: time.Millisecond,
		RetryWaitMax: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.srv.AddRequestFault(localzdm.RequestFault{Method: http.MethodGet, Path: "/v3/devices/{device_id}/fota",
		Action: localzdm.FaultHTMLError, Status: http.StatusServiceUnavailable, Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	f.srv.ResetCounters()
	res, err := Read(context.Background(), c, Scope{WorkspaceID: f.ws}, FOTA, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Devices) != 10 {
		t.Fatalf("%d devices, want 10", len(res.Devices))
	}
	// One list and ten reads, three of them twice.
	if total := f.srv.TotalRequests(); total != 14 {
		t.Errorf("%d requests, want 14 (11 reads, 3 retried)", total)
	}
}
