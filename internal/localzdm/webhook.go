package localzdm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// Event directions.
const (
	directionD2C = "d2c"
	directionC2D = "c2d"
)

// Batch types, sent in the X-Zdm-Batch-Type header of webhook deliveries.
const (
	BatchTypeData   = "data"
	BatchTypeEvents = "events"
)

// Webhook delivery policy: attempts per batch, first backoff (doubled after
// each failed attempt, capped) and per-attempt timeout.
const (
	webhookMaxAttempts = 6
	webhookBackoff     = 50 * time.Millisecond
	webhookMaxBackoff  = time.Second
	webhookTimeout     = 5 * time.Second
)

// event is an event item of a webhook batch.
type event struct {
	ID          string `json:"id"`
	TS          string `json:"ts"`
	WorkspaceID string `json:"workspace_id"`
	FleetID     string `json:"fleet_id"`
	DeviceID    string `json:"device_id"`
	Type        string `json:"type"`
	Direction   string `json:"direction"`
	Payload     any    `json:"payload"`
}

// dataItem is a data point item of a webhook batch.
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

func deviceEvent(d *device, typ, dir string, at time.Time, payload any) event {
	return event{
		TS: timestamp(at), WorkspaceID: d.WorkspaceID, FleetID: d.FleetID, DeviceID: d.ID,
		Type: typ, Direction: dir, Payload: payload,
	}
}

func jobEvent(d *device, j *job, dir string, at time.Time) event {
	return deviceEvent(d, "job", dir, at, map[string]any{
		"job": j.Name, "status": j.Status, "scheduled_at": j.ScheduledAt, "value": j.Value,
	})
}

func fotaEvent(d *device, f *fota, dir string, at time.Time) event {
	return deviceEvent(d, "fota", dir, at, map[string]any{
		"status": f.Status, "scheduled_at": f.ScheduledAt,
		"firmware_id": f.FirmwareID, "firmware_version": f.FirmwareVersion,
	})
}

// emitLocked queues an event batch for w's webhook, if it has one; s.mu must
// be held, which keeps batches in the order of the changes they report.
func (s *Server) emitLocked(w *workspace, events []event) {
	if w == nil || w.Webhook == "" || len(events) == 0 {
		return
	}
	for i := range events {
		events[i].ID = strconv.Itoa(i)
	}
	s.hooks.enqueue(w.Webhook, BatchTypeEvents, events)
}

// WebhookStats describes webhook delivery since the start or the last Reset.
type WebhookStats struct {
	// Pending is the number of batches queued or being delivered.
	Pending int `json:"pending"`
	// Delivered counts batches answered 2xx.
	Delivered int64 `json:"delivered"`
	// Failed counts batches given up after the last attempt.
	Failed int64 `json:"failed"`
	// Attempts counts POSTs made, including retries.
	Attempts int64 `json:"attempts"`
}

type delivery struct {
	url  string
	kind string
	body []byte
}

// webhookQueue delivers batches in order, one at a time, with bounded retries.
type webhookQueue struct {
	log     *log.Logger
	closing <-chan struct{}
	client  *http.Client

	mu    sync.Mutex
	queue []*delivery
	busy  bool
	stats WebhookStats

	wake chan struct{}
	done chan struct{}
}

func newWebhookQueue(l *log.Logger, closing <-chan struct{}) *webhookQueue {
	q := &webhookQueue{
		log:     l,
		closing: closing,
		client: &http.Client{
			Timeout:   webhookTimeout,
			Transport: &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second},
		},
		wake: make(chan struct{}, 1),
		done: make(chan struct{}),
	}
	go q.run()
	return q
}

// enqueue marshals a batch of items and queues it for url.
func (q *webhookQueue) enqueue(target, kind string, items any) {
	body, err := json.Marshal(map[string]any{"batch_id": randomHex(12), "result": items})
	if err != nil {
		q.log.Printf("localzdm: webhook: cannot encode batch: %v", err)
		return
	}
	q.mu.Lock()
	q.queue = append(q.queue, &delivery{url: target, kind: kind, body: body})
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *webhookQueue) run() {
	defer close(q.done)
	for {
		q.mu.Lock()
		for len(q.queue) == 0 {
			q.mu.Unlock()
			select {
			case <-q.wake:
			case <-q.closing:
				return
			}
			q.mu.Lock()
		}
		d := q.queue[0]
		q.queue[0] = nil
		q.queue = q.queue[1:]
		q.busy = true
		q.mu.Unlock()
		ok := q.deliver(d)
		q.mu.Lock()
		q.busy = false
		if ok {
			q.stats.Delivered++
		} else {
			q.stats.Failed++
		}
		q.mu.Unlock()
	}
}

