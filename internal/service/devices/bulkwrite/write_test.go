package bulkwrite

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// bulkEnv is a local server behind a front that measures how many API
// requests are in flight at once, and a providerData that talks to it.
type bulkEnv struct {
	srv  *localzdm.Server
	b    localzdm.Bootstrap
	data *connection.ProviderData

	inFlight, peak atomic.Int64
	// spans records when each request started and ended.
	mu    sync.Mutex
	spans [][2]time.Time
}

// newBulkEnv starts the server; maxRetries is client.Config.MaxRetries, and
// retries wait at most waitMax (0: the client's default).
func newBulkEnv(t *testing.T, maxRetries int, waitMax time.Duration) *bulkEnv {
	t.Helper()
	srv := localzdm.StartTest(t)
	b, err := srv.Bootstrap("bulk")
	if err != nil {
		t.Fatal(err)
	}
	e := &bulkEnv{srv: srv, b: b}
	inner := srv.ManagementHandler()
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := e.inFlight.Add(1)
		defer e.inFlight.Add(-1)
		for {
			p := e.peak.Load()
			if n <= p || e.peak.CompareAndSwap(p, n) {
				break
			}
		}
		start := time.Now()
		inner.ServeHTTP(w, r)
		e.mu.Lock()
		e.spans = append(e.spans, [2]time.Time{start, time.Now()})
		e.mu.Unlock()
	}))
	t.Cleanup(front.Close)
	c, err := client.New(client.Config{BaseURL: front.URL, APIKey: b.APIKey, MaxRetries: maxRetries,
		RetryWaitMin: min(waitMax, time.Millisecond), RetryWaitMax: waitMax})
	if err != nil {
		t.Fatal(err)
	}
	e.data = &connection.ProviderData{Client: c, WorkspaceID: b.WorkspaceID, Visible: connection.NewVisibility(c)}
	e.data.Batch = connection.NewBatchedReads(c, e.data.SawWorkspace)
	return e
}

func (e *bulkEnv) resetCounts() {
	e.srv.ResetCounters()
	e.peak.Store(0)
	e.mu.Lock()
	e.spans = nil
	e.mu.Unlock()
}

// creates returns n creates named prefix-N in fleet.
func creates(prefix string, n int, fleet string) []Write {
	ws := make([]Write, n)
	for i := range ws {
		name := fmt.Sprintf("%s-%03d", prefix, i)
		ws[i] = Write{Key: name, Name: name, Fleet: fleet}
	}
	return ws
}

