package client

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// FuzzEndpoint checks the URLs of requests: any service address that is
// accepted normalizes to http(s)://host/.../v3, and any path segments (IDs,
// job names) are escaped so that the request goes to the same host, and the
// server, splitting the path at "/" and unescaping each part, gets exactly
// the segments back. Seeds are in testdata/fuzz/FuzzEndpoint.
func FuzzEndpoint(f *testing.F) {
	f.Add("https://api.example.com", "workspaces\x00wks-1\x00devices\x00dev-1")
	f.Add("http://127.0.0.1:8080/v3/", "devices\x00a/b\x00jobs\x00..")
	f.Add("https://api.example.com/prefix%2Fx/", "\x00.\x00%2F\x00?#")
	f.Add("HTTPS://[::1]:443", "@evil.example.com\x00\\\x00 ")
	f.Fuzz(func(t *testing.T, raw, joined string) {
		b, err := parseBaseURL("base URL", raw, "")
		if err != nil {
			return
		}
		if !strings.HasSuffix(b.escaped, "/v3") || (b.scheme != "http" && b.scheme != "https") || b.host == "" {
			t.Fatalf("parseBaseURL(%q) = %+v", raw, b)
		}
		base, err := url.Parse(b.String())
		if err != nil || base.Host != b.host {
			t.Fatalf("normalized %q does not parse back to host %q: %v", b.String(), b.host, err)
		}
		segments := strings.Split(joined, "\x00")
		u := b.endpoint(segments, url.Values{"q": {joined}})
		back, err := url.Parse(u.String())
		if err != nil {
			t.Fatalf("endpoint %q does not parse: %v", u.String(), err)
		}
		if back.Scheme != b.scheme || back.Host != b.host || back.User != nil {
			t.Fatalf("endpoint %q leaves %s://%s", u.String(), b.scheme, b.host)
		}
		if back.Query().Get("q") != joined {
			t.Fatalf("query of %q does not carry %q", u.String(), joined)
		}
		rest, ok := strings.CutPrefix(back.EscapedPath(), b.escaped+"/")
		if !ok {
			t.Fatalf("endpoint path %q is not below %q", back.EscapedPath(), b.escaped)
		}
		parts := strings.Split(rest, "/")
		if len(parts) != len(segments) {
			t.Fatalf("%d segments became %d: %q", len(segments), len(parts), rest)
		}
		for i, p := range parts {
			if p == "." || p == ".." {
				t.Fatalf("segment %d is the relative reference %q", i, p)
			}
			got, err := url.PathUnescape(p)
			if err != nil || got != segments[i] {
				t.Fatalf("segment %d %q came back as %q (%v)", i, segments[i], got, err)
			}
		}
	})
}

// TestEndpointLiterals pins the URLs of requests, written out: the
// normalized service address and the escaping of path segments.
func TestEndpointLiterals(t *testing.T) {
	tests := []struct {
		base     string
		segments []string
		query    url.Values
		want     string
	}{
		{"https://api.example.com", []string{"workspaces"}, nil, "https://api.example.com/v3/workspaces"},
		{"https://api.example.com/", []string{"workspaces", "wks-1"}, nil, "https://api.example.com/v3/workspaces/wks-1"},
		{"https://api.example.com/v3/", []string{"workspaces"}, nil, "https://api.example.com/v3/workspaces"},
		{"HTTPS://API.example.com:8443/v3", []string{"devices", "dev-1"}, nil, "https://API.example.com:8443/v3/devices/dev-1"},
		{"http://127.0.0.1:8080/v3/", []string{"devices", "a/b", "jobs", ".."}, nil, "http://127.0.0.1:8080/v3/devices/a%2Fb/jobs/%2E%2E"},
		{"http://[::1]:9000", []string{".", "x y", "?#"}, nil, "http://[::1]:9000/v3/%2E/x%20y/%3F%23"},
		{"https://api.example.com/prefix", []string{"@evil.example.com", "\\"}, nil, "https://api.example.com/prefix/v3/@evil.example.com/%5C"},
		{"https://api.example.com", []string{"timeseries", "wks-1", "data"}, url.Values{"size": {"10"}, "tag": {"a b"}},
			"https://api.example.com/v3/timeseries/wks-1/data?size=10&tag=a+b"},
	}
	for _, tt := range tests {
		b, err := parseBaseURL("base URL", tt.base, "")
		if err != nil {
			t.Fatalf("parseBaseURL(%q): %v", tt.base, err)
		}
		if got := b.endpoint(tt.segments, tt.query).String(); got != tt.want {
			t.Errorf("endpoint(%q, %q) = %s\nwant %s", tt.base, tt.segments, got, tt.want)
		}
	}
	for _, bad := range []string{"", "api.example.com", "ftp://h", "https://", "https://u:p@h", "https://h/v3?x=1", "https://h/#f"} {
		if b, err := parseBaseURL("base URL", bad, ""); err == nil {
			t.Errorf("parseBaseURL(%q) = %s, want an error", bad, b)
		}
	}
}

// FuzzParseRetryAfter checks that any Retry-After value gives a wait that
// is not negative, and none without a value. The exact
// values are pinned by TestParseRetryAfter and TestParseRetryAfterLiterals.
// (The request loop caps every wait at RetryWaitMax.)
func FuzzParseRetryAfter(f *testing.F) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, s := range []string{"0", "1", " 120 ", "-1", "99999999999999999999", "Wed, 01 Jan 2025 00:00:30 GMT",
		"Tue, 31 Dec 2024 23:00:00 GMT", "1.5", "", "soon"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := parseRetryAfter(v, now)
		if !ok && d != 0 {
			t.Fatalf("parseRetryAfter(%q) = %s without a value", v, d)
		}
		if d < 0 {
			t.Fatalf("parseRetryAfter(%q) = %s", v, d)
		}
	})
}

// TestParseRetryAfterLiterals gives the expected wait of the fuzz seeds,
// written out.
func TestParseRetryAfterLiterals(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"1", time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"31536000", 8760 * time.Hour, true},
		{"31536001", 8760 * time.Hour, true},
		{"99999999999999999999", 0, false}, // does not fit an int64: not delta-seconds, not a date
		{"-1", 0, false},
		{"+5", 5 * time.Second, true},
		{"Wed, 01 Jan 2025 00:00:30 GMT", 30 * time.Second, true},
		{"Wed, 01 Jan 2025 01:00:00 GMT", time.Hour, true},
		{"Tue, 31 Dec 2024 23:00:00 GMT", 0, true},
		{"1.5", 0, false},
		{"", 0, false},
		{"soon", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
