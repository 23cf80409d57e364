package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// connectTest runs one ListWorkspaces with cfg and returns the number of
// retries the client made and the error.
func connectTest(t *testing.T, cfg Config) (retries int, err error) {
	t.Helper()
	logs := &logRecorder{}
	cfg.MaxRetries = 2
	cfg.Logger = logs.log
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListWorkspaces(t.Context())
	if err == nil {
		t.Fatal("ListWorkspaces succeeded")
	}
	assertNoKey(t, err.Error())
	return len(logs.retryWaits()), err
}

// dialFailing is an HTTP client whose every dial fails with err, as the
// resolver or the network would.
func dialFailing(err error) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
		return nil, err
	}}}
}

// TestUnknownHostNotRetried: a host name the resolver does not know fails
// at once, naming the setting to fix.
func TestUnknownHostNotRetried(t *testing.T) {
	cfg := testConfig("http://zdm.invalid")
	cfg.HTTPClient = dialFailing(&net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Err: "no such host", Name: "zdm.invalid", IsNotFound: true}})
	retries, err := connectTest(t, cfg)
	for _, want := range []string{"cannot connect", `the host "zdm.invalid" is unknown`, "base_url", "ZDM_BASE_URL"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
	if retries != 0 {
		t.Errorf("%d retries, want 0", retries)
	}
}

// TestOtherDialErrorRetried is the control of the connection errors that
// are not retried: another dial error (the resolver timing out) is
// retried, with no hint.
func TestOtherDialErrorRetried(t *testing.T) {
	cfg := testConfig("http://zdm.example")
	cfg.HTTPClient = dialFailing(&net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Err: "i/o timeout", Name: "zdm.example", IsTimeout: true}})
	retries, err := connectTest(t, cfg)
	if retries != 2 || strings.Contains(err.Error(), "cannot connect") {
		t.Errorf("%d retries, err = %v; want 2 retries and no hint", retries, err)
	}
}

// TestHTTPSToPlainHTTPNotRetried: an https:// address of a plain-HTTP
// server fails at once and says to use http:// with insecure_http.
func TestHTTPSToPlainHTTPNotRetried(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served.Add(1) }))
	t.Cleanup(srv.Close)
	url := "https://" + strings.TrimPrefix(srv.URL, "http://")
	cfg := testConfig(url)
	retries, err := connectTest(t, cfg)
	for _, want := range []string{"cannot connect", "answers plain HTTP, not HTTPS", "use an http:// address",
		"insecure_http = true", "ZDM_INSECURE_HTTP=true", "base_url"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
	if retries != 0 || served.Load() != 0 {
		t.Errorf("%d retries, %d requests served; want 0 and 0", retries, served.Load())
	}
}

// TestHTTPSToHTMLServerNotRetried: a plain-HTTP server that answers the
// TLS hello with an HTML page, not an HTTP status line ("tls: first record
// does not look like a TLS handshake"), fails at once too, naming base_url
// and http://.
func TestHTTPSToHTMLServerNotRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	var accepted atomic.Int64
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			_, _ = conn.Read(make([]byte, 1024))
			_, _ = conn.Write([]byte("<html><body><h1>400 Bad Request</h1></body></html>\n"))
			_ = conn.Close()
		}
	}()
	retries, err := connectTest(t, testConfig("https://"+ln.Addr().String()))
	for _, want := range []string{"first record does not look like a TLS handshake", "cannot connect",
		"answers plain HTTP, not HTTPS", "use an http:// address", "base_url"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
	if retries != 0 || accepted.Load() != 1 {
		t.Errorf("%d retries, %d connections; want 0 and 1", retries, accepted.Load())
	}
}

// TestStorageConnectionNamesStorageURL: a refused connection to the
// storage service names storage_url and ZDM_STORAGE_URL.
func TestStorageConnectionNamesStorageURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	_ = ln.Close()
	cfg := testConfig(srv.URL)
	cfg.StorageURL = closed
	cfg.MaxRetries = 2
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetData(t.Context(), "wks-1", DataQuery{})
	if err == nil || !strings.Contains(err.Error(), "storage_url") || !strings.Contains(err.Error(), "ZDM_STORAGE_URL") ||
		strings.Contains(err.Error(), "base_url") || errors.Is(err, ErrAmbiguous) {
		t.Errorf("err = %v, want a hint naming storage_url", err)
	}
}
