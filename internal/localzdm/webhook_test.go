package localzdm_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

type batch struct {
	BatchID string            `json:"batch_id"`
	Result  []json.RawMessage `json:"result"`
	kind    string
}

// receiver is a duplicate-tolerant webhook target: it keeps each batch once
// by batch_id. failFirst makes it answer 500 to the first attempt of every
// batch after processing it, so the server must retry and the receiver sees
// duplicates.
type receiver struct {
	srv       *httptest.Server
	failFirst bool
	always500 bool

	mu       sync.Mutex
	attempts map[string]int
	batches  []batch
}

func newReceiver(t *testing.T, failFirst bool) *receiver {
	t.Helper()
	rc := &receiver{failFirst: failFirst, attempts: map[string]int{}}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	var b batch
	if err := json.Unmarshal(body, &b); err != nil || b.BatchID == "" {
		http.Error(w, "bad batch", http.StatusBadRequest)
		return
	}
	b.kind = r.Header.Get("X-Zdm-Batch-Type")
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.attempts[b.BatchID]++
	if rc.attempts[b.BatchID] == 1 {
		rc.batches = append(rc.batches, b)
	}
	if rc.always500 || (rc.failFirst && rc.attempts[b.BatchID] == 1) {
		http.Error(w, "try again", http.StatusInternalServerError)
	}
}

func (rc *receiver) snapshot() ([]batch, map[string]int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	att := map[string]int{}
	for k, v := range rc.attempts {
		att[k] = v
	}
	return slices.Clone(rc.batches), att
}

type dataItem struct {
	ID              string          `json:"id"`
	TimestampDevice string          `json:"timestamp_device"`
	TimestampIn     string          `json:"timestamp_in"`
	WorkspaceID     string          `json:"workspace_id"`
	FleetID         string          `json:"fleet_id"`
	DeviceID        string          `json:"device_id"`
	DeviceName      string          `json:"device_name"`
	Tag             string          `json:"tag"`
	Payload         json.RawMessage `json:"payload"`
}

type eventItem struct {
	ID          string          `json:"id"`
	TS          string          `json:"ts"`
	WorkspaceID string          `json:"workspace_id"`
	FleetID     string          `json:"fleet_id"`
	DeviceID    string          `json:"device_id"`
	Type        string          `json:"type"`
	Direction   string          `json:"direction"`
	Payload     json.RawMessage `json:"payload"`
}

func flush(t *testing.T, s *localzdm.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.FlushWebhooks(ctx); err != nil {
		t.Fatalf("FlushWebhooks: %v", err)
	}
}

