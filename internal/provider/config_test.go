package provider

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

func TestCheckServiceURL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		url      string
		insecure bool
		wantErr  string // substring; "" means valid
	}{
		{url: "https://api.example.com"},
		{url: "https://api.example.com/"},
		{url: "https://api.example.com/v3"},
		{url: "https://api.example.com/v3/"},
		{url: "https://api.example.com:8443/v3"},
		{url: "http://127.0.0.1:8080"},
		{url: "http://localhost:8080/v3"},
		{url: "http://[::1]:8080"},
		{url: "http://127.0.0.2"},
		{url: "http://api.example.com", insecure: true},
		{url: "http://api.example.com", wantErr: "insecure_http"},
		{url: "http://10.0.0.1", wantErr: "not a loopback"},
		{url: "", wantErr: "must not be empty"},
		{url: "   ", wantErr: "must not be empty"},
		{url: "api.example.com", wantErr: "must start with https://"},
		{url: "ftp://api.example.com", wantErr: "must start with https://"},
		{url: "https://", wantErr: "has no host"},
		{url: "https:///v3", wantErr: "has no host"},
		{url: "https://api.example.com/v2", wantErr: `the path "/v2"`},
		{url: "https://api.example.com/v3/workspaces", wantErr: "the path"},
		{url: "https://api.example.com?x=1", wantErr: "query"},
		{url: "https://api.example.com#top", wantErr: "fragment"},
		{url: "https://user:secret@api.example.com", wantErr: "credentials"}, //nolint:gosec // G101: a URL the check must reject.
		{url: "https://api example.com", wantErr: "not a valid URL"},
	}
	for _, c := range cases {
		err := connection.CheckServiceURL(c.url, c.insecure)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("checkServiceURL(%q, %v) = %v, want nil", c.url, c.insecure, err)
		case c.wantErr != "" && err == nil:
			t.Errorf("checkServiceURL(%q, %v) = nil, want an error with %q", c.url, c.insecure, c.wantErr)
		case c.wantErr != "" && !strings.Contains(err.Error(), c.wantErr):
			t.Errorf("checkServiceURL(%q, %v) = %v, want an error with %q", c.url, c.insecure, err, c.wantErr)
		}
	}
}

func TestCheckServiceURLHidesCredentials(t *testing.T) {
	t.Parallel()
	err := connection.CheckServiceURL("https://user:s3cr3t@api.example.com", false)
	if err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("error %v shows the password", err)
	}
}

func TestParseDuration(t *testing.T) {
	t.Parallel()
	if d, err := connection.ParseDuration("90s"); err != nil || d != 90*time.Second {
		t.Errorf(`parseRequestTimeout("90s") = %v, %v`, d, err)
	}
	for _, bad := range []string{"", "60", "abc", "0s", "-5s"} {
		if _, err := connection.ParseDuration(bad); err == nil {
			t.Errorf("parseRequestTimeout(%q) accepted", bad)
		}
	}
}

func TestParseMaxRetries(t *testing.T) {
	t.Parallel()
	if n, err := connection.ParseMaxRetries(" 7 "); err != nil || n != 7 {
		t.Errorf(`parseMaxRetries(" 7 ") = %d, %v`, n, err)
	}
	for _, bad := range []string{"", "x", "-1", "21", "2.5"} {
		if _, err := connection.ParseMaxRetries(bad); err == nil {
			t.Errorf("parseMaxRetries(%q) accepted", bad)
		}
	}
}

func TestUserAgent(t *testing.T) {
	t.Parallel()
	got := userAgent("1.2.3", "1.15.0", "")
	want := "terraform-provider-zdm/1.2.3 (+https://www.terraform.io) Terraform/1.15.0"
	if got != want {
		t.Errorf("userAgent = %q, want %q", got, want)
	}
	want = "terraform-provider-zdm/dev (+https://www.terraform.io) Terraform/1.15.0 ci/42"
	if got := userAgent("dev", "1.15.0", "  ci/42 "); got != want {
		t.Errorf("userAgent with TF_APPEND_USER_AGENT = %q", got)
	}
}

// env returns a lookup function over m.
func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// nullConfig is a provider configuration with every attribute null.
func nullConfig() providerModel {
	return providerModel{
		BaseURL: types.StringNull(), StorageURL: types.StringNull(), APIKey: types.StringNull(),
		WorkspaceID: types.StringNull(), RequestTimeout: types.StringNull(), MaxRetries: types.Int64Null(),
		InsecureHTTP: types.BoolNull(), MaxRequests: types.Float64Null(),
	}
}

