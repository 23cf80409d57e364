package localzdm_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// benchEnv starts a server for a benchmark.
func benchEnv(b *testing.B) (*localzdm.Server, localzdm.Bootstrap, *http.Client) {
	b.Helper()
	s := localzdm.StartTest(b)
	boot, err := s.Bootstrap("bench")
	if err != nil {
		b.Fatal(err)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	b.Cleanup(tr.CloseIdleConnections)
	return s, boot, &http.Client{Transport: tr}
}

func benchGet(b *testing.B, hc *http.Client, url, key string) int64 {
	b.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("X-API-KEY", key)
	res, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	n, err := io.Copy(io.Discard, res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d %v", url, res.StatusCode, err)
	}
	return n
}

// BenchmarkCreateDevice measures POST /workspaces/{id}/devices.
func BenchmarkCreateDevice(b *testing.B) {
	s, boot, hc := benchEnv(b)
	url := s.BaseURL() + "/v3/workspaces/" + boot.WorkspaceID + "/devices"
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(fmt.Sprintf(`{"name":"d%d"}`, i)))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("X-API-KEY", boot.APIKey)
		res, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("status %d", res.StatusCode)
		}
	}
}

// BenchmarkListDevices10k measures listing a workspace of 10,000 devices.
func BenchmarkListDevices10k(b *testing.B) {
	s, boot, hc := benchEnv(b)
	names := make([]string, 10000)
	for i := range names {
		names[i] = fmt.Sprintf("device-%05d", i)
	}
	if _, err := s.CreateDevices(boot.WorkspaceID, "", names); err != nil {
		b.Fatal(err)
	}
	url := s.BaseURL() + "/v3/workspaces/" + boot.WorkspaceID + "/devices"
	for b.Loop() {
		b.SetBytes(benchGet(b, hc, url, boot.APIKey))
	}
}

// BenchmarkStoragePage175k measures one page of 175,000 data points.
func BenchmarkStoragePage175k(b *testing.B) {
	s, boot, hc := benchEnv(b)
	if err := s.SetStorage(boot.WorkspaceID, true); err != nil {
		b.Fatal(err)
	}
	ids, err := s.CreateDevices(boot.WorkspaceID, "", []string{"a", "b"})
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	pts := make([]localzdm.DataPoint, localzdm.MaxPageSize)
	for i := range pts {
		pts[i] = localzdm.DataPoint{
			DeviceID: ids[i%2], Tag: "t", TimestampDevice: t0.Add(time.Duration(i) * time.Second).Format(time.RFC3339),
			Payload: json.RawMessage(`{"temperature":21.5,"humidity":40}`),
		}
	}
	if _, err := s.Publish(boot.WorkspaceID, pts); err != nil {
		b.Fatal(err)
	}
	url := s.StorageURL() + "/v3/timeseries/" + boot.WorkspaceID + "/data?size=175000"
	for b.Loop() {
		b.SetBytes(benchGet(b, hc, url, boot.APIKey))
	}
}

// BenchmarkPublish measures storing batches of 1,000 data points.
func BenchmarkPublish(b *testing.B) {
	s, boot, _ := benchEnv(b)
	ids, err := s.CreateDevices(boot.WorkspaceID, "", []string{"a"})
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	batch := make([]localzdm.DataPoint, 1000)
	n := 0
	for b.Loop() {
		for i := range batch {
			batch[i] = localzdm.DataPoint{DeviceID: ids[0], Tag: "t", TimestampDevice: t0.Add(time.Duration(n) * time.Millisecond).Format(time.RFC3339Nano), Payload: json.RawMessage(`{"v":1}`)}
			n++
		}
		if _, err := s.Publish(boot.WorkspaceID, batch); err != nil {
			b.Fatal(err)
		}
	}
}