// deliver POSTs a batch until a 2xx answer, the last attempt or Close.
func (q *webhookQueue) deliver(d *delivery) bool {
	wait := webhookBackoff
	for attempt := 1; ; attempt++ {
		q.mu.Lock()
		q.stats.Attempts++
		q.mu.Unlock()
		err := q.post(d)
		if err == nil {
			return true
		}
		if attempt >= webhookMaxAttempts {
			q.log.Printf("localzdm: webhook: giving up on a %s batch after %d attempts: %v", d.kind, attempt, err)
			return false
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-q.closing:
			t.Stop()
			return false
		}
		wait = min(2*wait, webhookMaxBackoff)
	}
}

func (q *webhookQueue) post(d *delivery) error {
	ctx, cancel := context.WithTimeout(context.Background(), webhookTimeout)
	defer cancel()
	go func() {
		select {
		case <-q.closing:
			cancel()
		case <-ctx.Done():
		}
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.url, bytes.NewReader(d.body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "zdm-local-webhook")
	req.Header.Set("X-Zdm-Batch-Type", d.kind)
	resp, err := q.client.Do(req)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("target answered %s", resp.Status)
	}
	return nil
}

func (q *webhookQueue) snapshot() WebhookStats {
	q.mu.Lock()
	defer q.mu.Unlock()
	st := q.stats
	st.Pending = len(q.queue)
	if q.busy {
		st.Pending++
	}
	return st
}

// clear drops queued batches and statistics (a batch being delivered finishes).
func (q *webhookQueue) clear() {
	q.mu.Lock()
	q.queue = nil
	q.stats = WebhookStats{}
	q.mu.Unlock()
}

// stop waits for the delivery goroutine, which exits once closing is closed.
func (q *webhookQueue) stop() {
	<-q.done
	q.client.CloseIdleConnections()
}

// validWebhookURL checks a webhook target: an absolute http or https URL.
func validWebhookURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return invalidArgument("\"url\" must be an absolute http or https URL, not %q", raw)
	}
	return nil
}

// SetWebhook sets the webhook target URL of a workspace; "" removes it. Data
// points published to the workspace and its events (connection, data, job,
// fota) are then POSTed to it in batches, at least once.
func (s *Server) SetWebhook(workspaceID, target string) error {
	if target != "" {
		if err := validWebhookURL(target); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.workspaces[workspaceID]
	if w == nil {
		return notFound("workspace %q not found", workspaceID)
	}
	w.Webhook = target
	s.changed(w)
	return nil
}

// WebhookStats returns webhook delivery statistics.
func (s *Server) WebhookStats() WebhookStats {
	return s.hooks.snapshot()
}

// FlushWebhooks waits until every queued webhook batch was delivered or given
// up, or ctx ends.
func (s *Server) FlushWebhooks(ctx context.Context) error {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		if s.hooks.snapshot().Pending == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.closing:
			return fmt.Errorf("localzdm: server closed")
		case <-t.C:
		}
	}
}

// ConnectDevice records that a device connected from deviceIP and emits a
// "connection" event (direction d2c) to its workspace's webhook.
// deviceIP is empty (unknown) or an IPv4 or IPv6 address.
func (s *Server) ConnectDevice(deviceID, deviceIP string) error {
	if err := checkDeviceIP(deviceIP); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.devices[deviceID]
	if d == nil {
		return notFound("device %q not found", deviceID)
	}
	now := time.Now()
	s.emitLocked(s.workspaces[d.WorkspaceID], []event{deviceEvent(d, "connection", directionD2C, now, map[string]any{
		"device_ip": deviceIP, "connected_at": timestamp(now),
	})})
	return nil
}
