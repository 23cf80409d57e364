// Package webhook delivers webhook batches: each batch is POSTed in order,
// one at a time, with bounded retries, until the server closes.
package webhook

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/apierr"
)

// Event directions.
const (
	DirectionD2C = "d2c"
	DirectionC2D = "c2d"
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

// Event is an event item of a webhook batch.
type Event struct {
	ID          string `json:"id"`
	TS          string `json:"ts"`
	WorkspaceID string `json:"workspace_id"`
	FleetID     string `json:"fleet_id"`
	DeviceID    string `json:"device_id"`
	Type        string `json:"type"`
	Direction   string `json:"direction"`
	Payload     any    `json:"payload"`
}

// DataItem is a data point item of a webhook batch.
type DataItem struct {
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

// Stats describes webhook delivery since the start or the last Reset.
type Stats struct {
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

// Queue delivers batches in order, one at a time, with bounded retries.
type Queue struct {
	log     *log.Logger
	closing <-chan struct{}
	client  *http.Client

	mu    sync.Mutex
	queue []*delivery
	busy  bool
	stats Stats

	wake chan struct{}
	done chan struct{}
}

// New starts a queue that delivers until closing is closed.
func New(l *log.Logger, closing <-chan struct{}) *Queue {
	q := &Queue{
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

// Enqueue marshals a batch of items and queues it for url.
func (q *Queue) Enqueue(target, kind string, items any) {
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

func (q *Queue) run() {
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
func (q *Queue) deliver(d *delivery) bool {
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

func (q *Queue) post(d *delivery) error {
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

func (q *Queue) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	st := q.stats
	st.Pending = len(q.queue)
	if q.busy {
		st.Pending++
	}
	return st
}

// Clear drops queued batches and statistics (a batch being delivered finishes).
func (q *Queue) Clear() {
	q.mu.Lock()
	q.queue = nil
	q.stats = Stats{}
	q.mu.Unlock()
}

// Stop waits for the delivery goroutine, which exits once closing is closed.
func (q *Queue) Stop() {
	<-q.done
	q.client.CloseIdleConnections()
}

// ValidURL checks a webhook target: an absolute http or https URL.
func ValidURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return apierr.InvalidArgument("\"url\" must be an absolute http or https URL, not %q", raw)
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails.
	return hex.EncodeToString(b)
}
