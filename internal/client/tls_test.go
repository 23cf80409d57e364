package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// tlsServer starts an HTTPS server limited to the TLS versions min..max that
// answers every request with an empty workspace list.
func tlsServer(t *testing.T, minVersion, maxVersion uint16) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"workspaces":[]}`))
	}))
	srv.TLS = &tls.Config{MinVersion: minVersion, MaxVersion: maxVersion}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// trustingClient is a client with the default transport that trusts the
// certificate of srv (and nothing else changed).
func trustingClient(t *testing.T, srv *httptest.Server) *Client {
	t.Helper()
	c, err := New(Config{BaseURL: srv.URL, APIKey: "k", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := c.http.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("default transport is %T", c.http.Transport)
	}
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	tr.TLSClientConfig.RootCAs = pool
	return c
}

// TestTLSMinimumVersion: the default transport refuses a server that offers
// at most TLS 1.1, and talks to TLS 1.2 and 1.3 servers with the same
// certificate trust, so the refusal is the version's.
func TestTLSMinimumVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	old := tlsServer(t, tls.VersionTLS10, tls.VersionTLS11)
	_, err := trustingClient(t, old).ListWorkspaces(ctx)
	if err == nil {
		t.Fatal("a TLS 1.1 server was accepted")
	}
	t.Logf("TLS 1.1 server: %v", err)
	if !strings.Contains(err.Error(), "protocol version") {
		t.Errorf("the TLS 1.1 handshake failed for another reason: %v", err)
	}

	// The old server itself works for a client that allows TLS 1.1.
	oldOK, err := New(Config{BaseURL: old.URL, APIKey: "k", MaxRetries: -1, HTTPClient: old.Client()})
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := oldOK.http.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("test server transport is %T", oldOK.http.Transport)
	}
	tr.TLSClientConfig.MinVersion = tls.VersionTLS10
	if _, err := oldOK.ListWorkspaces(ctx); err != nil {
		t.Fatalf("control: a client allowing TLS 1.0 cannot reach the TLS 1.1 server: %v", err)
	}

	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		srv := tlsServer(t, v, v)
		if _, err := trustingClient(t, srv).ListWorkspaces(ctx); err != nil {
			t.Errorf("TLS %s server: %v", tls.VersionName(v), err)
		}
	}
}
