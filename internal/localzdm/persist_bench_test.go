package localzdm_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// persistTarget is one server of BenchmarkPersistCreateDevice.
type persistTarget struct {
	name string
	url  string
	key  string
	took time.Duration
}

// newPersistTarget starts a server (a state file unless memory) holding
// points data points.
func newPersistTarget(b *testing.B, name string, stateFile, sync bool, points int) *persistTarget {
	b.Helper()
	opts := localzdm.Options{Sync: sync}
	if stateFile {
		opts.StateFile = filepath.Join(b.TempDir(), "state.json")
	}
	s := localzdm.StartTestWithOptions(b, opts)
	boot, err := s.Bootstrap("bench")
	if err != nil {
		b.Fatal(err)
	}
	ids, err := s.CreateDevices(boot.WorkspaceID, "", []string{"sensor"})
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for done := 0; done < points; {
		batch := make([]localzdm.DataPoint, min(10000, points-done))
		for i := range batch {
			batch[i] = localzdm.DataPoint{
				DeviceID: ids[0], Tag: "temperature", TimestampDevice: t0.Add(time.Duration(done+i) * time.Second).Format(time.RFC3339),
				Payload: json.RawMessage(`{"celsius":21.5,"humidity":40,"battery":3.7,"note":"steady"}`),
			}
		}
		if _, err := s.Publish(boot.WorkspaceID, batch); err != nil {
			b.Fatal(err)
		}
		done += len(batch)
	}
	return &persistTarget{name: name, url: s.BaseURL() + "/v3/workspaces/" + boot.WorkspaceID + "/devices", key: boot.APIKey}
}

// createBurst creates n devices from clients goroutines at once and adds the
// elapsed time to t.took.
func (t *persistTarget) createBurst(b *testing.B, hc *http.Client, clients, n int) {
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; i < n; i += clients {
				req, err := http.NewRequest(http.MethodPost, t.url, strings.NewReader(fmt.Sprintf(`{"name":"d%d"}`, i)))
				if err != nil {
					errs <- err
					return
				}
				req.Header.Set("X-API-KEY", t.key)
				res, err := hc.Do(req)
				if err != nil {
					errs <- err
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				_ = res.Body.Close()
				if res.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("%s: status %d", t.name, res.StatusCode)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	t.took += time.Since(start)
}

// BenchmarkPersistCreateDevice measures device creation over HTTP from 8
// concurrent clients against servers that differ only in persistence: in
// memory (the baseline), a state file (journal written before each answer),
// a state file with Sync (journal fsynced before each answer), and the same
// two with 200,000 stored data points (a 40 MB snapshot). Each iteration
// runs one burst of 64 creates on every server, so they share the machine's
// conditions; it reports ns per create for each and the ratios against the
// baseline and between the sizes.
func BenchmarkPersistCreateDevice(b *testing.B) {
	const clients, burst = 8, 64
	targets := []*persistTarget{
		newPersistTarget(b, "memory", false, false, 0),
		newPersistTarget(b, "journal", true, false, 0),
		newPersistTarget(b, "sync", true, true, 0),
		newPersistTarget(b, "journal-200k", true, false, 200000),
		newPersistTarget(b, "sync-200k", true, true, 200000),
	}
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	b.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	b.ResetTimer()
	for b.Loop() {
		for _, t := range targets {
			t.createBurst(b, hc, clients, burst)
		}
	}
	per := map[string]float64{}
	for _, t := range targets {
		per[t.name] = float64(t.took.Nanoseconds()) / float64(b.N*burst)
		b.ReportMetric(per[t.name], t.name+"-ns/create")
	}
	b.ReportMetric(per["journal"]/per["memory"], "journal/memory")
	b.ReportMetric(per["sync"]/per["memory"], "sync/memory")
	b.ReportMetric(per["sync"]/per["journal"], "sync/journal")
	b.ReportMetric(per["journal-200k"]/per["journal"], "journal-200k/journal")
	b.ReportMetric(per["sync-200k"]/per["sync"], "sync-200k/sync")
}
