package client

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// sequence answers the n-th request with steps[n] (the last step repeats).
// A step with status 0 drops the connection after reading the request.
type step struct {
	status     int
	retryAfter string
	body       string
}

type sequence struct {
	steps []step
	n     atomic.Int64
}

func (s *sequence) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	i := int(s.n.Add(1)) - 1
	st := s.steps[min(i, len(s.steps)-1)]
	if st.status == 0 {
		dropConnection(w)
		return
	}
	if st.retryAfter != "" {
		w.Header().Set("Retry-After", st.retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(st.status)
	_, _ = io.WriteString(w, st.body)
}

func (s *sequence) count() int { return int(s.n.Load()) }

// dropConnection closes the connection without an answer, after the request
// was read: the server may have acted on it.
func dropConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("response writer cannot hijack")
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(err)
	}
	_ = conn.Close()
}

const (
	okWorkspaces = `{"workspaces":[]}`
	okWorkspace  = `{"workspace":{"id":"wks-1"}}`
	unavailable  = `{"error":{"code":"unavailable","message":"try later"}}`
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"3", 3 * time.Second, true},
		{" 0 ", 0, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"", 0, false},
		{"99999999999999999", 365 * 24 * time.Hour, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"Sunday, 01-Mar-26 12:00:42 GMT", 42 * time.Second, true}, // RFC 850
		{"Sun Mar  1 12:01:00 2026", time.Minute, true},            // asctime
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBackoffBounds(t *testing.T) {
	c := &Client{waitMin: 10 * time.Millisecond, waitMax: 100 * time.Millisecond}
	for attempt := 1; attempt <= 40; attempt++ {
		ceiling := min(10*time.Millisecond<<min(attempt-1, 10), 100*time.Millisecond)
		for range 50 {
			if d := c.backoff(attempt); d < c.waitMin || d > ceiling {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", attempt, d, c.waitMin, ceiling)
			}
		}
	}
	huge := &Client{waitMin: time.Hour, waitMax: time.Duration(1<<63 - 1)}
	if d := huge.backoff(200); d < time.Hour {
		t.Fatalf("backoff overflowed: %v", d)
	}
}

// sleepRecorder stands in for the client's timer: it records every wait
// the client performs between attempts and returns at once.
type sleepRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleepRecorder) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleepRecorder) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// TestRetryAfterSecondsHonored: the client waits the Retry-After of the
// answer (recorded by the sleeper the client calls) before the next attempt.
func TestRetryAfterSecondsHonored(t *testing.T) {
	seq := &sequence{steps: []step{{503, "1", unavailable}, {200, "", okWorkspaces}}}
	logs := &logRecorder{}
	slept := &sleepRecorder{}
	c, _ := newTestClient(t, seq, func(cfg *Config) {
		cfg.RetryWaitMax = 3 * time.Second
		cfg.Logger = logs.log
		cfg.Sleep = slept.sleep
	})
	if _, err := c.ListWorkspaces(t.Context()); err != nil {
		t.Fatal(err)
	}
	if waits := slept.all(); len(waits) != 1 || waits[0] != time.Second {
		t.Fatalf("slept %v before the retry, want [1s] (the Retry-After)", waits)
	}
	if waits := logs.retryWaits(); len(waits) != 1 || waits[0] != time.Second {
		t.Fatalf("logged waits = %v, want [1s]", waits)
	}
	if seq.count() != 2 {
		t.Fatalf("%d requests, want 2", seq.count())
	}
}

