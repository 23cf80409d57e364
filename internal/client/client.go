// Package client is a typed client for the device management service and the
// time-series storage service of ZDM (both under /v3).
//
// Every endpoint has one method; every method takes a context. Errors are
// *APIError for non-2xx answers (see IsNotFound and IsStatus); a POST that
// failed after it may have reached the server wraps ErrAmbiguous. The API key
// never appears in errors or log fields.
//
// Size: two services' endpoints (one method each), the transport rules
// every request shares (retries, outages, pacing by refusals and by the
// quota headers, finishing what was sent) and the device list's scanner.
// They are one concept, a request to ZDM: split, each part would need the
// others' unexported state (the pacer, the attempt's context).
//
// Loop: a request's attempt (transport.go) asks the pacer (pace.go) and the
// quota it reads from the answers (quota.go) whether and when to go, and
// those name the attempt's errors (errors.go, with the secrets redacted by
// redact.go), its clock (clock.go), the finishing of what was sent
// (finish.go) and the services' addresses (serviceurl.go) back: the steps of
// one request, which no file can take without the others. The tenth file is
// the no-op of the deliberately writing test build (mutant_noplanwrite.go),
// which every read calls.
package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-cleanhttp"
)

// Defaults of the Config fields left at their zero value.
const (
	DefaultUserAgent      = "terraform-provider-zdm/dev"
	DefaultRequestTimeout = 60 * time.Second
	DefaultMaxRetries     = 5
	DefaultRetryWaitMin   = 500 * time.Millisecond
	DefaultRetryWaitMax   = 30 * time.Second
	DefaultOutageRetry    = 30 * time.Second
)

// maxIdleConnsPerHost is how many idle connections the default transport
// keeps per host: more than Terraform's usual -parallelism.
const maxIdleConnsPerHost = 32

// Config configures a Client. Zero values select the defaults.
type Config struct {
	// BaseURL is the address of the device management service, with or
	// without the trailing /v3 (appended when missing) and trailing slash.
	BaseURL string
	// StorageURL is the address of the time-series storage service, same
	// rule. It may be empty when the storage methods are not used.
	StorageURL string
	// APIKey is sent in the X-API-KEY header of every request.
	APIKey string
	// UserAgent is the full User-Agent header; default DefaultUserAgent.
	UserAgent string
	// HTTPClient sends the requests; default a go-cleanhttp pooled client
	// with TLS 1.2 as the minimum version. Redirects to another host or from
	// https to http are not followed, so the key is not sent elsewhere.
	HTTPClient *http.Client
	// RequestTimeout bounds each attempt, reading the response included;
	// default 60s.
	RequestTimeout time.Duration
	// MaxRetries is the number of retries after the first attempt; default
	// 5. A negative value disables retries.
	MaxRetries int
	// RetryWaitMin is the first backoff wait; default 500ms.
	RetryWaitMin time.Duration
	// RetryWaitMax caps one wait, Retry-After included; default 30s.
	RetryWaitMax time.Duration
	// MaxRequestsPerSecond, when positive, is the most requests a second
	// the client starts, both services together: they start at least
	// 1/MaxRequestsPerSecond apart.
	MaxRequestsPerSecond float64
	// OutageRetry bounds how long a request is retried while a service that
	// answered earlier in this client's life refuses or resets its
	// connections (a restart): default 30s, from the first such failure of
	// the request, and never past the request's deadline. A service never
	// reached fails at once. With retries disabled (MaxRetries < 0) nothing
	// is retried.
	OutageRetry time.Duration
	// Logger, when set, receives one entry per attempt (method, path,
	// status, attempt, duration) and per retry wait. It never receives
	// headers or the key.
	Logger func(ctx context.Context, msg string, fields map[string]any)
	// Sleep, when set, performs each wait between attempts instead of a
	// timer: it must return after d, or with the context's error when ctx
	// ends first. Tests record the waits with it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// String describes the configuration without the API key.
func (c Config) String() string {
	key := "<empty>"
	if c.APIKey != "" {
		key = "[REDACTED]"
	}
	return fmt.Sprintf("client.Config{BaseURL:%q StorageURL:%q APIKey:%s UserAgent:%q}", c.BaseURL, c.StorageURL, key, c.UserAgent)
}

// GoString is String, so that %#v does not print the key either.
func (c Config) GoString() string { return c.String() }

// Client calls both services. It is safe for concurrent use.
type Client struct {
	mgmt    *baseURL
	storage *baseURL // nil when no storage URL was configured

	key       string
	scrub     func(string) string
	userAgent string
	http      *http.Client

	timeout time.Duration
	retries int
	waitMin time.Duration
	waitMax time.Duration
	outage  time.Duration
	logger  func(ctx context.Context, msg string, fields map[string]any)
	sleep   func(ctx context.Context, d time.Duration) error

	clock serviceClock
}

// New checks the configuration and returns a Client. It fails when the key is
// empty or a URL has no http(s) scheme or no host.
func New(cfg Config) (*Client, error) {
	if strings.TrimSpace(cfg.APIKey) == "" {
		return nil, errors.New("client: the API key is empty")
	}
	mgmt, err := parseBaseURL("base URL", cfg.BaseURL, cfg.APIKey)
	if mgmt != nil {
		mgmt.setting = "base_url in the provider block (or the ZDM_BASE_URL environment variable when base_url is not set)"
	}
	if err != nil {
		return nil, err
	}
	c := &Client{
		mgmt:      mgmt,
		key:       cfg.APIKey,
		scrub:     keyScrubber(cfg.APIKey),
		userAgent: cfg.UserAgent,
		timeout:   cfg.RequestTimeout,
		retries:   cfg.MaxRetries,
		waitMin:   cfg.RetryWaitMin,
		waitMax:   cfg.RetryWaitMax,
		outage:    cfg.OutageRetry,
		logger:    cfg.Logger,
		sleep:     cfg.Sleep,
	}
	if strings.TrimSpace(cfg.StorageURL) != "" {
		if c.storage, err = parseBaseURL("storage URL", cfg.StorageURL, cfg.APIKey); c.storage != nil {
			c.storage.setting = "storage_url in the provider block (or the ZDM_STORAGE_URL environment variable when storage_url is not set)"
		}
		if err != nil {
			return nil, err
		}
	}
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent
	}
	if c.timeout <= 0 {
		c.timeout = DefaultRequestTimeout
	}
	switch {
	case c.retries == 0:
		c.retries = DefaultMaxRetries
	case c.retries < 0:
		c.retries = 0
	}
	if c.waitMin <= 0 {
		c.waitMin = DefaultRetryWaitMin
	}
	if c.waitMax <= 0 {
		c.waitMax = DefaultRetryWaitMax
	}
	if c.outage <= 0 {
		c.outage = DefaultOutageRetry
	}
	if c.sleep == nil {
		c.sleep = Sleep
	}
	if c.waitMax < c.waitMin {
		c.waitMax = c.waitMin
	}
	if most := newPaceMost(cfg.MaxRequestsPerSecond); most != nil {
		c.mgmt.pace.most = most
		if c.storage != nil {
			c.storage.pace.most = most
		}
	}
	if cfg.HTTPClient != nil {
		hc := *cfg.HTTPClient
		if hc.CheckRedirect == nil {
			hc.CheckRedirect = checkRedirect
		}
		c.http = &hc
	} else {
		t := cleanhttp.DefaultPooledTransport()
		t.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		// Terraform runs up to -parallelism (default 10) operations at once.
		// cleanhttp keeps GOMAXPROCS+1 idle connections per host, so on a
		// small machine most of those connections would be closed after
		// each request and dialed again (a TLS handshake each).
		t.MaxIdleConnsPerHost = maxIdleConnsPerHost
		c.http = &http.Client{Transport: t, CheckRedirect: checkRedirect}
	}
	return c, nil
}