func TestResolveSettingsMissing(t *testing.T) {
	t.Parallel()
	_, diags := resolveSettings(nullConfig(), env(nil))
	if diags.ErrorsCount() != 2 {
		t.Fatalf("got %d errors, want 2 (base_url, api_key): %v", diags.ErrorsCount(), diags)
	}
	text := ""
	for _, d := range diags {
		text += d.Summary() + ": " + d.Detail() + "\n"
	}
	for _, want := range []string{"Missing base_url", connection.EnvBaseURL, "Missing api_key", connection.EnvAPIKey} {
		if !strings.Contains(text, want) {
			t.Errorf("errors do not mention %q:\n%s", want, text)
		}
	}
}

func TestResolveSettingsEnvFallback(t *testing.T) {
	t.Parallel()
	s, diags := resolveSettings(nullConfig(), env(map[string]string{
		connection.EnvBaseURL:        "http://api.internal:8080",
		connection.EnvStorageURL:     "http://storage.internal:8081/v3",
		connection.EnvAPIKey:         "k-env",
		connection.EnvWorkspaceID:    "wks-env",
		connection.EnvRequestTimeout: "2m",
		connection.EnvMaxRetries:     "0",
		connection.EnvInsecureHTTP:   "true",
		connection.EnvMaxRequests:    " 2.5 ",
	}))
	if diags.HasError() {
		t.Fatalf("unexpected errors: %v", diags)
	}
	if s.baseURL != "http://api.internal:8080" || s.storageURL != "http://storage.internal:8081/v3" ||
		s.apiKey != "k-env" || s.workspaceID != "wks-env" || s.requestTimeout != 2*time.Minute ||
		!s.insecureHTTP || s.clientRetries() != -1 || s.maxRequests != 2.5 {
		t.Errorf("settings from the environment = %+v", s)
	}
}

func TestResolveSettingsConfigWins(t *testing.T) {
	t.Parallel()
	cfg := nullConfig()
	cfg.BaseURL = types.StringValue("https://api.example.com")
	cfg.APIKey = types.StringValue("k-cfg")
	cfg.WorkspaceID = types.StringValue("wks-cfg")
	cfg.MaxRetries = types.Int64Value(3)
	cfg.InsecureHTTP = types.BoolValue(false)
	cfg.MaxRequests = types.Float64Value(4)
	s, diags := resolveSettings(cfg, env(map[string]string{
		connection.EnvBaseURL: "http://ignored.example.com", connection.EnvAPIKey: "k-env", connection.EnvWorkspaceID: "wks-env",
		connection.EnvMaxRetries: "not a number", connection.EnvInsecureHTTP: "not a bool", connection.EnvMaxRequests: "0",
	}))
	if diags.HasError() {
		t.Fatalf("unexpected errors: %v", diags)
	}
	if s.baseURL != "https://api.example.com" || s.apiKey != "k-cfg" || s.workspaceID != "wks-cfg" ||
		s.clientRetries() != 3 || s.insecureHTTP || s.storageURL != "" || s.maxRequests != 4 {
		t.Errorf("settings = %+v", s)
	}
}

func TestResolveSettingsInvalidEnv(t *testing.T) {
	t.Parallel()
	_, diags := resolveSettings(nullConfig(), env(map[string]string{
		connection.EnvBaseURL:        "http://api.example.com",
		connection.EnvAPIKey:         "secret-key-value",
		connection.EnvRequestTimeout: "soon",
		connection.EnvMaxRetries:     "99",
		connection.EnvInsecureHTTP:   "maybe",
		connection.EnvMaxRequests:    "0",
	}))
	text := ""
	for _, d := range diags {
		text += d.Summary() + ": " + d.Detail() + "\n"
	}
	for _, want := range []string{connection.EnvBaseURL, connection.EnvRequestTimeout, connection.EnvMaxRetries, connection.EnvInsecureHTTP, connection.EnvMaxRequests} {
		if !strings.Contains(text, want) {
			t.Errorf("errors do not mention %s:\n%s", want, text)
		}
	}
	if strings.Contains(text, "secret-key-value") {
		t.Errorf("errors show the API key:\n%s", text)
	}
	if diags.ErrorsCount() != 5 {
		t.Errorf("got %d errors, want 5:\n%s", diags.ErrorsCount(), text)
	}
}

func TestParseMaxRequestsPerSecond(t *testing.T) {
	for in, want := range map[string]float64{"2.5": 2.5, " 20 ": 20, "0.01": 0.01, "100000": 100000} {
		if got, err := connection.ParseMaxRequestsPerSecond(in); err != nil || got != want {
			t.Errorf("ParseMaxRequestsPerSecond(%q) = %g, %v; want %g", in, got, err, want)
		}
	}
	for in, want := range map[string]string{"": "not a number", "fast": "not a number", "0": "greater than 0", "-2": "greater than 0",
		"NaN": "greater than 0", "Inf": "at most 100000", "100001": "at most 100000"} {
		if _, err := connection.ParseMaxRequestsPerSecond(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMaxRequestsPerSecond(%q) = %v, want an error containing %q", in, err, want)
		}
	}
}
