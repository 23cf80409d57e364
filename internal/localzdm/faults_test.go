package localzdm_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

func (e *env) deviceCount() int {
	e.t.Helper()
	var list struct{ Devices []device }
	e.ok(e.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/devices", nil), &list)
	return len(list.Devices)
}

func TestFaultErrorRate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := e.s.SetStorage(e.b.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	devices := "/workspaces/" + e.b.WorkspaceID + "/devices"
	for _, tc := range []struct {
		retryAfter time.Duration
		want       string
	}{
		{0, "1"},
		{2500 * time.Millisecond, "3"},
		{-1, "0"},
	} {
		e.s.SetFaults(localzdm.Faults{ErrorRate: 1, RetryAfter: tc.retryAfter})
		r := e.api(http.MethodPost, devices, map[string]string{"name": "x"})
		ae := e.fails(r, http.StatusServiceUnavailable, "unavailable")
		if ae.Error.Code != localzdm.CodeUnavailable || r.header.Get("Retry-After") != tc.want {
			t.Fatalf("RetryAfter %s: code %q, Retry-After %q, want %q", tc.retryAfter, ae.Error.Code, r.header.Get("Retry-After"), tc.want)
		}
		e.fails(e.storage("/timeseries/"+e.b.WorkspaceID+"/data"), http.StatusServiceUnavailable, "")
		// The admin API is never faulted.
		e.ok(e.admin(http.MethodGet, "/counters", nil), nil)
	}
	e.s.SetFaults(localzdm.Faults{})
	if n := e.deviceCount(); n != 0 {
		t.Fatalf("a request answered 503 created %d devices", n)
	}

	// A fraction of requests fails.
	e.s.SetFaults(localzdm.Faults{ErrorRate: 0.5})
	counts := map[int]int{}
	for range 200 {
		counts[e.api(http.MethodGet, "/workspaces", nil).status]++
	}
	if counts[http.StatusOK] < 40 || counts[http.StatusServiceUnavailable] < 40 || len(counts) != 2 {
		t.Fatalf("ErrorRate 0.5 over 200 requests: %v", counts)
	}
}

// drain sends requests until one is not answered 200, and returns it and
// the number of 200 answers before it.
func (e *env) drain(send func() resp) (resp, int) {
	e.t.Helper()
	for i := range 100 {
		if r := send(); r.status != http.StatusOK {
			return r, i
		}
	}
	e.t.Fatal("100 requests passed the rate limit")
	return resp{}, 0
}

func TestFaultRateLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key2, err := e.s.CreateKey(e.b.WorkspaceID)
	if err != nil {
		t.Fatal(err)
	}
	devices := "/workspaces/" + e.b.WorkspaceID + "/devices"
	// The bucket starts full: a burst of RateLimit requests passes.
	e.s.SetFaults(localzdm.Faults{RateLimit: 3})
	for i := range 3 {
		if r := e.api(http.MethodGet, "/workspaces", nil); r.status != http.StatusOK {
			t.Fatalf("request %d within the burst: %s", i, r)
		}
	}
	if n := e.s.RateLimited(); n != 0 {
		t.Fatalf("RateLimited = %d within the burst", n)
	}
	r, created := e.drain(func() resp { return e.api(http.MethodPost, devices, map[string]string{"name": "x"}) })
	if n := e.s.RateLimited(); n != 1 {
		t.Fatalf("RateLimited = %d after one refusal, want 1", n)
	}
	ae := e.fails(r, http.StatusTooManyRequests, "rate limit")
	if ae.Error.Code != localzdm.CodeRateLimited || r.header.Get("Retry-After") != "1" {
		t.Fatalf("code %q, Retry-After %q", ae.Error.Code, r.header.Get("Retry-After"))
	}
	// Buckets are per key.
	e.ok(e.do(http.MethodGet, e.s.BaseURL()+"/v3/workspaces", key2, nil), nil)
	// A configured Retry-After wins.
	e.s.SetFaults(localzdm.Faults{RateLimit: 0.5, RetryAfter: 7 * time.Second})
	e.ok(e.api(http.MethodGet, "/workspaces", nil), nil)
	r = e.api(http.MethodGet, "/workspaces", nil)
	e.fails(r, http.StatusTooManyRequests, "")
	if r.header.Get("Retry-After") != "7" {
		t.Fatalf("Retry-After = %q, want 7", r.header.Get("Retry-After"))
	}
	// NoRetryAfter leaves the header out (the answer above shows that it
	// would be seen).
	e.s.SetFaults(localzdm.Faults{RateLimit: 0.5, NoRetryAfter: true})
	_, _ = e.drain(func() resp { return e.api(http.MethodGet, "/workspaces", nil) })
	r = e.api(http.MethodGet, "/workspaces", nil)
	e.fails(r, http.StatusTooManyRequests, "rate limit")
	if v, ok := r.header["Retry-After"]; ok {
		t.Fatalf("Retry-After = %q with no_retry_after", v)
	}
	// The bucket refills over time.
	e.s.SetFaults(localzdm.Faults{RateLimit: 5})
	_, _ = e.drain(func() resp { return e.api(http.MethodGet, "/workspaces", nil) })
	time.Sleep(250 * time.Millisecond)
	e.ok(e.api(http.MethodGet, "/workspaces", nil), nil)

	e.s.SetFaults(localzdm.Faults{})
	if n := e.deviceCount(); n != created {
		t.Fatalf("%d devices exist, %d creates were answered 200: a request answered 429 changed state", n, created)
	}
}

