package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

const testKey = "zk_live_S3cr3t-K3y/+=" // contains characters that URL and JSON escaping change

// recorded is what a test server saw of one request.
type recorded struct {
	Method     string
	RequestURI string
	Path       string // decoded
	Header     http.Header
	Body       string
}

// recorder is a test server that records requests and answers with a fixed
// status and body.
type recorder struct {
	mu       sync.Mutex
	requests []recorded
	status   int
	body     string
	header   http.Header
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.requests = append(r.requests, recorded{req.Method, req.RequestURI, req.URL.Path, req.Header.Clone(), string(body)})
	status, respBody := r.status, r.body
	for k, v := range r.header {
		w.Header()[k] = v
	}
	r.mu.Unlock()
	if status == 0 {
		status = http.StatusOK
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, respBody)
}

func (r *recorder) last(t *testing.T) recorded {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.requests) == 0 {
		t.Fatal("the server received no request")
	}
	return r.requests[len(r.requests)-1]
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.requests)
}

// logRecorder collects the client's log entries.
type logRecorder struct {
	mu      sync.Mutex
	entries []map[string]any
}

func (l *logRecorder) log(_ context.Context, msg string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := map[string]any{"msg": msg}
	for k, v := range fields {
		e[k] = v
	}
	l.entries = append(l.entries, e)
}

func (l *logRecorder) all() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]map[string]any(nil), l.entries...)
}

func (l *logRecorder) retryWaits() []time.Duration {
	var out []time.Duration
	for _, e := range l.all() {
		if e["msg"] == "retrying API request" {
			ms, _ := e["wait_ms"].(int64)
			out = append(out, time.Duration(ms)*time.Millisecond)
		}
	}
	return out
}

// testConfig returns a configuration for a server, with tiny retry waits.
func testConfig(url string) Config {
	return Config{
		BaseURL:      url,
		StorageURL:   url,
		APIKey:       testKey,
		RetryWaitMin: time.Millisecond,
		RetryWaitMax: 5 * time.Millisecond,
		MaxRetries:   3,
	}
}

func newTestClient(t *testing.T, h http.Handler, mod func(*Config)) (*Client, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg := testConfig(srv.URL)
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, srv
}

// assertNoKey fails when the API key, in any common encoding, is in s.
func assertNoKey(t *testing.T, s string) {
	t.Helper()
	for _, form := range []string{testKey, escapeQuery(testKey), escapePath(testKey), "S3cr3t-K3y"} {
		if strings.Contains(s, form) {
			t.Fatalf("the API key (%q) leaked into %q", form, s)
		}
	}
}

