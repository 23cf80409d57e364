package localzdm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// try sends an API request with the bootstrap key and returns the answer or
// the transport error (a reset or dropped connection, a timeout).
func (e *env) try(hc *http.Client, method, path string, body string) (resp, error) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.s.BaseURL()+"/v3"+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("X-API-KEY", e.b.APIKey)
	res, err := hc.Do(req)
	if err != nil {
		return resp{}, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return resp{}, err
	}
	return resp{status: res.StatusCode, header: res.Header, body: data}, nil
}

// addFault adds a request fault through the admin API (viaHTTP) or the Go
// API and returns its ID.
func (e *env) addFault(viaHTTP bool, f localzdm.RequestFault) int {
	e.t.Helper()
	if viaHTTP {
		var got localzdm.RequestFault
		e.ok(e.admin(http.MethodPost, "/faults/requests", f), &got)
		if got.ID == 0 || !got.Active || got.Action != f.Action {
			e.t.Fatalf("added fault = %+v", got)
		}
		return got.ID
	}
	id, err := e.s.AddRequestFault(f)
	if err != nil {
		e.t.Fatalf("AddRequestFault: %v", err)
	}
	return id
}

// fault returns a request fault by ID, read through the admin API.
func (e *env) fault(id int) localzdm.RequestFault {
	e.t.Helper()
	var out struct{ Faults []localzdm.RequestFault }
	e.ok(e.admin(http.MethodGet, "/faults/requests", nil), &out)
	for _, f := range out.Faults {
		if f.ID == id {
			return f
		}
	}
	e.t.Fatalf("fault %d not listed in %+v", id, out.Faults)
	return localzdm.RequestFault{}
}

// freshClient does not reuse connections, so a closed connection is an
// error rather than a transparent retry.
func freshClient(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
}

func TestRequestFaultReset(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hc := freshClient(10 * time.Second)
	devices := "/workspaces/" + e.b.WorkspaceID + "/devices"
	for _, viaHTTP := range []bool{false, true} {
		id := e.addFault(viaHTTP, localzdm.RequestFault{
			Method: http.MethodPost, Path: "/v3/workspaces/{workspace_id}/devices", Action: localzdm.FaultReset, Count: 1,
		})
		before := e.devicesNow()
		// A GET of the same path is not matched.
		if r, err := e.try(hc, http.MethodGet, devices, ""); err != nil || r.status != http.StatusOK {
			t.Fatalf("GET with a POST fault: %v %v", r, err)
		}
		if _, err := e.try(hc, http.MethodPost, devices, `{"name":"reset"}`); err == nil {
			t.Fatal("the POST was answered, want a closed connection")
		}
		if n := e.devicesNow(); n != before {
			t.Fatalf("%d devices after a reset POST, want %d: the service acted", n, before)
		}
		if f := e.fault(id); f.Hits != 1 || f.Active {
			t.Fatalf("fault after one reset = %+v, want 1 hit and spent", f)
		}
		// The next POST goes through: the count is spent.
		if r, err := e.try(hc, http.MethodPost, devices, `{"name":"ok"}`); err != nil || r.status != http.StatusOK {
			t.Fatalf("POST after the fault was spent: %v %v", r, err)
		}
		if n := e.devicesNow(); n != before+1 {
			t.Fatalf("%d devices, want %d", n, before+1)
		}
	}
}

func TestRequestFaultDropAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hc := freshClient(10 * time.Second)
	d := e.createDevice("d", "")
	f := e.createFleet("f")
	for i, viaHTTP := range []bool{false, true} {
		n := strconv.Itoa(i)
		cases := []struct {
			method, pattern, path, body string
			check                       func()
		}{
			{http.MethodPost, "/v3/devices/{device_id}/jobs/{job_name}", "/devices/" + d.ID + "/jobs/reboot" + n, `{"value":{"n":1}}`, func() {
				e.ok(e.api(http.MethodGet, "/devices/"+d.ID+"/jobs/reboot"+n, nil), nil)
			}},
			{http.MethodPost, "/v3/devices/{device_id}/fota/*", "/devices/" + d.ID + "/fota/fw/versions/" + n, "", func() {
				var out struct{ FOTA fotaStatus }
				e.ok(e.api(http.MethodGet, "/devices/"+d.ID+"/fota", nil), &out)
				if out.FOTA.Value.FirmwareVersion != n {
					t.Fatalf("FOTA = %+v, want version %s", out.FOTA, n)
				}
			}},
			{http.MethodPost, "/v3/workspace/{workspace_id}/jobs/{job_name}", "/workspace/" + e.b.WorkspaceID + "/jobs/fleet" + n + "?fleet=" + d.FleetID, "", func() {
				e.ok(e.api(http.MethodGet, "/devices/"+d.ID+"/jobs/fleet"+n, nil), nil)
			}},
			{http.MethodPost, "/v3/workspaces/{workspace_id}/fota/*", "/workspaces/" + e.b.WorkspaceID + "/fota/fleetfw/versions/" + n + "?fleet=" + d.FleetID, "", func() {
				var out struct{ FOTA fotaStatus }
				e.ok(e.api(http.MethodGet, "/devices/"+d.ID+"/fota", nil), &out)
				if out.FOTA.Value.FirmwareID != "fleetfw" {
					t.Fatalf("FOTA = %+v, want firmware fleetfw", out.FOTA)
				}
			}},
			{http.MethodPut, "/v3/workspaces/{workspace_id}/devices/{device_id}", "/workspaces/" + e.b.WorkspaceID + "/devices/" + d.ID, `{"name":"renamed` + n + `","fleet_id":"` + f.ID + `"}`, func() {
				var out struct{ Device device }
				e.ok(e.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/devices/"+d.ID, nil), &out)
				if out.Device.Name != "renamed"+n || out.Device.FleetID != f.ID {
					t.Fatalf("device = %+v, want renamed and moved", out.Device)
				}
				d = out.Device
			}},
		}
		for _, tc := range cases {
			id := e.addFault(viaHTTP, localzdm.RequestFault{Method: tc.method, Path: tc.pattern, Action: localzdm.FaultDropAnswer, Count: 1})
			if r, err := e.try(hc, tc.method, tc.path, tc.body); err == nil {
				t.Fatalf("%s %s answered %s, want a dropped answer", tc.method, tc.path, r)
			}
			tc.check() // the service acted
			if f := e.fault(id); f.Hits != 1 || f.Active {
				t.Fatalf("fault = %+v, want 1 hit and spent", f)
			}
		}
	}
}

