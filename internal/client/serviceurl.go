package client

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// The rules of service addresses. New checks the form every address must
// have (parseServiceURL); CheckServiceURL adds what a configuration must
// also respect, and is what the provider checks its settings with.

// ErrPlainHTTP marks the error of CheckServiceURL for a plain http address
// whose host is not a loopback address; test for it with errors.Is.
var ErrPlainHTTP = errors.New("uses plain http with a host that is not a loopback address")

// parseServiceURL parses raw, which must be an absolute http or https URL
// with a host, and no credentials, query or fragment. Errors show raw as
// shown, so that no secret it may hold is repeated.
func parseServiceURL(raw, shown string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%q is not a valid URL", shown)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("%q must start with https:// (or http://)", shown)
	}
	if u.Host == "" || u.Hostname() == "" || u.Opaque != "" {
		return nil, fmt.Errorf("%q has no host", shown)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%q must not carry credentials; set api_key instead", shown)
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, fmt.Errorf("%q must not have a query or fragment", shown)
	}
	return u, nil
}

// CheckServiceURL reports whether raw is acceptable as the address of a
// service in a configuration: the form New requires, a path that is empty,
// "/" or "/v3" (New adds the version segment when it is missing), and plain
// http only for loopback hosts unless allowHTTP is true (that error wraps
// ErrPlainHTTP). Errors start with the address (secrets hidden as by
// RedactURL) or with "must", to follow the name of the setting.
func CheckServiceURL(raw string, allowHTTP bool) error {
	if strings.TrimSpace(raw) == "" {
		return errors.New("must not be empty")
	}
	shown := RedactURL(raw)
	u, err := parseServiceURL(raw, shown)
	if err != nil {
		return err
	}
	switch u.Path {
	case "", "/", "/v3", "/v3/":
	default:
		return fmt.Errorf("%q has the path %q; the path must be empty, \"/\" or \"/v3\"", shown, RedactURL(u.Path))
	}
	if u.Scheme == "http" && !allowHTTP && !isLoopbackHost(u.Hostname()) {
		return fmt.Errorf("%q %w", shown, ErrPlainHTTP)
	}
	return nil
}

// isLoopbackHost reports whether host (without port) names the local machine.
func isLoopbackHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
