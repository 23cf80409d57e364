package client

import (
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	for _, tc := range []struct {
		raw, want string
	}{
		{"https://api.example.com/v3", "https://api.example.com/v3"},
		{"https://user:pa55word@api.example.com/v3", "https://[REDACTED]@api.example.com/v3"},
		{"https://api.example.com/v3?api_key=" + key, "https://api.example.com/v3?[REDACTED]"},
		{"https://api.example.com/v3#token=abc", "https://api.example.com/v3#[REDACTED]"},
		{"https://api.example.com/api_key=abc/v3", "https://api.example.com/[REDACTED]/v3"},
		{"https://api.example.com/" + key + "/v3", "https://api.example.com/[REDACTED]/v3"},
		{"https://api.example.com/k/" + key[:10], "https://api.example.com/k/[REDACTED]"},
		{"https://api.example.com/T0ken42/v3", "https://api.example.com/[REDACTED]/v3"},
		{"https://api.example.com/v3/workspaces", "https://api.example.com/v3/workspaces"},
		{"https://api.example.com:s3cr3t/v3", "https://api.example.com:[REDACTED]/v3"},
		{"https://api.example.com:8443/v3", "https://api.example.com:8443/v3"},
		{"http://[::1]:8080/v3/", "http://[::1]:8080/v3/"},
		{"ftp://u:p@host/%zz?x=1", "ftp://[REDACTED]@host/[REDACTED]?[REDACTED]"},
		{"api.example.com/a=b", "api.example.com/[REDACTED]"},
	} {
		got := RedactURL(tc.raw, key[:10])
		if got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.raw, got, tc.want)
		}
		if strings.Contains(got, key[:10]) || strings.Contains(got, "pa55word") {
			t.Errorf("RedactURL(%q) = %q still holds a secret", tc.raw, got)
		}
	}
}
