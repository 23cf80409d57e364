package localzdm_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// TestLoad runs 64 concurrent clients against one server over loopback:
// mixed reads and writes across four workspaces, at least 20,000 requests.
// Every request must succeed and every write must be readable afterwards.
func TestLoad(t *testing.T) {
	t.Parallel()
	const (
		clients    = 64
		perClient  = 320
		workspaces = 4
	)
	s := localzdm.StartTest(t)
	tr := &http.Transport{MaxIdleConns: clients * 2, MaxIdleConnsPerHost: clients * 2}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr, Timeout: 60 * time.Second}

	var boots []localzdm.Bootstrap
	for i := range workspaces {
		b, err := s.Bootstrap("load-" + strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetStorage(b.WorkspaceID, true); err != nil {
			t.Fatal(err)
		}
		boots = append(boots, b)
	}

	var requests, failures atomic.Int64
	var firstErr sync.Once
	// call sends one request and decodes a 200 answer into out.
	call := func(base, method, path, key string, body any, out any) bool {
		requests.Add(1)
		var rd io.Reader
		if body != nil {
			data, err := json.Marshal(body)
			if err != nil {
				panic(err)
			}
			rd = bytes.NewReader(data)
		}
		req, err := http.NewRequest(method, base+"/v3"+path, rd)
		if err != nil {
			panic(err)
		}
		req.Header.Set("X-API-KEY", key)
		req.Header.Set("Content-Type", "application/json")
		res, err := hc.Do(req)
		if err == nil {
			var data []byte
			data, err = io.ReadAll(res.Body)
			res.Body.Close()
			if err == nil && res.StatusCode != http.StatusOK {
				err = fmt.Errorf("status %d: %s", res.StatusCode, data)
			}
			if err == nil && out != nil {
				err = json.Unmarshal(data, out)
			}
		}
		if err != nil {
			failures.Add(1)
			firstErr.Do(func() { t.Errorf("%s %s: %v", method, path, err) })
			return false
		}
		return true
	}

	type written struct {
		ws      int
		name    string
		fleetID string
		jobs    map[string]bool
	}
	results := make([]map[string]*written, clients)
	fleetsMade := make([][]string, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := map[string]*written{}
			results[c] = mine
			wi := c % workspaces
			b := boots[wi]
			mgmt, stor := s.BaseURL(), s.StorageURL()
			wsPath := "/workspaces/" + b.WorkspaceID
			var ids []string
			fleetID := ""
			for i := range perClient {
				var last string
				if len(ids) > 0 {
					last = ids[(i*7)%len(ids)]
				}
				switch op := i % 20; {
				case op < 4 || last == "":
					var out struct{ Device device }
					name := fmt.Sprintf("c%d-d%d", c, i)
					body := map[string]string{"name": name}
					if fleetID != "" && i%2 == 0 {
						body["fleet_id"] = fleetID
					}
					if call(mgmt, http.MethodPost, wsPath+"/devices", b.APIKey, body, &out) {
						ids = append(ids, out.Device.ID)
						mine[out.Device.ID] = &written{ws: wi, name: name, fleetID: out.Device.FleetID, jobs: map[string]bool{}}
					}
				case op < 8:
					call(mgmt, http.MethodGet, wsPath+"/devices/"+last, b.APIKey, nil, nil)
				case op < 10:
					name := fmt.Sprintf("c%d-r%d", c, i)
					body := map[string]string{"name": name}
					if fleetID != "" {
						body["fleet_id"] = fleetID
					}
					var out struct{ Device device }
					if call(mgmt, http.MethodPut, wsPath+"/devices/"+last, b.APIKey, body, &out) {
						mine[last].name, mine[last].fleetID = name, out.Device.FleetID
					}
				case op < 13:
					job := "job-" + strconv.Itoa(i%5)
					if call(mgmt, http.MethodPost, "/devices/"+last+"/jobs/"+job, b.APIKey, map[string]any{"value": map[string]int{"i": i}}, nil) {
						mine[last].jobs[job] = true
					}
				case op < 15:
					call(mgmt, http.MethodGet, "/devices/"+last+"/jobs", b.APIKey, nil, nil)
				case op == 15:
					call(mgmt, http.MethodGet, wsPath+"/fleets", b.APIKey, nil, nil)
				case op == 16:
					call(mgmt, http.MethodGet, "/workspaces", b.APIKey, nil, nil)
				case op == 17:
					call(stor, http.MethodGet, "/timeseries/"+b.WorkspaceID+"/data?size=10", b.APIKey, nil, nil)
				case op == 18 && i%100 == 18:
					var out struct{ Fleet fleet }
					if call(mgmt, http.MethodPost, wsPath+"/fleets", b.APIKey, map[string]string{"name": fmt.Sprintf("c%d-f%d", c, i)}, &out) {
						fleetID = out.Fleet.ID
						fleetsMade[c] = append(fleetsMade[c], out.Fleet.ID)
					}
				case op == 19 && i%160 == 19:
					call(mgmt, http.MethodGet, wsPath+"/devices", b.APIKey, nil, nil)
				default:
					call(mgmt, http.MethodGet, wsPath, b.APIKey, nil, nil)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	t.Logf("%d requests from %d clients in %s (%.0f req/s)", requests.Load(), clients, elapsed.Round(time.Millisecond), float64(requests.Load())/elapsed.Seconds())
	if requests.Load() < 20000 {
		t.Fatalf("only %d requests", requests.Load())
	}
	if failures.Load() != 0 {
		t.Fatalf("%d requests failed", failures.Load())
	}
	if got := s.TotalRequests(); got != requests.Load() {
		t.Fatalf("server counted %d requests, clients sent %d", got, requests.Load())
	}

	// No lost writes: every device, its last name and fleet, its jobs and
	// every fleet are readable.
	listed := make([]map[string]device, workspaces)
	for wi, b := range boots {
		var list struct{ Devices []device }
		if !call(s.BaseURL(), http.MethodGet, "/workspaces/"+b.WorkspaceID+"/devices", b.APIKey, nil, &list) {
			t.FailNow()
		}
		listed[wi] = map[string]device{}
		for _, d := range list.Devices {
			listed[wi][d.ID] = d
		}
	}
	total := 0
	for c, mine := range results {
		b := boots[c%workspaces]
		for id, w := range mine {
			total++
			d, ok := listed[w.ws][id]
			if !ok || d.Name != w.name || d.FleetID != w.fleetID {
				t.Fatalf("device %s: listed %+v (present %t), want name %q fleet %q", id, d, ok, w.name, w.fleetID)
			}
			var jobs struct{ Jobs []job }
			if !call(s.BaseURL(), http.MethodGet, "/devices/"+id+"/jobs", b.APIKey, nil, &jobs) {
				t.FailNow()
			}
			if len(jobs.Jobs) != len(w.jobs) {
				t.Fatalf("device %s has %d jobs, want %d", id, len(jobs.Jobs), len(w.jobs))
			}
		}
		var fleets struct{ Fleets []fleet }
		if !call(s.BaseURL(), http.MethodGet, "/workspaces/"+b.WorkspaceID+"/fleets", b.APIKey, nil, &fleets) {
			t.FailNow()
		}
		have := map[string]bool{}
		for _, f := range fleets.Fleets {
			have[f.ID] = true
		}
		for _, id := range fleetsMade[c] {
			if !have[id] {
				t.Fatalf("fleet %s lost", id)
			}
		}
	}
	n := 0
	for _, l := range listed {
		n += len(l)
	}
	if n != total {
		t.Fatalf("workspaces list %d devices, clients created %d", n, total)
	}
}