func TestRequestFaultDelay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	devices := "/workspaces/" + e.b.WorkspaceID + "/devices"
	for _, viaHTTP := range []bool{false, true} {
		before := e.devicesNow()
		id := e.addFault(viaHTTP, localzdm.RequestFault{
			Method: http.MethodPost, Path: "/v3/workspaces/{workspace_id}/devices", Action: localzdm.FaultDelay,
			Delay: 3 * time.Second, Count: 1,
		})
		// The client gives up once the server holds the request ...
		ctx, cancel := context.WithCancel(context.Background())
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.s.BaseURL()+"/v3"+devices, strings.NewReader(`{"name":"late"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-API-KEY", e.b.APIKey)
		done := make(chan error, 1)
		go func() {
			res, err := freshClient(0).Do(req)
			if err == nil {
				res.Body.Close()
			}
			done <- err
		}()
		deadline := time.Now().Add(20 * time.Second)
		for e.fault(id).Hits == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the POST never reached the server")
			}
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("POST given up during the delay: %v, want context.Canceled", err)
		}
		// ... and the service acts later all the same.
		for e.devicesNow() == before {
			if time.Now().After(deadline) {
				t.Fatal("the delayed POST never created the device")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if n := e.devicesNow(); n != before+1 {
			t.Fatalf("%d devices, want %d", n, before+1)
		}
	}
	// A client that waits gets the answer.
	e.addFault(false, localzdm.RequestFault{Path: "/v3/workspaces", Action: localzdm.FaultDelay, Delay: 10 * time.Millisecond, Count: 1})
	if r, err := e.try(freshClient(10*time.Second), http.MethodGet, "/workspaces", ""); err != nil || r.status != http.StatusOK {
		t.Fatalf("delayed GET: %v %v", r, err)
	}
}

func TestRequestFaultHTMLError(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hc := freshClient(10 * time.Second)
	for _, viaHTTP := range []bool{false, true} {
		id := e.addFault(viaHTTP, localzdm.RequestFault{Path: "/v3/*", Action: localzdm.FaultHTMLError, Count: 2})
		for range 2 {
			r, err := e.try(hc, http.MethodPost, "/workspaces/"+e.b.WorkspaceID+"/devices", `{"name":"x"}`)
			if err != nil || r.status != http.StatusInternalServerError || r.header.Get("Content-Type") != "text/html" ||
				!bytes.Contains(r.body, []byte("<html>")) || !bytes.Contains(r.body, []byte("500 Internal Server Error")) {
				t.Fatalf("want a 500 HTML page, got %v %v", r, err)
			}
		}
		if n := e.devicesNow(); n != 0 {
			t.Fatalf("%d devices created through HTML errors", n)
		}
		if f := e.fault(id); f.Hits != 2 || f.Active {
			t.Fatalf("fault = %+v", f)
		}
	}
	// Another status, over a time window rather than a count.
	id := e.addFault(true, localzdm.RequestFault{Path: "/v3/*", Action: localzdm.FaultHTMLError, Status: 502, For: time.Hour})
	for range 3 {
		if r, _ := e.try(hc, http.MethodGet, "/workspaces", ""); r.status != http.StatusBadGateway || !bytes.Contains(r.body, []byte("502 Bad Gateway")) {
			t.Fatalf("want 502 HTML during the window, got %v", r)
		}
	}
	if f := e.fault(id); !f.Active || f.Hits != 3 || f.For != time.Hour {
		t.Fatalf("fault in its window = %+v", f)
	}
	e.ok(e.admin(http.MethodDelete, "/faults/requests/"+strconv.Itoa(id), nil), nil)
	id = e.addFault(false, localzdm.RequestFault{Path: "/v3/*", Action: localzdm.FaultHTMLError, For: time.Millisecond})
	time.Sleep(5 * time.Millisecond)
	if r, err := e.try(hc, http.MethodGet, "/workspaces", ""); err != nil || r.status != http.StatusOK {
		t.Fatalf("after the window: %v %v", r, err)
	}
	if f := e.fault(id); f.Active || f.Hits != 0 {
		t.Fatalf("fault after its window = %+v", f)
	}
}

func TestRequestFaultNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := e.s.SetStorage(e.b.WorkspaceID, true); err != nil {
		t.Fatal(err)
	}
	hc := freshClient(10 * time.Second)
	e.addFault(true, localzdm.RequestFault{Path: "/v3/*", Action: localzdm.FaultNotFound})
	for _, path := range []string{"/workspaces", "/workspaces/" + e.b.WorkspaceID, "/workspaces/" + e.b.WorkspaceID + "/devices", "/devices/x/jobs"} {
		r, err := e.try(hc, http.MethodGet, path, "")
		if err != nil || r.status != http.StatusNotFound || string(r.body) != "404 page not found\n" {
			t.Fatalf("GET %s: %v %v, want the catch-all 404", path, r, err)
		}
	}
	r := e.storage("/timeseries/" + e.b.WorkspaceID + "/data")
	if r.status != http.StatusNotFound || string(r.body) != "404 page not found\n" {
		t.Fatalf("storage: %v", r)
	}
	// The admin API still answers; clearing the faults restores the service.
	e.ok(e.admin(http.MethodDelete, "/faults/requests", nil), nil)
	e.ok(e.api(http.MethodGet, "/workspaces", nil), nil)
	if got := e.s.RequestFaults(); len(got) != 0 {
		t.Fatalf("faults after clearing = %+v", got)
	}

	// The test helper server answers the same to every path.
	u := localzdm.StartNotFoundTest(t)
	res, err := hc.Get(u + "/v3/workspaces")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound || string(body) != "404 page not found\n" {
		t.Fatalf("catch-all server: %d %q", res.StatusCode, body)
	}
}

func TestRequestFaultMatching(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hc := freshClient(10 * time.Second)
	d := e.createDevice("d", "")
	other := e.createDevice("other", "")
	// A concrete path matches that device only; faults are tried in order.
	first := e.addFault(false, localzdm.RequestFault{Method: http.MethodGet, Path: "/v3/devices/" + d.ID + "/jobs", Action: localzdm.FaultHTMLError, Count: 1})
	second := e.addFault(false, localzdm.RequestFault{Path: "/v3/devices/{device_id}/*", Action: localzdm.FaultNotFound, Count: 1})
	if r, _ := e.try(hc, http.MethodGet, "/devices/"+other.ID+"/jobs", ""); r.status != http.StatusNotFound {
		t.Fatalf("other device: %v, want the prefix fault's 404", r)
	}
	if r, _ := e.try(hc, http.MethodGet, "/devices/"+d.ID+"/jobs", ""); r.status != http.StatusInternalServerError {
		t.Fatalf("named device: %v, want the first fault's 500", r)
	}
	if r, err := e.try(hc, http.MethodGet, "/devices/"+d.ID+"/jobs", ""); err != nil || r.status != http.StatusOK {
		t.Fatalf("after both faults were spent: %v %v", r, err)
	}
	if e.fault(first).Hits != 1 || e.fault(second).Hits != 1 {
		t.Fatalf("hits: %+v %+v", e.fault(first), e.fault(second))
	}
	// Reset clears them.
	e.addFault(false, localzdm.RequestFault{Action: localzdm.FaultReset})
	e.s.Reset()
	if got := e.s.RequestFaults(); len(got) != 0 {
		t.Fatalf("faults after Reset = %+v", got)
	}
}

func TestRequestFaultInvalid(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		f    localzdm.RequestFault
		want string
	}{
		{localzdm.RequestFault{}, `"action" is required`},
		{localzdm.RequestFault{Action: "explode"}, `"action" must be`},
		{localzdm.RequestFault{Action: localzdm.FaultDelay}, `"delay" of a "delay" fault is required`},
		{localzdm.RequestFault{Action: localzdm.FaultDelay, Delay: 2 * time.Hour}, `"delay" must be at most 1h0m0s, got 2h0m0s`},
		{localzdm.RequestFault{Action: localzdm.FaultReset, Delay: time.Second}, `"delay" applies to "delay" faults only`},
		{localzdm.RequestFault{Action: localzdm.FaultHTMLError, Status: 399}, `"status" of a "html_error" fault must be between 400 and 599`},
		{localzdm.RequestFault{Action: localzdm.FaultHTMLError, Status: 600}, `"status" of a "html_error" fault must be between 400 and 599`},
		{localzdm.RequestFault{Action: localzdm.FaultReset, Status: 500}, `"status" applies to "html_error" faults only`},
		{localzdm.RequestFault{Action: localzdm.FaultReset, Count: -1}, `"count" must not be negative`},
		{localzdm.RequestFault{Action: localzdm.FaultReset, For: -time.Second}, `"for" must not be negative, got -1s`},
		{localzdm.RequestFault{Action: localzdm.FaultReset, For: 25 * time.Hour}, `"for" must be at most 24h0m0s, got 25h0m0s`},
		{localzdm.RequestFault{Action: localzdm.FaultReset, Path: "v3/workspaces"}, `"path" must start with "/"`},
		{localzdm.RequestFault{Action: localzdm.FaultReset, Path: "/v3/*/devices"}, `"*" may only be the last segment`},
		{localzdm.RequestFault{Action: localzdm.FaultReset, Method: "post"}, `upper-case HTTP method`},
	} {
		_, err := e.s.AddRequestFault(tc.f)
		var le *localzdm.Error
		if !errors.As(err, &le) || le.Status != http.StatusBadRequest || !strings.Contains(le.Message, tc.want) {
			t.Fatalf("AddRequestFault(%+v) = %v, want 400 %s", tc.f, err, tc.want)
		}
		e.fails(e.admin(http.MethodPost, "/faults/requests", tc.f), http.StatusBadRequest, tc.want)
	}
	if got := e.s.RequestFaults(); len(got) != 0 {
		t.Fatalf("refused faults were added: %+v", got)
	}
	e.fails(e.admin(http.MethodDelete, "/faults/requests/99", nil), http.StatusNotFound, "request fault 99")
	e.fails(e.admin(http.MethodDelete, "/faults/requests/x", nil), http.StatusNotFound, `request fault "x"`)
	// Durations may be numbers of milliseconds in the admin API.
	var got localzdm.RequestFault
	e.ok(e.admin(http.MethodPost, "/faults/requests", json.RawMessage(`{"action":"delay","delay":250,"for":"1m"}`)), &got)
	if got.Delay != 250*time.Millisecond || got.For != time.Minute {
		t.Fatalf("fault = %+v", got)
	}
}

// devicesNow counts the devices of the bootstrap workspace.
func (e *env) devicesNow() int {
	e.t.Helper()
	var list struct{ Devices []device }
	e.ok(e.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/devices", nil), &list)
	return len(list.Devices)
}