func TestWebhookDelivery(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rc := newReceiver(t, true)
	ws := e.b.WorkspaceID
	f := e.createFleet("f")
	d := e.createDevice("sensor", f.ID)
	e.fails(e.admin(http.MethodPut, "/workspaces/"+ws+"/webhook", map[string]string{"url": "ftp://x"}), http.StatusBadRequest, "http")
	e.fails(e.admin(http.MethodPut, "/workspaces/"+ws+"/webhook", map[string]string{}), http.StatusBadRequest, `"url"`)
	e.ok(e.admin(http.MethodPut, "/workspaces/"+ws+"/webhook", map[string]string{"url": rc.srv.URL + "/hook"}), nil)

	if err := e.s.ConnectDevice(d.ID, "10.0.0.7"); err != nil {
		t.Fatal(err)
	}
	n, err := e.s.Publish(ws, []localzdm.DataPoint{
		{DeviceID: d.ID, Tag: "temp", TimestampDevice: "2024-01-01T00:00:00Z", Payload: json.RawMessage(`{"c":21}`)},
		{DeviceID: d.ID, Tag: "temp", TimestampDevice: "2024-01-01T00:00:01Z", Payload: json.RawMessage(`{"c":22}`)},
		{DeviceID: d.ID, Tag: "temp", TimestampDevice: "2024-01-01T00:00:00Z", Payload: json.RawMessage(`{"c":21}`)},
	})
	if err != nil || n != 2 {
		t.Fatalf("Publish = %d, %v", n, err)
	}
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/reboot", map[string]any{"value": map[string]int{"d": 1}}), nil)
	if err := e.s.SetJobStatus(d.ID, "reboot", "done"); err != nil {
		t.Fatal(err)
	}
	e.ok(e.api(http.MethodPost, "/workspaces/"+ws+"/fota/fw/versions/2", nil), nil)
	e.ok(e.admin(http.MethodPost, "/devices/"+d.ID+"/connect", map[string]string{"device_ip": "10.0.0.8"}), nil)
	var st localzdm.WebhookStats
	e.ok(e.admin(http.MethodPost, "/webhooks/flush?timeout=10s", nil), &st)
	if st.Pending != 0 {
		t.Fatalf("stats after flush = %+v", st)
	}

	batches, attempts := rc.snapshot()
	// connection, data, events(data), job c2d, job d2c, fota, connection
	if len(batches) != 7 {
		t.Fatalf("received %d distinct batches, want 7: %+v", len(batches), batches)
	}
	for id, a := range attempts {
		if a < 2 {
			t.Errorf("batch %s delivered %d times; the receiver failed the first attempt, so it must be retried", id, a)
		}
	}
	if st.Delivered != 7 || st.Failed != 0 || st.Attempts < 14 {
		t.Fatalf("stats = %+v", st)
	}

	var types []string
	for bi, b := range batches {
		for i, raw := range b.Result {
			if b.kind == localzdm.BatchTypeData {
				var it dataItem
				if err := json.Unmarshal(raw, &it); err != nil {
					t.Fatal(err)
				}
				if it.ID != strconv.Itoa(i) || it.DeviceID != d.ID || it.DeviceName != "sensor" || it.FleetID != f.ID || it.WorkspaceID != ws || it.Tag != "temp" || it.TimestampIn == "" {
					t.Errorf("data item %d = %+v", i, it)
				}
				continue
			}
			if b.kind != localzdm.BatchTypeEvents {
				t.Fatalf("batch %d has type %q", bi, b.kind)
			}
			var ev eventItem
			if err := json.Unmarshal(raw, &ev); err != nil {
				t.Fatal(err)
			}
			if ev.ID != strconv.Itoa(i) || ev.DeviceID != d.ID || ev.WorkspaceID != ws || ev.FleetID != f.ID {
				t.Errorf("event %d = %+v", i, ev)
			}
			if _, err := time.Parse(time.RFC3339Nano, ev.TS); err != nil {
				t.Errorf("event ts %q: %v", ev.TS, err)
			}
			types = append(types, ev.Type+"/"+ev.Direction)
			if ev.Type == "connection" {
				var p struct {
					DeviceIP    string `json:"device_ip"`
					ConnectedAt string `json:"connected_at"`
				}
				if err := json.Unmarshal(ev.Payload, &p); err != nil || p.DeviceIP == "" || p.ConnectedAt == "" {
					t.Errorf("connection payload %s: %v", ev.Payload, err)
				}
			}
		}
	}
	// All received data is forwarded, duplicates for storage included.
	if batches[1].kind != localzdm.BatchTypeData || len(batches[1].Result) != 3 {
		t.Fatalf("data batch = %+v", batches[1])
	}
	want := []string{"connection/d2c", "data/d2c", "data/d2c", "data/d2c", "job/c2d", "job/d2c", "fota/c2d", "connection/d2c"}
	if !slices.Equal(types, want) {
		t.Fatalf("event types in order = %v, want %v", types, want)
	}

	// Without a webhook, nothing is sent.
	e.ok(e.admin(http.MethodDelete, "/workspaces/"+ws+"/webhook", nil), nil)
	e.ok(e.api(http.MethodPost, "/devices/"+d.ID+"/jobs/again", nil), nil)
	flush(t, e.s)
	if got, _ := rc.snapshot(); len(got) != 7 {
		t.Fatalf("a batch was sent after the webhook was removed")
	}
}

func TestWebhookGivesUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rc := newReceiver(t, false)
	rc.always500 = true
	d := e.createDevice("d", "")
	if err := e.s.SetWebhook(e.b.WorkspaceID, rc.srv.URL); err != nil {
		t.Fatal(err)
	}
	if err := e.s.ConnectDevice(d.ID, "1.2.3.4"); err != nil {
		t.Fatal(err)
	}
	flush(t, e.s)
	st := e.s.WebhookStats()
	if st.Failed != 1 || st.Delivered != 0 || st.Attempts != 6 || st.Pending != 0 {
		t.Fatalf("stats = %+v; want one batch given up after 6 attempts", st)
	}
	var viaHTTP localzdm.WebhookStats
	e.ok(e.admin(http.MethodGet, "/webhooks", nil), &viaHTTP)
	if viaHTTP != st {
		t.Fatalf("admin stats = %+v, want %+v", viaHTTP, st)
	}
	// An unreachable target fails the same way and does not block Close.
	if err := e.s.SetWebhook(e.b.WorkspaceID, "http://127.0.0.1:1/unreachable"); err != nil {
		t.Fatal(err)
	}
	if err := e.s.ConnectDevice(d.ID, "1.2.3.4"); err != nil {
		t.Fatal(err)
	}
}
