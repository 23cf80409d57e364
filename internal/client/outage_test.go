package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A service that answered once and then refuses connections (a restart) is
// retried for a bounded time; a service never reached fails at once.

// restartable is an HTTP server on a fixed loopback address that can be
// stopped and started again on the same address. It counts the requests
// by method.
type restartable struct {
	t    *testing.T
	addr string
	h    http.Handler

	mu  sync.Mutex
	srv *http.Server

	gets, posts atomic.Int64
}

func newRestartable(t *testing.T, h http.Handler) *restartable {
	t.Helper()
	r := &restartable{t: t, addr: "127.0.0.1:0"}
	r.h = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost {
			r.posts.Add(1)
		} else {
			r.gets.Add(1)
		}
		h.ServeHTTP(w, req)
	})
	r.start()
	t.Cleanup(r.stop)
	return r
}

// start listens on the address (the same one after a stop).
func (r *restartable) start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		r.t.Errorf("listen on %s: %v", r.addr, err)
		return
	}
	r.addr = ln.Addr().String()
	srv := &http.Server{Handler: r.h, ReadHeaderTimeout: 10 * time.Second}
	r.srv = srv
	go func() { _ = srv.Serve(ln) }()
}

// stop closes the listener and every connection: dials are refused.
func (r *restartable) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.srv != nil {
		_ = r.srv.Close()
		r.srv = nil
	}
}

// answers answers GETs with an empty list of workspaces and POSTs with a
// workspace.
var answers = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodPost {
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(okWorkspace))
		return
	}
	_, _ = w.Write([]byte(okWorkspaces))
})

// restartAfter is a Sleep hook that starts srv again at its n-th wait,
// and counts the waits; it does not sleep.
func restartAfter(srv *restartable, n int64, waits *atomic.Int64) func(context.Context, time.Duration) error {
	return func(ctx context.Context, _ time.Duration) error {
		if waits.Add(1) == n {
			srv.start()
		}
		return ctx.Err()
	}
}

// TestOutageRetriedAfterServiceReached: a GET to a service that answered
// earlier and now refuses connections is retried until it answers again,
// past MaxRetries (the bound of an outage is a time); the log names the
// refused connection.
func TestOutageRetriedAfterServiceReached(t *testing.T) {
	srv := newRestartable(t, answers)
	var waits atomic.Int64
	logs := &logRecorder{}
	cfg := testConfig("http://" + srv.addr)
	cfg.MaxRetries = 1
	cfg.Logger = logs.log
	cfg.Sleep = restartAfter(srv, 3, &waits)
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListWorkspaces(t.Context()); err != nil {
		t.Fatalf("first request: %v", err)
	}
	srv.stop()
	if _, err := c.ListWorkspaces(t.Context()); err != nil {
		t.Fatalf("request during the restart: %v", err)
	}
	if n := waits.Load(); n != 3 {
		t.Errorf("%d waits, want 3 (the service came back at the third)", n)
	}
	if n := srv.gets.Load(); n != 2 {
		t.Errorf("the service saw %d GETs, want 2", n)
	}
	refused := 0
	for _, e := range logs.all() {
		if e["msg"] == "retrying API request" && strings.Contains(fmt.Sprint(e["error"]), "connection refused") {
			refused++
		}
	}
	if refused != 3 {
		t.Errorf("%d retries logged after a refused connection, want 3", refused)
	}
}

// TestOutagePOSTRetriedOnlyWhenRefused: a refused dial delivered nothing,
// so a POST is sent once the service is back, and the service sees it
// once; a POST whose connection drops after it was written is ambiguous
// and never sent again, even to a service reached before.
func TestOutagePOSTRetriedOnlyWhenRefused(t *testing.T) {
	var drop atomic.Bool
	srv := newRestartable(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && drop.Load() {
			dropConnection(w)
			return
		}
		answers(w, r)
	}))
	var waits atomic.Int64
	cfg := testConfig("http://" + srv.addr)
	cfg.Sleep = restartAfter(srv, 2, &waits)
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListWorkspaces(t.Context()); err != nil {
		t.Fatalf("first request: %v", err)
	}
	srv.stop()
	// The pooled connection of the first request was closed by the stop; a
	// POST written to it before the client notices is ambiguous (checked
	// below). Here the dial is what fails.
	c.http.CloseIdleConnections()
	if _, err := c.CreateWorkspace(t.Context(), "n", ""); err != nil {
		t.Fatalf("POST during the restart: %v", err)
	}
	if n := srv.posts.Load(); n != 1 {
		t.Errorf("the service saw %d POSTs, want 1", n)
	}

	drop.Store(true)
	waits.Store(100) // the hook restarts nothing more
	_, err = c.CreateWorkspace(t.Context(), "n", "")
	if !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("err = %v, want ErrAmbiguous", err)
	}
	if n := srv.posts.Load(); n != 2 {
		t.Errorf("the service saw %d POSTs in all, want 2 (the dropped one not sent again)", n)
	}
	if n := waits.Load(); n != 100 {
		t.Errorf("%d waits after the dropped POST, want none", n-100)
	}
}

// TestNeverReachedServiceFailsAtOnce: with the same configuration, a
// service that never answered in this client's life fails at once on a
// refused connection: a wrong address is not an outage.
func TestNeverReachedServiceFailsAtOnce(t *testing.T) {
	srv := newRestartable(t, answers)
	srv.stop()
	// Port 1 of loopback: nothing listens there, and no test's server can
	// take it over (the port of a stopped server is free for the next
	// ephemeral listener of a parallel test, which would answer).
	srv.addr = "127.0.0.1:1"
	var waits atomic.Int64
	cfg := testConfig("http://" + srv.addr)
	cfg.MaxRetries = 1
	cfg.Sleep = restartAfter(srv, 3, &waits)
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListWorkspaces(t.Context())
	if err == nil || !strings.Contains(err.Error(), "cannot connect") || !strings.Contains(err.Error(), "nothing accepts connections at "+srv.addr) {
		t.Fatalf("err = %v, want a refused connection naming the address", err)
	}
	if n := waits.Load(); n != 0 {
		t.Errorf("%d waits, want 0", n)
	}
}

// TestOutageBounded: a service that answered and then stays down is
// given up after OutageRetry, with an error that says so.
func TestOutageBounded(t *testing.T) {
	srv := newRestartable(t, answers)
	cfg := testConfig("http://" + srv.addr)
	cfg.OutageRetry = 20 * time.Millisecond
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListWorkspaces(t.Context()); err != nil {
		t.Fatalf("first request: %v", err)
	}
	srv.stop()
	_, err = c.ListWorkspaces(t.Context())
	if err == nil || !strings.Contains(err.Error(), "refused or reset the connections for 20ms") ||
		!strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("err = %v, want the outage given up", err)
	}
	assertNoKey(t, err.Error())
}