// TestSleepWaitsForTheTimer checks the client's own wait: it returns nil
// once the duration has passed and the context's error when the context
// ends first. A broken wait hangs here until go test's timeout.
func TestSleepWaitsForTheTimer(t *testing.T) {
	if err := Sleep(t.Context(), time.Millisecond); err != nil {
		t.Fatalf("sleep(1ms) = %v, want nil", err)
	}
	if err := Sleep(t.Context(), 0); err != nil {
		t.Fatalf("sleep(0) = %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("sleep(1h) with a canceled context = %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- Sleep(ctx, time.Hour) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("sleep(1h) canceled while waiting = %v, want context.Canceled", err)
	}
}

func TestRetryAfterCapped(t *testing.T) {
	date := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	seq := &sequence{steps: []step{{429, "3600", ""}, {503, date, ""}, {200, "", okWorkspaces}}}
	logs := &logRecorder{}
	c, _ := newTestClient(t, seq, func(cfg *Config) { cfg.RetryWaitMax = 20 * time.Millisecond; cfg.Logger = logs.log })
	if _, err := c.ListWorkspaces(t.Context()); err != nil {
		t.Fatal(err)
	}
	if waits := logs.retryWaits(); len(waits) != 2 || waits[0] != 20*time.Millisecond || waits[1] != 20*time.Millisecond {
		t.Fatalf("waits = %v, want two waits capped at 20ms", waits)
	}
}

func TestRetryAfterDateHonored(t *testing.T) {
	// HTTP dates have a resolution of one second: the wait is in (1s, 2s].
	seq := &sequence{steps: []step{{503, "", ""}, {200, "", okWorkspaces}}}
	seq.steps[0].retryAfter = time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat)
	logs := &logRecorder{}
	c, _ := newTestClient(t, seq, func(cfg *Config) { cfg.RetryWaitMax = 5 * time.Second; cfg.Logger = logs.log })
	if _, err := c.ListWorkspaces(t.Context()); err != nil {
		t.Fatal(err)
	}
	if waits := logs.retryWaits(); len(waits) != 1 || waits[0] < 500*time.Millisecond || waits[0] > 2*time.Second {
		t.Fatalf("waits = %v, want one wait up to the date", waits)
	}
}

func TestBackoffWithoutRetryAfter(t *testing.T) {
	seq := &sequence{steps: []step{{503, "", ""}, {503, "", ""}, {503, "", ""}, {200, "", okWorkspaces}}}
	logs := &logRecorder{}
	c, _ := newTestClient(t, seq, func(cfg *Config) {
		cfg.RetryWaitMin, cfg.RetryWaitMax = 2*time.Millisecond, 6*time.Millisecond
		cfg.Logger = logs.log
	})
	if _, err := c.ListWorkspaces(t.Context()); err != nil {
		t.Fatal(err)
	}
	waits := logs.retryWaits()
	if len(waits) != 3 {
		t.Fatalf("waits = %v, want 3", waits)
	}
	for i, w := range waits {
		if w < 2*time.Millisecond || w > 6*time.Millisecond {
			t.Errorf("wait %d = %v, outside [2ms, 6ms]", i, w)
		}
	}
}

func TestMaxRetriesExhausted(t *testing.T) {
	seq := &sequence{steps: []step{{503, "0", unavailable}}}
	c, _ := newTestClient(t, seq, nil) // MaxRetries 3
	_, err := c.ListWorkspaces(t.Context())
	want := "GET /v3/workspaces: 503 Service Unavailable: unavailable: try later (gave up after 4 attempts)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if !IsStatus(err, 503) {
		t.Fatal("IsStatus does not see the last answer")
	}
	if seq.count() != 4 {
		t.Fatalf("%d requests, want 4", seq.count())
	}
}

func TestRetriesDisabled(t *testing.T) {
	seq := &sequence{steps: []step{{503, "", unavailable}}}
	c, _ := newTestClient(t, seq, func(cfg *Config) { cfg.MaxRetries = -1 })
	_, err := c.ListWorkspaces(t.Context())
	if !IsStatus(err, 503) || strings.Contains(err.Error(), "gave up") || seq.count() != 1 {
		t.Fatalf("err = %v after %d requests", err, seq.count())
	}
}

