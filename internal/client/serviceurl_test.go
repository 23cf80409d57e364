package client

import (
	"errors"
	"testing"
)

func TestCheckServiceURL(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"https://api.example.com", "https://api.example.com/v3/", "http://127.0.0.1:8080",
		"http://sub.localhost/v3"} {
		if err := CheckServiceURL(raw, false); err != nil {
			t.Errorf("CheckServiceURL(%q, false) = %v, want nil", raw, err)
		}
	}
	if err := CheckServiceURL("http://api.example.com", true); err != nil {
		t.Errorf("CheckServiceURL of plain http with allowHTTP = %v, want nil", err)
	}
	// The whole error of each rejected address, secrets hidden.
	for raw, want := range map[string]string{ //nolint:gosec // G101: a URL the check must reject.
		"  ":                             "must not be empty",
		"ftp://h":                        `"ftp://h" must start with https:// (or http://)`,
		"https://:443":                   `"https://:443" has no host`,
		"https://u:p@h":                  `"https://[REDACTED]@h" must not carry credentials; set api_key instead`,
		"https://h/?k=secret":            `"https://h/?[REDACTED]" must not have a query or fragment`,
		"https://h/v2":                   `"https://h/v2" has the path "/v2"; the path must be empty, "/" or "/v3"`,
		"https://h/0123456789abcdef0123": `"https://h/[REDACTED]" has the path "/[REDACTED]"; the path must be empty, "/" or "/v3"`,
		"http://10.0.0.1":                `"http://10.0.0.1" uses plain http with a host that is not a loopback address`,
	} {
		if err := CheckServiceURL(raw, false); err == nil || err.Error() != want {
			t.Errorf("CheckServiceURL(%q, false) = %v, want %q", raw, err, want)
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
