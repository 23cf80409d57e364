package localzdm

import "testing"

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