func TestContextCancelStopsWaiting(t *testing.T) {
	seq := &sequence{steps: []step{{503, "30", unavailable}}}
	c, _ := newTestClient(t, seq, func(cfg *Config) { cfg.RetryWaitMax = time.Minute })
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	// Without the cancellation the client would wait 30s, retry, and end
	// with the 503 alone: the errors below would not match.
	_, err := c.ListWorkspaces(ctx)
	if seq.count() != 1 {
		t.Fatalf("%d requests, want 1: the canceled wait was followed by a retry", seq.count())
	}
	if !errors.Is(err, context.Canceled) || !IsStatus(err, 503) {
		t.Fatalf("err = %v, want context.Canceled and the 503", err)
	}
	if !strings.Contains(err.Error(), "stopped waiting to retry") {
		t.Fatalf("err = %v", err)
	}
}

func TestDeadlineBeforeRetryFailsFast(t *testing.T) {
	seq := &sequence{steps: []step{{429, "20", unavailable}}}
	slept := &sleepRecorder{}
	c, _ := newTestClient(t, seq, func(cfg *Config) { cfg.RetryWaitMax = time.Minute; cfg.Sleep = slept.sleep })
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	_, err := c.ListWorkspaces(ctx)
	if waits := slept.all(); len(waits) != 0 || seq.count() != 1 {
		t.Fatalf("waited %v and sent %d requests although the wait would pass the deadline", waits, seq.count())
	}
	if !errors.Is(err, context.DeadlineExceeded) || !IsStatus(err, 429) || !strings.Contains(err.Error(), "would pass the deadline") {
		t.Fatalf("err = %v", err)
	}
}

func TestPOSTRetriedAfter429And503(t *testing.T) {
	seq := &sequence{steps: []step{{429, "0", ""}, {503, "", unavailable}, {200, "", okWorkspace}}}
	c, _ := newTestClient(t, seq, nil)
	w, err := c.CreateWorkspace(t.Context(), "n", "")
	if err != nil || w.ID != "wks-1" {
		t.Fatalf("CreateWorkspace = %+v, %v", w, err)
	}
	if seq.count() != 3 {
		t.Fatalf("%d requests, want 3", seq.count())
	}
}

func TestPOSTNotRetriedAfterConnectionDrop(t *testing.T) {
	seq := &sequence{steps: []step{{0, "", ""}, {200, "", okWorkspace}}}
	c, _ := newTestClient(t, seq, nil)
	_, err := c.CreateWorkspace(t.Context(), "n", "")
	if !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("err = %v, want ErrAmbiguous", err)
	}
	if seq.count() != 1 {
		t.Fatalf("%d requests reached the server, want exactly 1", seq.count())
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "POST /v3/workspaces: ") || !strings.Contains(msg, "may have been created") || strings.Contains(msg, "converges") {
		t.Fatalf("message does not explain the ambiguity: %s", msg)
	}
	if IsNotFound(err) {
		t.Fatal("an ambiguous error is not a 404")
	}
}

func TestPOSTNotRetriedOnGatewayErrors(t *testing.T) {
	for _, status := range []int{500, 502, 504} {
		seq := &sequence{steps: []step{{status, "", ""}, {200, "", okWorkspace}}}
		c, _ := newTestClient(t, seq, nil)
		_, err := c.CreateWorkspace(t.Context(), "n", "")
		if !IsStatus(err, status) || !errors.Is(err, ErrAmbiguous) || seq.count() != 1 {
			t.Fatalf("status %d: err = %v after %d requests", status, err, seq.count())
		}
	}
}

