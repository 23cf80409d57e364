package objects

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// The adoption filter after an ambiguous create: 0, 1 and 2 matches, old
// twins, managed twins and the default fleet.

var adoptSince = time.Date(2026, 5, 1, 12, 0, 0, 500_000_000, time.UTC)

func at(d time.Duration) string { return adoptSince.Add(d).Format(time.RFC3339Nano) }

func TestAdoptableMatches(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cands []Candidate
		owned []string
		want  []string
	}{
		{name: "no candidate", want: nil},
		{name: "no match", cands: []Candidate{{ID: "a", CreatedAt: at(time.Second), Matches: false}}, want: nil},
		{name: "one match", cands: []Candidate{
			{ID: "a", CreatedAt: at(time.Second), Matches: true},
			{ID: "b", CreatedAt: at(time.Second), Matches: false},
		}, want: []string{"a"}},
		{name: "two matches", cands: []Candidate{
			{ID: "a", CreatedAt: at(time.Second), Matches: true},
			{ID: "b", CreatedAt: at(2 * time.Second), Matches: true},
		}, want: []string{"a", "b"}},
		{name: "old twin", cands: []Candidate{
			{ID: "old", CreatedAt: at(-90 * time.Second), Matches: true},
			{ID: "new", CreatedAt: at(time.Second), Matches: true},
		}, want: []string{"new"}},
		{name: "old twin only", cands: []Candidate{
			{ID: "old", CreatedAt: at(-time.Second), Matches: true},
		}, want: nil},
		{name: "managed twin", cands: []Candidate{
			{ID: "managed", CreatedAt: at(time.Second), Matches: true},
			{ID: "new", CreatedAt: at(2 * time.Second), Matches: true},
		}, owned: []string{"managed"}, want: []string{"new"}},
		{name: "managed twin only", cands: []Candidate{
			{ID: "managed", CreatedAt: at(time.Second), Matches: true},
		}, owned: []string{"managed"}, want: nil},
		{name: "unreadable creation time", cands: []Candidate{
			{ID: "a", CreatedAt: "yesterday", Matches: true},
		}, want: nil},
		{name: "creation time in whole seconds, same second as the request", cands: []Candidate{
			{ID: "a", CreatedAt: adoptSince.Truncate(time.Second).Format(time.RFC3339), Matches: true},
		}, want: []string{"a"}},
		{name: "creation time in whole seconds, the second before", cands: []Candidate{
			{ID: "a", CreatedAt: adoptSince.Truncate(time.Second).Add(-time.Second).Format(time.RFC3339), Matches: true},
		}, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := adoptable(tc.cands, adoptSince, func(id string) bool { return slices.Contains(tc.owned, id) })
			if !slices.Equal(got, tc.want) {
				t.Errorf("adoptable = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDeviceCandidateFleet(t *testing.T) {
	d := func(name, fleet string) client.Device {
		return client.Device{ID: "dev-" + name + "-" + fleet, Name: name, Place: &client.Place{FleetID: fleet}, CreatedAt: at(time.Second)}
	}
	for _, tc := range []struct {
		name                       string
		dev                        client.Device
		askName, askFleet, dfFleet string
		want                       bool
	}{
		{"asked fleet", d("x", "flt-1"), "x", "flt-1", "flt-0", true},
		{"other fleet than asked", d("x", "flt-2"), "x", "flt-1", "flt-0", false},
		{"no fleet asked: default fleet", d("x", "flt-0"), "x", "", "flt-0", true},
		{"no fleet asked: another fleet", d("x", "flt-1"), "x", "", "flt-0", false},
		{"no fleet asked: default fleet unknown", d("x", "flt-0"), "x", "", "", false},
		{"other name", d("y", "flt-0"), "x", "", "flt-0", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DeviceCandidate(tc.dev, tc.askName, tc.askFleet, tc.dfFleet).Matches; got != tc.want {
				t.Errorf("Matches = %t, want %t", got, tc.want)
			}
		})
	}
}

func TestDefaultFleetOf(t *testing.T) {
	fleets := []client.Fleet{{ID: "flt-a", Name: "sensors"}, {ID: "flt-d", Name: "default"}}
	if got := DefaultFleetOf(fleets); got != "flt-d" {
		t.Errorf("defaultFleetOf = %q, want flt-d", got)
	}
	if got := DefaultFleetOf(append(fleets, client.Fleet{ID: "flt-e", Name: "default"})); got != "" {
		t.Errorf("two fleets named default: %q, want none", got)
	}
	if got := DefaultFleetOf(fleets[:1]); got != "" {
		t.Errorf("no fleet named default: %q, want none", got)
	}
}

// datedClient is a client that learned the service's clock from one
// answer of a server whose clock is the local one.
func datedClient(t *testing.T) *client.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"workspaces":[]}`)
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{BaseURL: srv.URL, APIKey: "test-key-123", RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListWorkspaces(t.Context()); err != nil {
		t.Fatal(err)
	}
	return c
}

// resolveWith runs resolveCreate of a device "x" sent now over a listing
// that returns devs (the request failed with cause), and returns the adopted
// device, the diagnostics and the number of listings.
func resolveWith(t *testing.T, d *connection.ProviderData, devs func(sent time.Time) []client.Device, cause error) (*client.Device, diag.Diagnostics, int) {
	t.Helper()
	sent := time.Now()
	var listings atomic.Int32
	var diags diag.Diagnostics
	a := AmbiguousCreate{Kind: "device", Name: "x", Summary: "Cannot create device", Ws: "wks-1", Cause: cause, Sent: sent}
	got := ResolveCreate(t.Context(), d, a,
		func(context.Context) ([]client.Device, error) {
			listings.Add(1)
			return devs(sent), nil
		},
		func(dev client.Device) Candidate { return DeviceCandidate(dev, "x", "flt-1", "") },
		func(dev client.Device) string { return dev.ID }, &diags)
	return got, diags, int(listings.Load())
}

func created(id string, when time.Time) client.Device {
	return client.Device{ID: id, Name: "x", Place: &client.Place{FleetID: "flt-1"}, CreatedAt: when.UTC().Format(time.RFC3339Nano)}
}

var errCut = errors.New("POST /v3/workspaces/wks-1/devices: the connection failed after the request was sent")

func TestResolveCreate(t *testing.T) {
	d := &connection.ProviderData{Client: datedClient(t)}

	got, diags, _ := resolveWith(t, d, func(sent time.Time) []client.Device {
		return []client.Device{created("dev-new", sent.Add(2*time.Second))}
	}, errCut)
	if got == nil || got.ID != "dev-new" || diags.HasError() || diags.WarningsCount() != 1 {
		t.Fatalf("one match: adopted %+v, diagnostics %v", got, diags)
	}
	if !d.Owns("device", "dev-new") {
		t.Error("the adopted device is not recorded as owned")
	}

	// Two matches: an error naming both, nothing adopted.
	got, diags, _ = resolveWith(t, d, func(sent time.Time) []client.Device {
		return []client.Device{created("dev-a", sent.Add(2*time.Second)), created("dev-b", sent.Add(3*time.Second))}
	}, errCut)
	if got != nil || !diags.HasError() || !strings.Contains(diagText(diags), "dev-a, dev-b") {
		t.Fatalf("two matches: adopted %+v, diagnostics %v", got, diags)
	}

	// A managed twin (created by another resource of this operation) and
	// an old twin are never adopted; nothing else matches.
	d.Own("device", "dev-managed")
	got, diags, listings := resolveWith(t, d, func(sent time.Time) []client.Device {
		return []client.Device{created("dev-managed", sent.Add(2*time.Second)), created("dev-old", sent.Add(-90*time.Second))}
	}, errCut)
	text := diagText(diags)
	if got != nil || !diags.HasError() {
		t.Fatalf("only twins: adopted %+v, diagnostics %v", got, diags)
	}
	if !strings.Contains(text, "may have been created") || strings.Contains(text, "nothing was created") ||
		strings.Contains(text, "converge") || !strings.Contains(text, "terraform import") ||
		!strings.Contains(text, `data "zdm_devices"`) {
		t.Errorf("no match: the message does not say how to find and import the device safely: %s", text)
	}
	if listings != 2 {
		t.Errorf("no match after a reset: %d listings, want 2 (one re-check)", listings)
	}
}

// TestResolveCreateRechecksAfterTimeout: after a timeout, the request may
// still be queued: a device that shows up only at the third listing is
// adopted.
func TestResolveCreateRechecksAfterTimeout(t *testing.T) {
	d := &connection.ProviderData{Client: datedClient(t)}
	var calls atomic.Int32
	timeout := &timeoutError{}
	got, diags, listings := resolveWith(t, d, func(sent time.Time) []client.Device {
		if calls.Add(1) < 3 {
			return nil
		}
		return []client.Device{created("dev-late", sent.Add(4*time.Second))}
	}, timeout)
	if got == nil || got.ID != "dev-late" || diags.HasError() {
		t.Fatalf("late device after a timeout: adopted %+v, diagnostics %v", got, diags)
	}
	if listings != 3 {
		t.Errorf("%d listings, want 3", listings)
	}
}

type timeoutError struct{}

func (*timeoutError) Error() string {
	return "POST /v3/workspaces/wks-1/devices: request timed out after 1s"
}
func (*timeoutError) Unwrap() error { return context.DeadlineExceeded }

func diagText(diags diag.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString(d.Summary() + ": " + d.Detail() + "\n")
	}
	return b.String()
}

func TestAdoptedWarning(t *testing.T) {
	t.Parallel()
	_, detail := adoptedWarning("fleet", "f1", "flt-9")
	if !strings.Contains(detail, `fleet "f1" (id flt-9)`) || !strings.Contains(detail, "service's clock") {
		t.Errorf("adopted: %s", detail)
	}
}

// TestAmbiguousCreateImportHint: the advice of an unresolved ambiguous
// create is the resource's own when it gives one (zdm_fleet_devices), the
// import of a zdm_<kind> otherwise (the control).
func TestAmbiguousCreateImportHint(t *testing.T) {
	t.Parallel()
	a := AmbiguousCreate{Kind: "device", Name: "d1", Ws: "wks-1", Cause: errors.New("connection reset"), Sent: time.Now()}
	if got := a.mayExist("why.", time.Time{}); !strings.Contains(got, "terraform import <address of this zdm_device> wks-1/<device_id>") {
		t.Errorf("without Import: %s", got)
	}
	a.Import = "into this zdm_fleet_devices: terraform import <address of this zdm_fleet_devices> wks-1/flt-1."
	got := a.mayExist("why.", time.Time{})
	if !strings.Contains(got, "import it: into this zdm_fleet_devices") || strings.Contains(got, "address of this zdm_device>") {
		t.Errorf("with Import: %s", got)
	}
}
