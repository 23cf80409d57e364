package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestRetryAfterZeroBacksOff: a 429 with "Retry-After: 0" (a rate limiter
// rounding down) is retried after the exponential backoff, not at once, so
// that the retries are not spent back to back while the limit holds.
func TestRetryAfterZeroBacksOff(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n <= 3 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write([]byte(`{"workspaces":[]}`))
	}))
	t.Cleanup(srv.Close)
	var waits, logged, slept []time.Duration
	c, err := New(Config{
		BaseURL: srv.URL, APIKey: "k", MaxRetries: 3,
		RetryWaitMin: 20 * time.Millisecond, RetryWaitMax: time.Second,
		Logger: func(_ context.Context, msg string, fields map[string]any) {
			ms, _ := fields["wait_ms"].(int64)
			switch msg {
			case "retrying API request":
				waits = append(waits, time.Duration(ms)*time.Millisecond)
				logged = append(logged, time.Duration(ms)*time.Millisecond)
			case "pacing API request": // the refusals turned pacing on
				logged = append(logged, time.Duration(ms)*time.Millisecond)
			}
		},
		Sleep: func(ctx context.Context, d time.Duration) error {
			slept = append(slept, d)
			return ctx.Err()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListWorkspaces(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(waits) != 3 {
		t.Fatalf("waits = %v, want 3", waits)
	}
	for i, w := range waits {
		if w < 20*time.Millisecond {
			t.Errorf("wait %d = %v: a Retry-After of 0 made the retry immediate", i, w)
		}
	}
	// What the client logged is what it waited.
	if len(slept) != len(logged) {
		t.Fatalf("slept %v, logged %v", slept, logged)
	}
	for i, d := range slept {
		if d.Truncate(time.Millisecond) != logged[i] || d < 20*time.Millisecond {
			t.Errorf("sleep %d = %v (logged %v), want the logged wait (in ms), at least RetryWaitMin (20ms)", i, d, logged[i])
		}
	}
}