func TestPOSTDroppedWhileReadingAnswer(t *testing.T) {
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"workspace":{"id":`)
		flush(w)
		dropConnection(w)
	}), nil)
	_, err := c.CreateWorkspace(t.Context(), "n", "")
	if !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), "reading the 200 OK answer failed") {
		t.Fatalf("err = %v", err)
	}
}

func TestIdempotentRetriedAfterConnectionDropAndGatewayErrors(t *testing.T) {
	seq := &sequence{steps: []step{{0, "", ""}, {502, "", "<html>bad gateway</html>"}, {504, "", ""}, {200, "", `{"device":{"id":"d"}}`}}}
	c, _ := newTestClient(t, seq, func(cfg *Config) { cfg.MaxRetries = 5 })
	if _, err := c.UpdateDevice(t.Context(), "w", "d", "n", ""); err != nil {
		t.Fatalf("PUT: %v", err)
	}
	if seq.count() != 4 {
		t.Fatalf("PUT: %d requests, want 4", seq.count())
	}
	seq.n.Store(0)
	if _, err := c.GetDevice(t.Context(), "w", "d"); err != nil {
		t.Fatalf("GET: %v", err)
	}
	if seq.count() != 4 {
		t.Fatalf("GET: %d requests, want 4", seq.count())
	}
}

func TestGETRetriedAfterDropWhileReadingAnswer(t *testing.T) {
	var n atomic.Int64
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, `{"workspaces":[`)
			flush(w)
			dropConnection(w)
			return
		}
		_, _ = io.WriteString(w, okWorkspaces)
	}), nil)
	if _, err := c.ListWorkspaces(t.Context()); err != nil || n.Load() != 2 {
		t.Fatalf("err = %v after %d requests", err, n.Load())
	}
}

// TestRefusedConnectionNotRetried: a POST whose connection is refused never
// reached a service: it is not ambiguous, and not retried (another attempt
// would be refused too); the error names the setting and what to check.
func TestRefusedConnectionNotRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // nothing listens there now: every dial is refused
	logs := &logRecorder{}
	cfg := testConfig("http://" + addr)
	cfg.MaxRetries = 2
	cfg.Logger = logs.log
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateWorkspace(t.Context(), "n", "")
	if err == nil || errors.Is(err, ErrAmbiguous) {
		t.Fatalf("err = %v, want a non-ambiguous error", err)
	}
	for _, want := range []string{"POST /v3/workspaces: cannot connect: ", "connection refused", "nothing accepts connections at " + addr,
		"base_url in the provider block", "ZDM_BASE_URL"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("err = %v, want it to contain %q", err, want)
		}
	}
	assertNoKey(t, err.Error())
	if n := len(logs.retryWaits()); n != 0 {
		t.Fatalf("%d retries, want 0", n)
	}
}

// hang answers after the request's context ends (or after 10s).
func hang(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
	w.WriteHeader(http.StatusOK)
}

func TestTimeoutMessage(t *testing.T) {
	c, _ := newTestClient(t, http.HandlerFunc(hang), func(cfg *Config) {
		cfg.RequestTimeout = 50 * time.Millisecond
		cfg.MaxRetries = -1
	})
	// The handler answers only after 10s: an error naming the 50ms timeout
	// shows that the timeout ended the attempt.
	_, err := c.ListWorkspaces(t.Context())
	want := "GET /v3/workspaces: request timed out after 50ms (raise the provider setting request_timeout if the service is slow)"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err = %v\nwant %s…", err, want)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal("a timeout does not match context.DeadlineExceeded")
	}
}

func TestTimeoutRetriedForGETButAmbiguousForPOST(t *testing.T) {
	var n atomic.Int64
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		hang(w, r)
	}), func(cfg *Config) {
		cfg.RequestTimeout = 30 * time.Millisecond
		cfg.MaxRetries = 1
	})
	_, err := c.ListWorkspaces(t.Context())
	if !errors.Is(err, context.DeadlineExceeded) || n.Load() != 2 || !strings.Contains(err.Error(), "gave up after 2 attempts") {
		t.Fatalf("GET: err = %v after %d requests", err, n.Load())
	}
	n.Store(0)
	_, err = c.CreateFleet(t.Context(), "w", "f", "")
	if !errors.Is(err, ErrAmbiguous) || !errors.Is(err, context.DeadlineExceeded) || n.Load() != 1 {
		t.Fatalf("POST: err = %v after %d requests", err, n.Load())
	}
	if !strings.Contains(err.Error(), "request_timeout") {
		t.Fatalf("POST: err = %v", err)
	}
}

func TestCallerContextCanceledDuringRequest(t *testing.T) {
	c, _ := newTestClient(t, http.HandlerFunc(hang), nil)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(30*time.Millisecond, cancel)
	_, err := c.GetWorkspace(ctx, "w")
	if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "request_timeout") {
		t.Fatalf("err = %v", err)
	}
}

func TestLogging(t *testing.T) {
	seq := &sequence{steps: []step{{503, "0", unavailable}, {200, "", okWorkspaces}}}
	logs := &logRecorder{}
	c, _ := newTestClient(t, seq, func(cfg *Config) { cfg.Logger = logs.log })
	if _, err := c.ListWorkspaces(t.Context()); err != nil {
		t.Fatal(err)
	}
	entries := logs.all()
	if len(entries) != 3 {
		t.Fatalf("entries = %v", entries)
	}
	first, last := entries[0], entries[2]
	if first["msg"] != "API request failed" || first["status"] != 503 || first["attempt"] != 1 || first["method"] != "GET" || first["path"] != "/v3/workspaces" {
		t.Errorf("first entry = %v", first)
	}
	if last["msg"] != "API request" || last["status"] != 200 || last["attempt"] != 2 {
		t.Errorf("last entry = %v", last)
	}
	if _, ok := last["duration_ms"].(int64); !ok {
		t.Errorf("no duration in %v", last)
	}
	for _, e := range entries {
		for k, v := range e {
			assertNoKey(t, k+"="+toString(v))
			if strings.Contains(strings.ToLower(k), "header") {
				t.Errorf("headers logged: %v", e)
			}
		}
	}
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	default:
		return ""
	}
}

// flush sends what the handler wrote so far.
func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// TestDeviceListBrokenOffMidwayStartsAgain: a device list is decoded as
// it arrives; when the answer breaks off after some devices, the GET is
// retried and the list holds exactly the devices of the answer that
// completed, none of the attempt that broke off.
func TestDeviceListBrokenOffMidwayStartsAgain(t *testing.T) {
	var n atomic.Int64
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Content-Length", "100000")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, `{"devices":[{"id":"old-1","name":"a"},{"id":"old-2","name":"b"},{"id":"old-3","na`)
			flush(w)
			dropConnection(w)
			return
		}
		_, _ = io.WriteString(w, `{"devices":[{"id":"dev-1","name":"a"},{"id":"dev-2","name":"b"},{"id":"dev-3","name":"c"}]}`)
	}), nil)
	devices, err := c.ListDevices(t.Context(), "w")
	if err != nil || n.Load() != 2 {
		t.Fatalf("err = %v after %d requests, want the list at the second", err, n.Load())
	}
	var ids []string
	for _, d := range devices {
		ids = append(ids, d.ID)
	}
	if strings.Join(ids, ",") != "dev-1,dev-2,dev-3" {
		t.Fatalf("devices %v, want those of the second answer only", ids)
	}
}

// TestDeviceListInvalidJSONNotRetried: an answer that arrives whole but is
// not valid JSON is an error naming its start, and is not asked again.
func TestDeviceListInvalidJSONNotRetried(t *testing.T) {
	var n atomic.Int64
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		_, _ = io.WriteString(w, `{"devices":[{"id":"dev-1"},}`)
	}), nil)
	_, err := c.ListDevices(t.Context(), "w")
	if err == nil || !strings.Contains(err.Error(), `unexpected answer: the answer is not valid JSON`) ||
		!strings.Contains(err.Error(), `{\"devices\":[{\"id\":\"dev-1\"},}`) {
		t.Fatalf("err = %v", err)
	}
	if n.Load() != 1 {
		t.Fatalf("%d requests, want 1", n.Load())
	}
}