// BaseURL returns the normalized management service URL, ending in /v3.
func (c *Client) BaseURL() string { return c.mgmt.String() }

// StorageURL returns the normalized storage service URL, ending in /v3, or ""
// when none was configured.
func (c *Client) StorageURL() string {
	if c.storage == nil {
		return ""
	}
	return c.storage.String()
}

// String describes the client without the API key.
func (c *Client) String() string {
	return fmt.Sprintf("client.Client{BaseURL:%q StorageURL:%q}", c.BaseURL(), c.StorageURL())
}

// GoString is String, so that %#v does not print the key either.
func (c *Client) GoString() string { return c.String() }

// checkRedirect follows at most 10 redirects, and only on the same host
// without a downgrade from https, because the X-API-KEY header is sent again.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	first := via[0].URL
	if req.URL.Host != first.Host || (first.Scheme == "https" && req.URL.Scheme != "https") {
		return http.ErrUseLastResponse
	}
	return nil
}

// baseURL is a normalized service address: scheme, host and the escaped path
// prefix ending in /v3.
type baseURL struct {
	scheme, host   string
	path, escaped  string
	normalizedText string
	// setting names where the address comes from, for the messages of a
	// connection that fails: the provider attribute and its environment
	// variable.
	setting string
	// pace paces the requests to the service (see pace.go).
	pace pacer
	// reached is set by the first HTTP answer of the service (any status):
	// from then on a refused or reset connection is an outage, retried for
	// a bounded time (see transportFailure), not a wrong address.
	reached atomic.Bool
}

func (b *baseURL) String() string { return b.normalizedText }

func parseBaseURL(what, raw, key string) (*baseURL, error) {
	raw = strings.TrimSpace(raw)
	shown := RedactURL(raw, key)
	if raw == "" {
		return nil, fmt.Errorf("client: the %s is empty", what)
	}
	u, err := parseServiceURL(raw, shown)
	if err != nil {
		return nil, fmt.Errorf("client: the %s %w", what, err)
	}
	scheme := u.Scheme
	escaped := strings.TrimRight(u.EscapedPath(), "/")
	if !strings.HasSuffix(escaped, "/v3") {
		escaped += "/v3"
	}
	path, err := url.PathUnescape(escaped)
	if err != nil {
		return nil, fmt.Errorf("client: the %s %q has an invalid path: %w", what, shown, err)
	}
	b := &baseURL{scheme: scheme, host: u.Host, path: path, escaped: escaped}
	b.normalizedText = scheme + "://" + u.Host + escaped
	return b, nil
}

// endpoint builds the URL of path segments below the base; each segment is
// escaped on its own, so IDs may contain any character.
func (b *baseURL) endpoint(segments []string, query url.Values) *url.URL {
	var p, e strings.Builder
	p.WriteString(b.path)
	e.WriteString(b.escaped)
	for _, s := range segments {
		p.WriteByte('/')
		p.WriteString(s)
		e.WriteByte('/')
		e.WriteString(escapePath(s))
	}
	u := &url.URL{Scheme: b.scheme, Host: b.host, Path: p.String(), RawPath: e.String()}
	if len(query) > 0 {
		u.RawQuery = query.Encode()
	}
	return u
}

// escapePath escapes one path segment: url.PathEscape, plus "." and ".." so
// that no segment is read as a relative reference.
func escapePath(s string) string {
	switch s {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(s)
}

func escapeQuery(s string) string { return url.QueryEscape(s) }