func TestNewNormalizesURLs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://api.example.com", "https://api.example.com/v3"},
		{"https://api.example.com/", "https://api.example.com/v3"},
		{"https://api.example.com/v3", "https://api.example.com/v3"},
		{"https://api.example.com/v3/", "https://api.example.com/v3"},
		{"https://api.example.com/v3//", "https://api.example.com/v3"},
		{"  https://api.example.com:8443/zdm  ", "https://api.example.com:8443/zdm/v3"},
		{"https://api.example.com/zdm/v3", "https://api.example.com/zdm/v3"},
		{"HTTP://127.0.0.1:9000", "http://127.0.0.1:9000/v3"},
		{"http://[::1]:9000/v3", "http://[::1]:9000/v3"},
		{"https://api.example.com/a%2Fb", "https://api.example.com/a%2Fb/v3"},
	}
	for _, tt := range tests {
		c, err := New(Config{BaseURL: tt.in, StorageURL: tt.in, APIKey: "k"})
		if err != nil {
			t.Errorf("New(%q): %v", tt.in, err)
			continue
		}
		if got := c.BaseURL(); got != tt.want {
			t.Errorf("BaseURL for %q = %q, want %q", tt.in, got, tt.want)
		}
		if got := c.StorageURL(); got != tt.want {
			t.Errorf("StorageURL for %q = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"empty key", Config{BaseURL: "https://h", APIKey: " "}, "API key is empty"},
		{"empty base", Config{APIKey: "k"}, "base URL is empty"},
		{"no scheme", Config{BaseURL: "api.example.com/v3", APIKey: "k"}, "must start with https://"},
		{"host only with port", Config{BaseURL: "localhost:8080", APIKey: "k"}, "must start with https://"},
		{"other scheme", Config{BaseURL: "ftp://api.example.com", APIKey: "k"}, "must start with https://"},
		{"no host", Config{BaseURL: "https:///v3", APIKey: "k"}, "has no host"},
		{"opaque", Config{BaseURL: "https:api.example.com", APIKey: "k"}, "has no host"},
		{"credentials", Config{BaseURL: (&url.URL{Scheme: "https", Host: "api.example.com", User: url.UserPassword("user", "pw")}).String(), APIKey: "k"}, "must not carry credentials"},
		{"query", Config{BaseURL: "https://api.example.com?x=1", APIKey: "k"}, "query or fragment"},
		{"fragment", Config{BaseURL: "https://api.example.com#x", APIKey: "k"}, "query or fragment"},
		{"bad storage", Config{BaseURL: "https://h", StorageURL: "storage", APIKey: "k"}, "storage URL"},
		{"unparsable", Config{BaseURL: "https://h/%zz", APIKey: "k"}, "not a valid URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New error = %v, want it to contain %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "pw@") {
				t.Fatalf("error shows credentials: %v", err)
			}
		})
	}
}

