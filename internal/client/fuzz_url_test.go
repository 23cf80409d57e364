package client

import (
	"net/http"
	"net/url"
	"strconv"
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
		b, err := parseBaseURL("base URL", raw)
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

// FuzzParseRetryAfter checks that any Retry-After value gives a wait that
// is not negative, that delta-seconds are read exactly (up to a year), and
// that an HTTP date gives the time until it. (The request loop caps every
// wait at RetryWaitMax.)
func FuzzParseRetryAfter(f *testing.F) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, s := range []string{"0", "1", " 120 ", "-1", "99999999999999999999", "Wed, 01 Jan 2025 00:00:30 GMT",
		"Tue, 31 Dec 2024 23:00:00 GMT", "1.5", "", "soon"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := parseRetryAfter(v, now)
		if !ok {
			if d != 0 {
				t.Fatalf("parseRetryAfter(%q) = %s without a value", v, d)
			}
			return
		}
		if d < 0 {
			t.Fatalf("parseRetryAfter(%q) = %s", v, d)
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			if want := time.Duration(min(n, 365*24*3600)) * time.Second; d != want {
				t.Fatalf("parseRetryAfter(%q) = %s, want %s", v, d, want)
			}
		} else if at, err := http.ParseTime(strings.TrimSpace(v)); err == nil {
			if want := max(at.Sub(now), 0); d != want {
				t.Fatalf("parseRetryAfter(%q) = %s, want %s", v, d, want)
			}
		}
	})
}
