package client

import (
	"errors"
	"testing"
)

func TestCheckServiceURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw       string
		allowHTTP bool
		want      string // the whole error; "" for none
	}{
		{raw: "https://api.example.com"},
		{raw: "https://api.example.com/v3/"},
		{raw: "http://127.0.0.1:8080"},
		{raw: "http://sub.localhost/v3"},
		{raw: "http://api.example.com", allowHTTP: true},
		{raw: "  ", want: "must not be empty"},
		{raw: "ftp://h", want: `"ftp://h" must start with https:// (or http://)`},
		{raw: "https://:443", want: `"https://:443" has no host`},
		{raw: "https://u:p@h", want: `"https://[REDACTED]@h" must not carry credentials; set api_key instead`},
		{raw: "https://h/?k=secret", want: `"https://h/?[REDACTED]" must not have a query or fragment`},
		{raw: "https://h/v2", want: `"https://h/v2" has the path "/v2"; the path must be empty, "/" or "/v3"`},
		{raw: "https://h/0123456789abcdef0123", want: `"https://h/[REDACTED]" has the path "/[REDACTED]"; the path must be empty, "/" or "/v3"`},
		{raw: "http://10.0.0.1", want: `"http://10.0.0.1" uses plain http with a host that is not a loopback address`},
	}
	for _, tt := range tests {
		err := CheckServiceURL(tt.raw, tt.allowHTTP)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckServiceURL(%q, %v) = %q, want %q", tt.raw, tt.allowHTTP, got, tt.want)
		}
	}
	if err := CheckServiceURL("http://10.0.0.1", false); !errors.Is(err, ErrPlainHTTP) {
		t.Errorf("error %v does not wrap ErrPlainHTTP", err)
	}
	if err := CheckServiceURL("ftp://h", false); errors.Is(err, ErrPlainHTTP) {
		t.Errorf("error %v wraps ErrPlainHTTP", err)
	}
}

// TestServiceURLFormShared checks that New and CheckServiceURL reject an
// address for the same reason, with the same words.
func TestServiceURLFormShared(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"api.example.com", "https:///v3", "https://u:p@h", "https://h#f", "https://h/%zz"} {
		checked := CheckServiceURL(raw, false)
		_, created := New(Config{BaseURL: raw, APIKey: "k"})
		if checked == nil || created == nil {
			t.Fatalf("%q: CheckServiceURL = %v, New = %v; want two errors", raw, checked, created)
		}
		if want := "client: the base URL " + checked.Error(); created.Error() != want {
			t.Errorf("%q: New error = %q, want %q", raw, created, want)
		}
	}
}