// countNames counts the devices of the workspace by name.
func (e *bulkEnv) countNames(t *testing.T) map[string]int {
	t.Helper()
	all, err := e.data.Client.ListDevices(t.Context(), e.b.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, d := range all {
		out[d.Name]++
	}
	return out
}

func (e *bulkEnv) defaultFleet(t *testing.T) string {
	t.Helper()
	fs, err := e.data.Client.ListFleets(t.Context(), e.b.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.Name == "default" {
			return f.ID
		}
	}
	t.Fatal("no default fleet")
	return ""
}

// TestDevicesParallelism checks that the writes of a bulk apply are
// concurrent up to parallelism and no further, and that creates without a
// fleet wait for the first one, which tells the default fleet.
func TestDevicesParallelism(t *testing.T) {
	t.Parallel()
	e := newBulkEnv(t, 0, 5*time.Millisecond)
	e.srv.SetFaults(localzdm.Faults{Latency: 20 * time.Millisecond})
	res := Devices(t.Context(), e.data, e.b.WorkspaceID, creates("p", 40, ""), 5, nil)
	for i, o := range res.Outcomes {
		if o.Err != nil || o.Device == nil {
			t.Fatalf("write %d: %v", i, o.Err)
		}
	}
	e.mu.Lock()
	spans := append([][2]time.Time(nil), e.spans...)
	e.mu.Unlock()
	sort.Slice(spans, func(i, j int) bool { return spans[i][0].Before(spans[j][0]) })
	if len(spans) != 40 || !spans[0][1].Before(spans[1][0]) {
		t.Errorf("%d requests; the first ended %s after the second started: want the first create alone",
			len(spans), spans[0][1].Sub(spans[1][0]))
	}
	if want := e.defaultFleet(t); res.Fleet != want {
		t.Errorf("fleet = %q, want the default fleet %q", res.Fleet, want)
	}
	if p := e.peak.Load(); p != 5 {
		t.Errorf("peak requests in flight = %d, want 5 (parallelism)", p)
	}
	for name, n := range e.countNames(t) {
		if n != 1 {
			t.Errorf("%d devices named %q", n, name)
		}
	}

	// Updates run in parallel too.
	e.resetCounts()
	var ups []Write
	for _, o := range res.Outcomes {
		ups = append(ups, Write{Key: o.Device.Name, ID: o.Device.ID, Name: o.Device.Name + "-x", Fleet: res.Fleet})
	}
	res2 := Devices(t.Context(), e.data, e.b.WorkspaceID, ups, 8, nil)
	for i, o := range res2.Outcomes {
		if o.Err != nil || o.Device.Name != ups[i].Name {
			t.Fatalf("update %d: %v, %+v", i, o.Err, o.Device)
		}
	}
	if p := e.peak.Load(); p != 8 {
		t.Errorf("peak requests in flight = %d, want 8", p)
	}
	if got := e.srv.Counters()[acctest.RouteUpdateDevice]; got != 40 {
		t.Errorf("%d updates, want 40", got)
	}
}

// TestDevicesAmbiguous: every create acts and then loses its
// connection. One list resolves them all; a device of the same name that
// the resource already holds is never adopted.
func TestDevicesAmbiguous(t *testing.T) {
	t.Parallel()
	e := newBulkEnv(t, 0, 5*time.Millisecond)
	ws := e.b.WorkspaceID
	fleet := e.defaultFleet(t)
	// Held by the resource already, same name as a coming create, created
	// within the clock skew allowance.
	held, err := e.data.Client.CreateDevice(t.Context(), ws, "amb-000", fleet)
	if err != nil {
		t.Fatal(err)
	}
	e.resetCounts()
	e.srv.SetFaults(localzdm.Faults{DropAfterCreate: true})
	writes := creates("amb", 30, fleet)
	res := Devices(t.Context(), e.data, ws, writes, 6, map[string]bool{held.ID: true})
	e.srv.SetFaults(localzdm.Faults{})
	ids := map[string]bool{}
	for i, o := range res.Outcomes {
		if o.Err != nil || !o.Adopted {
			t.Fatalf("write %d (%s): adopted=%v err=%v", i, writes[i].Key, o.Adopted, o.Err)
		}
		if o.Device.Name != writes[i].Name || o.Device.ID == held.ID || ids[o.Device.ID] {
			t.Errorf("write %d adopted %+v", i, o.Device)
		}
		ids[o.Device.ID] = true
	}
	c := e.srv.Counters()
	if c[acctest.RouteListDevices] != 1 || c[acctest.RouteCreateDevice] != 30 {
		t.Errorf("requests %v: want 30 creates and 1 list", c)
	}
	if got := AdoptedKeys(writes, res.Outcomes); len(got) != 30 {
		t.Errorf("AdoptedKeys = %d keys, want 30", len(got))
	}
	names := e.countNames(t)
	if names["amb-000"] != 2 || names["amb-001"] != 1 || len(names) != 30 {
		t.Errorf("devices by name: %v", names)
	}

	// Two creates of one name that both lost their answer: both match, so
	// neither is adopted at random.
	e.resetCounts()
	e.srv.SetFaults(localzdm.Faults{DropAfterCreate: true})
	twin := []Write{{Key: "t1", Name: "twin", Fleet: fleet}, {Key: "t2", Name: "twin", Fleet: fleet}}
	res = Devices(t.Context(), e.data, ws, twin, 2, nil)
	e.srv.SetFaults(localzdm.Faults{})
	for i, o := range res.Outcomes {
		if o.Err == nil || !strings.Contains(o.Err.Error(), `2 devices named "twin"`) {
			t.Errorf("twin %d: err = %v, want 2 devices named twin", i, o.Err)
		}
	}
	failed, detail := Failures(twin, res.Outcomes)
	if len(failed) != 2 || !strings.Contains(detail, `"t1" (create "twin")`) {
		t.Errorf("Failures = %v\n%s", failed, detail)
	}
}

// TestDevicesPartialFailure: with no retries and half the requests
// answered 503, some creates fail. Every outcome says what happened, the
// service holds exactly the devices reported created, and sending the
// failed ones again completes the set without duplicates.
func TestDevicesPartialFailure(t *testing.T) {
	t.Parallel()
	e := newBulkEnv(t, -1, 5*time.Millisecond)
	ws := e.b.WorkspaceID
	fleet := e.defaultFleet(t)
	e.srv.SetFaults(localzdm.Faults{ErrorRate: 0.5})
	writes := creates("pf", 40, fleet)
	res := Devices(t.Context(), e.data, ws, writes, 8, nil)
	e.srv.SetFaults(localzdm.Faults{})
	var retry []Write
	created := map[string]bool{}
	for i, o := range res.Outcomes {
		switch {
		case o.Err != nil && o.Device == nil:
			if !client.IsStatus(o.Err, http.StatusServiceUnavailable) {
				t.Errorf("write %d failed with %v, want a 503", i, o.Err)
			}
			retry = append(retry, writes[i])
		case o.Err == nil && o.Device != nil:
			created[o.Device.Name] = true
		default:
			t.Errorf("write %d: device %v with error %v", i, o.Device, o.Err)
		}
	}
	if len(retry) == 0 || len(created) == 0 {
		t.Fatalf("%d failed and %d created: the fault did not split the writes", len(retry), len(created))
	}
	names := e.countNames(t)
	if len(names) != len(created) {
		t.Errorf("the service holds %d devices, the outcomes report %d created", len(names), len(created))
	}
	failed, detail := Failures(writes, res.Outcomes)
	if len(failed) != len(retry) || !strings.Contains(detail, "503") {
		t.Errorf("Failures lists %d keys, want %d:\n%s", len(failed), len(retry), detail)
	}

	res = Devices(t.Context(), e.data, ws, retry, 8, nil)
	for i, o := range res.Outcomes {
		if o.Err != nil {
			t.Errorf("retry %d: %v", i, o.Err)
		}
	}
	names = e.countNames(t)
	for _, w := range writes {
		if names[w.Name] != 1 {
			t.Errorf("%d devices named %q, want 1", names[w.Name], w.Name)
		}
	}
}

// TestDevicesRateLimited: a per-key rate limit (429 with Retry-After)
// slows the writes down but every one succeeds, once.
func TestDevicesRateLimited(t *testing.T) {
	t.Parallel()
	e := newBulkEnv(t, 10, 0)
	ws := e.b.WorkspaceID
	fleet := e.defaultFleet(t)
	e.srv.SetFaults(localzdm.Faults{RateLimit: 20})
	writes := creates("rl", 30, fleet)
	res := Devices(t.Context(), e.data, ws, writes, 16, nil)
	e.srv.SetFaults(localzdm.Faults{})
	for i, o := range res.Outcomes {
		if o.Err != nil {
			t.Errorf("write %d: %v", i, o.Err)
		}
	}
	c := e.srv.Counters()
	if c[acctest.RouteCreateDevice] <= 30 {
		t.Errorf("%d create requests: the rate limit refused none, so this test proves nothing", c[acctest.RouteCreateDevice])
	}
	for name, n := range e.countNames(t) {
		if n != 1 {
			t.Errorf("%d devices named %q", n, name)
		}
	}
}

// TestDevicesInterrupted: Terraform is interrupted in the middle of a
// bulk apply. The writes already sent finish and are reported created; the
// others are never sent; the service holds exactly the devices reported.
func TestDevicesInterrupted(t *testing.T) {
	t.Parallel()
	e := newBulkEnv(t, 0, 5*time.Millisecond)
	ws := e.b.WorkspaceID
	fleet := e.defaultFleet(t)
	e.srv.SetFaults(localzdm.Faults{Latency: 40 * time.Millisecond})
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	writes := creates("int", 60, fleet)
	res := Devices(ctx, e.data, ws, writes, 4, nil)
	e.srv.SetFaults(localzdm.Faults{})
	created, notSent := 0, 0
	for i, o := range res.Outcomes {
		switch {
		case o.Device != nil && o.Err == nil:
			created++
		case o.Err != nil && (strings.Contains(o.Err.Error(), "not sent") || errors.Is(o.Err, client.ErrNotSent)):
			notSent++
		default:
			t.Errorf("write %d: device %v, error %v: want created or not sent", i, o.Device, o.Err)
		}
	}
	if created == 0 || notSent == 0 {
		t.Fatalf("%d created, %d not sent: the interrupt did not fall in the middle of the writes", created, notSent)
	}
	if got := len(e.countNames(t)); got != created {
		t.Errorf("the service holds %d devices, the outcomes report %d created", got, created)
	}
}

// TestImportHint: an ambiguous create of a zdm_fleet_devices
// advises importing the fleet into that resource, never a zdm_device.
func TestImportHint(t *testing.T) {
	t.Parallel()
	got := ImportHint("wks-1", "flt-1")
	if !strings.Contains(got, "terraform import <address of this zdm_fleet_devices> wks-1/flt-1") ||
		!strings.Contains(got, "not as a zdm_device") {
		t.Errorf("hint = %s", got)
	}
	if got := ImportHint("wks-1", ""); !strings.Contains(got, "wks-1/<fleet_id>") {
		t.Errorf("hint for the default fleet = %s", got)
	}
}

// TestDevicesEnterTheSharedListSharingTheirRepeatedFields checks that the
// devices a bulk create answered enter the shared list of the workspace
// (the next read lists nothing) and share one copy of their fleet,
// workspace and account there, where each answer was decoded with its own.
func TestDevicesEnterTheSharedListSharingTheirRepeatedFields(t *testing.T) {
	t.Parallel()
	e := newBulkEnv(t, 0, 0)
	ws, fleet := e.b.WorkspaceID, e.defaultFleet(t)
	if _, err := e.data.ListDevices(t.Context(), ws); err != nil {
		t.Fatal(err)
	}
	e.resetCounts()
	res := Devices(t.Context(), e.data, ws, creates("s", 5, fleet), 5, nil)
	for i, o := range res.Outcomes {
		if o.Err != nil || o.Device == nil {
			t.Fatalf("write %d: %v", i, o.Err)
		}
	}
	all, err := e.data.ListDevices(t.Context(), ws)
	if err != nil {
		t.Fatal(err)
	}
	if n := e.srv.Counters()[acctest.RouteListDevices]; n != 0 {
		t.Fatalf("the read after the bulk create listed the workspace %d times, want 0 (the creates are in the list)", n)
	}
	same := func(a, b string) bool {
		return unsafe.StringData(a) == unsafe.StringData(b) //nolint:gosec // G103: compares where two strings' bytes are, no access.
	}
	var listed []client.Device
	for _, d := range all {
		if strings.HasPrefix(d.Name, "s-") {
			listed = append(listed, d)
		}
	}
	if len(listed) != 5 {
		t.Fatalf("%d of the 5 created devices are in the shared list", len(listed))
	}
	for _, d := range listed[1:] {
		if !same(d.FleetID(), listed[0].FleetID()) || !same(d.WorkspaceID(), listed[0].WorkspaceID()) || !same(d.AccountID(), listed[0].AccountID()) {
			t.Errorf("device %s holds its own copy of its fleet, workspace or account", d.ID)
		}
	}
	// Positive control: the answers themselves were decoded one by one,
	// each with its own copy.
	if a, b := res.Outcomes[0].Device, res.Outcomes[1].Device; same(a.FleetID(), b.FleetID()) {
		t.Error("two answers already share their fleet: the test cannot tell sharing from none")
	}
}
