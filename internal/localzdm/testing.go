package localzdm

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// StartTest starts a server on free loopback ports for a test and closes it
// when the test ends.
func StartTest(t testing.TB) *Server {
	t.Helper()
	return StartTestWithOptions(t, Options{})
}

// StartTestWithOptions is StartTest with options (e.g. a state file).
func StartTestWithOptions(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatalf("localzdm: %v", err)
	}
	if err := s.Start("127.0.0.1:0", "127.0.0.1:0"); err != nil {
		_ = s.Close()
		t.Fatalf("localzdm: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("localzdm: close: %v", err)
		}
	})
	return s
}

// StartNotFoundTest starts a server on a free loopback port that answers
// every request 404 with the plain text "404 page not found", as a host or
// port serving something else would, and returns its base URL. It closes
// when the test ends. To switch a running Server to such answers for its
// API paths only, add a RequestFault with Action FaultNotFound and Path
// "/v3/*".
func StartNotFoundTest(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(http.NotFound))
	t.Cleanup(srv.Close)
	return srv.URL
}