func TestStorageURLOptional(t *testing.T) {
	c, err := New(Config{BaseURL: "https://h", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if c.StorageURL() != "" {
		t.Fatalf("StorageURL = %q, want empty", c.StorageURL())
	}
	_, err = c.GetData(t.Context(), "wks", DataQuery{})
	if err == nil || !strings.Contains(err.Error(), "storage_url") {
		t.Fatalf("GetData without storage URL: %v", err)
	}
}

func TestDefaults(t *testing.T) {
	c, err := New(Config{BaseURL: "https://h", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	// The values the documentation of the provider states (literals, not
	// the package's constants, so that changing a default fails here).
	if c.userAgent != "terraform-provider-zdm/dev" || c.timeout != 60*time.Second || c.retries != 5 ||
		c.waitMin != 500*time.Millisecond || c.waitMax != 30*time.Second {
		t.Fatalf("defaults: user agent %q, timeout %v, retries %d, waits %v..%v; want terraform-provider-zdm/dev, 60s, 5, 500ms..30s",
			c.userAgent, c.timeout, c.retries, c.waitMin, c.waitMax)
	}
	tr, ok := c.http.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("default transport is %T", c.http.Transport)
	}
	if tr.TLSClientConfig == nil || tr.TLSClientConfig.MinVersion < 0x0303 {
		t.Fatalf("default transport allows TLS below 1.2: %+v", tr.TLSClientConfig)
	}
	if tr.Proxy == nil {
		t.Fatal("default transport ignores proxy settings")
	}
	c, err = New(Config{BaseURL: "https://h", APIKey: "k", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if c.retries != 0 {
		t.Fatalf("MaxRetries -1 gives %d retries", c.retries)
	}
}

func TestStringsHideKey(t *testing.T) {
	cfg := Config{BaseURL: "https://h", APIKey: testKey}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c)} {
		assertNoKey(t, s)
	}
}

func TestHeaders(t *testing.T) {
	rec := &recorder{body: `{"workspaces":[]}`}
	c, _ := newTestClient(t, rec, nil)
	if _, err := c.ListWorkspaces(t.Context()); err != nil {
		t.Fatal(err)
	}
	h := rec.last(t).Header
	for k, want := range map[string]string{
		"X-Api-Key":    testKey,
		"Content-Type": "application/json",
		"Accept":       "application/json",
		"User-Agent":   DefaultUserAgent,
	} {
		if got := h.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}

	c2, _ := newTestClient(t, rec, func(cfg *Config) {
		cfg.UserAgent = "terraform-provider-zdm/1.2.3 (+https://www.terraform.io) Terraform/1.15.0"
	})
	if _, err := c2.ListWorkspaces(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := rec.last(t).Header.Get("User-Agent"); !strings.HasPrefix(got, "terraform-provider-zdm/1.2.3 ") {
		t.Errorf("User-Agent = %q", got)
	}
}

func TestPathEscaping(t *testing.T) {
	ids := map[string]string{
		"slash":    "a/b",
		"question": "a?b=c",
		"percent":  "100%",
		"space":    "my device",
		"unicode":  "設備-é",
		"hash":     "a#b",
		"dot":      ".",
		"dotdot":   "..",
		"plus":     "a+b",
		"semi":     "a;b,c",
	}
	rec := &recorder{body: `{"device":{"id":"x"}}`}
	c, _ := newTestClient(t, rec, nil)
	for name, id := range ids {
		t.Run(name, func(t *testing.T) {
			if _, err := c.GetDevice(t.Context(), "wks "+id, id); err != nil {
				t.Fatal(err)
			}
			got := rec.last(t)
			wantURI := "/v3/workspaces/" + escapePath("wks "+id) + "/devices/" + escapePath(id)
			if got.RequestURI != wantURI {
				t.Errorf("RequestURI = %q, want %q", got.RequestURI, wantURI)
			}
			if got.Path != "/v3/workspaces/wks "+id+"/devices/"+id {
				t.Errorf("decoded path = %q", got.Path)
			}
		})
	}
}

func TestEmptyIDsRejected(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, rec, nil)
	ctx := t.Context()
	checks := map[string]error{}
	_, checks["GetWorkspace"] = c.GetWorkspace(ctx, "")
	_, checks["GetFleet"] = c.GetFleet(ctx, "w", "")
	_, checks["GetDevice"] = c.GetDevice(ctx, "", "d")
	_, checks["UpdateDevice"] = c.UpdateDevice(ctx, "w", "", "n", "")
	_, checks["ListJobs"] = c.ListJobs(ctx, "", "")
	_, checks["ScheduleJob"] = c.ScheduleJob(ctx, "d", "", nil)
	_, checks["ScheduleFOTA"] = c.ScheduleFOTA(ctx, "d", "fw", "")
	_, checks["StreamData"] = c.StreamData(ctx, "", DataQuery{}, nil)
	for name, err := range checks {
		if err == nil || !strings.Contains(err.Error(), "is empty") {
			t.Errorf("%s with an empty ID: %v", name, err)
		}
	}
	if rec.count() != 0 {
		t.Fatalf("%d requests sent for empty IDs", rec.count())
	}
}

func TestRedirectToOtherHostNotFollowed(t *testing.T) {
	other := &recorder{body: `{"workspaces":[]}`}
	otherSrv := httptest.NewServer(other)
	t.Cleanup(otherSrv.Close)
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherSrv.URL+"/v3/workspaces", http.StatusTemporaryRedirect)
	}), nil)
	_, err := c.ListWorkspaces(t.Context())
	if !IsStatus(err, http.StatusTemporaryRedirect) {
		t.Fatalf("err = %v, want the 307 as an APIError", err)
	}
	if other.count() != 0 {
		t.Fatal("the key was sent to another host")
	}
}

func TestConcurrentUse(t *testing.T) {
	rec := &recorder{body: `{"devices":[{"id":"d","identities":null}]}`}
	c, _ := newTestClient(t, rec, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			devices, err := c.ListDevices(t.Context(), fmt.Sprintf("wks-%d", i))
			if err == nil && (len(devices) != 1 || devices[0].Identities != nil) {
				err = fmt.Errorf("devices = %+v", devices)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if rec.count() != 20 {
		t.Fatalf("%d requests, want 20", rec.count())
	}
}