func TestFaultLatency(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// A request with a deadline answers without latency, and fails within
	// an hour of latency: the latency was applied.
	get := func(base, path string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(path, "/v3/") {
			req.Header.Set("X-API-KEY", e.b.APIKey)
		}
		res, err := e.hc.Do(req)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("%s answered %d", path, res.StatusCode)
		}
		return nil
	}
	if err := get(e.s.BaseURL(), "/v3/workspaces"); err != nil {
		t.Fatalf("without latency: %v", err)
	}
	e.s.SetFaults(localzdm.Faults{Latency: time.Hour})
	if err := get(e.s.BaseURL(), "/v3/workspaces"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("with an hour of latency: %v, want the request's deadline exceeded", err)
	}
	// The admin API has no latency: it answers within the same deadline.
	if err := get(e.s.AdminURL(), "/counters"); err != nil {
		t.Fatalf("admin request with an hour of API latency: %v", err)
	}
	// A client giving up during the latency leaves no change behind: the
	// request is seen by the server (counted) before the client gives up,
	// and the device count is read well after the latency would have
	// ended, so a handler that ignored the abandon would have created it.
	e.s.SetFaults(localzdm.Faults{Latency: 300 * time.Millisecond})
	route := "POST /v3/workspaces/{workspace_id}/devices"
	before := e.s.Counters()[route]
	post := func(ctx context.Context, name string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.s.BaseURL()+"/v3/workspaces/"+e.b.WorkspaceID+"/devices",
			strings.NewReader(`{"name":"`+name+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-API-KEY", e.b.APIKey)
		res, err := e.hc.Do(req)
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("create %s answered %d", name, res.StatusCode)
		}
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- post(ctx, "late") }()
	for e.s.Counters()[route] == before {
		select {
		case err := <-done:
			t.Fatalf("request within the latency answered before it was abandoned: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("request within the latency answered")
	}
	time.Sleep(700 * time.Millisecond) // past the latency of the abandoned request
	if n := e.deviceCount(); n != 0 {
		t.Fatalf("an abandoned request created %d devices", n)
	}
	// Positive control: the same request, not abandoned, creates its device
	// once the latency has passed.
	if err := post(context.Background(), "patient"); err != nil {
		t.Fatalf("create with latency: %v", err)
	}
	if n := e.deviceCount(); n != 1 {
		t.Fatalf("after a create that waited out the latency: %d devices, want 1", n)
	}
}

func TestFaultDropAfterCreate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.s.SetFaults(localzdm.Faults{DropAfterCreate: true})
	ws := e.b.WorkspaceID
	for _, path := range []string{"/workspaces/" + ws + "/devices", "/workspaces/" + ws + "/fleets", "/workspaces"} {
		req, err := http.NewRequest(http.MethodPost, e.s.BaseURL()+"/v3"+path, strings.NewReader(`{"name":"dropped"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-API-KEY", e.b.APIKey)
		res, err := e.hc.Do(req)
		if err == nil {
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			t.Fatalf("POST %s answered %d %s; want the connection closed", path, res.StatusCode, body)
		}
	}
	// GETs and failed POSTs answer normally.
	e.ok(e.api(http.MethodGet, "/workspaces", nil), nil)
	e.fails(e.api(http.MethodPost, "/workspaces/"+ws+"/devices", map[string]string{"name": ""}), http.StatusBadRequest, "name")

	e.s.SetFaults(localzdm.Faults{})
	var devs struct{ Devices []device }
	e.ok(e.api(http.MethodGet, "/workspaces/"+ws+"/devices", nil), &devs)
	if len(devs.Devices) != 1 || devs.Devices[0].Name != "dropped" {
		t.Fatalf("the dropped create must have acted: %+v", devs.Devices)
	}
	var fleets struct{ Fleets []fleet }
	e.ok(e.api(http.MethodGet, "/workspaces/"+ws+"/fleets", nil), &fleets)
	if len(fleets.Fleets) != 2 {
		t.Fatalf("fleets = %+v", fleets.Fleets)
	}
}

func TestFaultHang(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.s.SetFaults(localzdm.Faults{Hang: true})
	client := &http.Client{Timeout: 100 * time.Millisecond}
	req := mustRequest(t, http.MethodGet, e.s.BaseURL()+"/v3/workspaces", e.b.APIKey)
	if res, err := client.Do(req); err == nil {
		res.Body.Close()
		t.Fatal("a hanging request answered")
	}
	e.s.SetFaults(localzdm.Faults{})
	e.ok(e.api(http.MethodGet, "/workspaces", nil), nil)

	// Close releases hanging requests.
	s := localzdm.StartTest(t)
	b, err := s.Bootstrap("hang")
	if err != nil {
		t.Fatal(err)
	}
	s.SetFaults(localzdm.Faults{Hang: true})
	done := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(mustRequest(t, http.MethodGet, s.StorageURL()+"/v3/timeseries/"+b.WorkspaceID+"/data", b.APIKey))
		if err == nil {
			res.Body.Close()
			err = errors.New("answered")
		}
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for s.TotalRequests() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	// The request hangs until Close releases it (a Close that does not
	// release it hangs here until go test's timeout).
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil || err.Error() == "answered" {
		t.Fatalf("hanging request: %v", err)
	}
}
