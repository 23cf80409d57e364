package provider

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Environment variables read when the matching provider attribute is null.
const (
	envBaseURL        = "ZDM_BASE_URL"
	envStorageURL     = "ZDM_STORAGE_URL"
	envAPIKey         = "ZDM_API_KEY" //nolint:gosec // G101: the name of a variable, not a credential.
	envWorkspaceID    = "ZDM_WORKSPACE_ID"
	envRequestTimeout = "ZDM_REQUEST_TIMEOUT"
	envMaxRetries     = "ZDM_MAX_RETRIES"
	envInsecureHTTP   = "ZDM_INSECURE_HTTP"
)

// Bounds of max_retries.
const (
	minRetries = 0
	maxRetries = 20
)

// checkServiceURL reports whether raw is an acceptable service address: an
// absolute http or https URL with a host, no credentials, query or fragment,
// and a path that is empty, "/" or "/v3" (the version segment is added by the
// client when missing). Plain http is accepted for loopback hosts, and for any
// host when insecure is true.
func checkServiceURL(raw string, insecure bool) error {
	if strings.TrimSpace(raw) == "" {
		return fmt.Errorf("must not be empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a valid URL: %w", raw, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return fmt.Errorf("%q must start with https:// (or http://)", raw)
	}
	if u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("%q has no host", raw)
	}
	if u.User != nil {
		return fmt.Errorf("%q must not carry credentials; set api_key instead", redactUserinfo(u))
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return fmt.Errorf("%q must not have a query or a fragment", raw)
	}
	switch u.Path {
	case "", "/", "/v3", "/v3/":
	default:
		return fmt.Errorf("%q has the path %q; the path must be empty, \"/\" or \"/v3\"", raw, u.Path)
	}
	if u.Scheme == "http" && !insecure && !isLoopbackHost(u.Hostname()) {
		return fmt.Errorf("%q uses plain http with a host that is not a loopback address; "+
			"use https, or set insecure_http = true (%s=true) to allow it", raw, envInsecureHTTP)
	}
	return nil
}

// redactUserinfo returns u as a string with its user information hidden.
func redactUserinfo(u *url.URL) string {
	c := *u
	c.User = url.User("REDACTED")
	return c.String()
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

// parseRequestTimeout parses a request_timeout value such as "60s" or "2m".
func parseRequestTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as \"30s\" or \"2m\"", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q must be greater than zero", s)
	}
	return d, nil
}

// parseMaxRetries parses a ZDM_MAX_RETRIES value.
func parseMaxRetries(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number", s)
	}
	if n < minRetries || n > maxRetries {
		return 0, fmt.Errorf("%d is outside %d..%d", n, minRetries, maxRetries)
	}
	return n, nil
}

// parseBool parses a ZDM_INSECURE_HTTP value.
func parseBool(s string) (bool, error) {
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		return false, fmt.Errorf("%q is not a boolean (true or false)", s)
	}
	return b, nil
}

// userAgent builds the User-Agent header sent to the services.
func userAgent(providerVersion, terraformVersion, appended string) string {
	if terraformVersion == "" {
		terraformVersion = "unknown"
	}
	ua := fmt.Sprintf("terraform-provider-zdm/%s (+https://www.terraform.io) Terraform/%s", providerVersion, terraformVersion)
	if a := strings.TrimSpace(appended); a != "" {
		ua += " " + a
	}
	return ua
}
