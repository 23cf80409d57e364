package client

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestDefaultTransportKeepsParallelConnections checks that rounds of 10
// parallel requests (Terraform's default -parallelism) reuse their
// connections instead of dialing most of them again each round.
func TestDefaultTransportKeepsParallelConnections(t *testing.T) {
	t.Parallel()
	var dials atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(5 * time.Millisecond) // let the requests of a round overlap
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"devices":[]}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			dials.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)

	c, err := New(Config{BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	const parallel, rounds = 10, 5
	for range rounds {
		var wg sync.WaitGroup
		for range parallel {
			wg.Go(func() {
				if _, err := c.ListDevices(t.Context(), "wks-1"); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	if n := dials.Load(); n > 2*parallel {
		t.Errorf("%d rounds of %d parallel requests opened %d connections, want at most %d", rounds, parallel, n, 2*parallel)
	}
}
