package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// syncBuffer is a goroutine-safe output buffer.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func readEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Clean(path))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		if !ok {
			t.Fatalf("bad line %q", sc.Text())
		}
		env[k] = v
	}
	return env
}

// start runs the command until stop is called or the test ends, and
// returns the variables of its env file.
func start(t *testing.T, args ...string) (env map[string]string, out *syncBuffer, stop func()) {
	t.Helper()
	envFile := filepath.Join(t.TempDir(), "zdm.env")
	ctx, cancel := context.WithCancel(context.Background())
	out = &syncBuffer{}
	var errOut syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"-env-file", envFile}, args...), out, &errOut) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("run: %v\n%s", err, errOut.String())
				}
			case <-time.After(10 * time.Second):
				t.Error("run did not stop")
			}
		})
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		// The env file is written before the lines are printed.
		if strings.Contains(out.String(), "export ZDM_ACCOUNT_ID=") {
			return readEnv(t, envFile), out, stop
		}
		select {
		case err := <-done:
			t.Fatalf("run ended early: %v\n%s", err, errOut.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("bootstrap lines not printed")
	return nil, nil, nil
}

func get(t *testing.T, url, key string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-KEY", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(body)
}

func TestRun(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	env, out, stop := start(t, "-state-file", state, "-bootstrap-name", "demo")
	for _, k := range []string{"ZDM_BASE_URL", "ZDM_STORAGE_URL", "ZDM_ADMIN_URL", "ZDM_API_KEY", "ZDM_WORKSPACE_ID", "ZDM_ACCOUNT_ID"} {
		if env[k] == "" {
			t.Fatalf("%s missing from the env file: %v", k, env)
		}
		if !strings.Contains(out.String(), "export "+k+"="+env[k]+"\n") {
			t.Fatalf("stdout lacks %s:\n%s", k, out.String())
		}
	}
	if !strings.HasPrefix(env["ZDM_BASE_URL"], "http://127.0.0.1:") || !strings.HasPrefix(env["ZDM_STORAGE_URL"], "http://127.0.0.1:") {
		t.Fatalf("not on loopback: %v", env)
	}
	code, body := get(t, env["ZDM_BASE_URL"]+"/v3/workspaces", env["ZDM_API_KEY"])
	if code != http.StatusOK || !strings.Contains(body, env["ZDM_WORKSPACE_ID"]) || !strings.Contains(body, `"name":"demo"`) {
		t.Fatalf("workspaces: %d %s", code, body)
	}
	// Storage is enabled for the bootstrap workspace.
	if code, body := get(t, env["ZDM_STORAGE_URL"]+"/v3/timeseries/"+env["ZDM_WORKSPACE_ID"]+"/data", env["ZDM_API_KEY"]); code != http.StatusOK {
		t.Fatalf("storage: %d %s", code, body)
	}
	if code, _ := get(t, env["ZDM_ADMIN_URL"]+"/health", ""); code != http.StatusOK {
		t.Fatalf("admin health: %d", code)
	}

	// A restart on the same state file prints the same bootstrap.
	stop()
	again, _, _ := start(t, "-state-file", state, "-bootstrap-name", "demo")
	for _, k := range []string{"ZDM_API_KEY", "ZDM_WORKSPACE_ID", "ZDM_ACCOUNT_ID"} {
		if again[k] != env[k] {
			t.Fatalf("%s after restart = %s, want %s", k, again[k], env[k])
		}
	}
	code, body = get(t, again["ZDM_BASE_URL"]+"/v3/workspaces", again["ZDM_API_KEY"])
	if code != http.StatusOK || strings.Count(body, `"id"`) != 1 {
		t.Fatalf("workspaces after restart: %d %s", code, body)
	}
}

func TestRunFixedBootstrap(t *testing.T) {
	env, _, _ := start(t, "-bootstrap-key", "dev-key", "-bootstrap-workspace-id", "wks-dev", "-bootstrap-account-id", "acc-dev", "-bootstrap-storage=false")
	if env["ZDM_API_KEY"] != "dev-key" || env["ZDM_WORKSPACE_ID"] != "wks-dev" || env["ZDM_ACCOUNT_ID"] != "acc-dev" {
		t.Fatalf("env = %v", env)
	}
	if code, body := get(t, env["ZDM_STORAGE_URL"]+"/v3/timeseries/wks-dev/data", "dev-key"); code != http.StatusForbidden {
		t.Fatalf("storage without -bootstrap-storage: %d %s", code, body)
	}
}

func TestParseFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-port", "-1"},
		{"-storage-port", "70000"},
		{"-port", "8080", "-storage-port", "8080"},
		{"extra"},
		{"-nope"},
		{"-devices-delay", "-1s"},
		{"-devices-delay", "2h"},
		{"-devices-failure-fraction", "1.5"},
		{"-devices-silent-fraction", "NaN"},
		{"-devices-failure-fraction", "0.6", "-devices-silent-fraction", "0.6"},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) accepted", args)
		}
	}
	// Invalid health flags: the error names the flag.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-devices-health-silent-fraction", "1.5"}, "-devices-health-silent-fraction must be between 0 and 1"},
		{[]string{"-devices-health-error-fraction", "-0.5"}, "-devices-health-error-fraction must be between 0 and 1"},
		{[]string{"-devices-health-silent-fraction", "0.5", "-devices-health-error-fraction", "0.6"}, "must add up to at most 1"},
		{[]string{"-devices-health-tag", ""}, "-devices-health-tag is required (not blank)"},
		{[]string{"-devices-health-error-tag", strings.Repeat("x", 256)}, "-devices-health-error-tag is longer than 255 characters"},
		{[]string{"-devices-health-payload", "[1]"}, "-devices-health-payload must be a JSON object"},
		{[]string{"-devices-health-error-payload", "{"}, "-devices-health-error-payload must be a JSON object"},
		{[]string{"-devices-health=maybe"}, "-devices-health"},
	} {
		if _, err := parseFlags(tc.args, io.Discard); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseFlags(%q) = %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
	c, err := parseFlags([]string{"-port", "8080", "-storage-port", "8081"}, io.Discard)
	if err != nil || c.port != 8080 || c.storagePort != 8081 || !c.storage {
		t.Fatalf("parseFlags = %+v, %v", c, err)
	}
	// Simulated devices answer by default, after two seconds.
	if !c.devices.Enabled || c.devices.Delay != 2*time.Second {
		t.Fatalf("default devices = %+v, want enabled with a 2s delay", c.devices)
	}
	// Devices publish health points by default.
	if d := c.devices; !d.PublishHealth || d.HealthTag != "boot_ok" || string(d.HealthPayload) != `{"ok":true}` ||
		d.HealthErrorTag != "boot_error" || string(d.HealthErrorPayload) != `{"ok":false}` {
		t.Fatalf("default health = %+v, want boot_ok {\"ok\":true} and boot_error {\"ok\":false}", d)
	}
	c, err = parseFlags([]string{"-devices-health=false", "-devices-health-payload", ` { "v" : 1 } `, "-devices-health-error-fraction", "0.5"}, io.Discard)
	if err != nil || c.devices.PublishHealth || string(c.devices.HealthPayload) != `{"v":1}` || c.devices.HealthErrorFraction != 0.5 {
		t.Fatalf("parseFlags(-devices-health=false ...) = %+v, %v", c.devices, err)
	}
	c, err = parseFlags([]string{"-devices-answer=false", "-devices-failure-fraction", "0.25"}, io.Discard)
	if err != nil || c.devices.Enabled || c.devices.FailureFraction != 0.25 {
		t.Fatalf("parseFlags(-devices-answer=false ...) = %+v, %v", c.devices, err)
	}
}

// TestListenFlag: -listen is loopback by default; another address needs
// -allow-remote, and the error says why.
func TestListenFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" accepts
	}{
		{nil, ""},
		{[]string{"-listen", "::1"}, ""},
		{[]string{"-listen", "localhost"}, ""},
		{[]string{"-listen", "127.0.0.2"}, ""},
		{[]string{"-listen", "0.0.0.0"}, "-listen 0.0.0.0 is not a loopback address: anyone who reaches it"},
		{[]string{"-listen", "10.1.2.3"}, "add -allow-remote"},
		{[]string{"-listen", "0.0.0.0", "-allow-remote"}, ""},
		{[]string{"-listen", "127.0.0.1:8080"}, "-listen 127.0.0.1:8080 is not a loopback address"},
		{[]string{"-listen", ""}, "-listen must be an IP address or a host name"},
		{[]string{"-listen", "[::1]"}, "-listen must be an IP address or a host name"},
	} {
		c, err := parseFlags(tc.args, io.Discard)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("parseFlags(%q) = %v, want it accepted", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("parseFlags(%q) = %v, want an error containing %q", tc.args, err, tc.want)
		case tc.args == nil && c.listen != "127.0.0.1":
			t.Errorf("default -listen = %q, want 127.0.0.1", c.listen)
		}
	}
}

// TestRunAllowRemote: a server on every address warns that anyone who
// reaches it can use it, serves there, and prints addresses a client can
// use.
func TestRunAllowRemote(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-listen", "0.0.0.0", "-allow-remote"}, &stdout, &stderr) }()
	for !strings.Contains(stdout.String(), "ZDM_BASE_URL") {
		select {
		case err := <-done:
			t.Fatalf("run: %v\n%s", err, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	// The services listen on every address, and the addresses printed are
	// ones a client can dial (the loopback address), not 0.0.0.0.
	if !strings.Contains(stdout.String(), "ZDM_BASE_URL=http://127.0.0.1:") || strings.Contains(stdout.String(), "0.0.0.0") {
		t.Errorf("stdout = %s, want the services' addresses a client can use (127.0.0.1), never 0.0.0.0", stdout.String())
	}
	if !strings.Contains(stderr.String(), "WARNING: listening on 0.0.0.0") {
		t.Errorf("stderr = %s, want a warning", stderr.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestVersionFlag: -version prints the version stamped by the build.
func TestVersionFlag(t *testing.T) {
	var stdout bytes.Buffer
	if err := run(t.Context(), []string{"-version"}, &stdout, io.Discard); err != nil || stdout.String() != "zdm-local dev\n" {
		t.Fatalf("-version: %q, %v", stdout.String(), err)
	}
}

// TestBuildVersion: a version stamped by the build wins; else the module
// version of `go install ...@v0.4.0` (without its "v"); else "dev".
func TestBuildVersion(t *testing.T) {
	installed := &debug.BuildInfo{Main: debug.Module{Path: "github.com/zdm/terraform-provider-zdm", Version: "v0.4.0"}}
	for _, tc := range []struct {
		stamped string
		bi      *debug.BuildInfo
		want    string
	}{
		{"0.5.0", installed, "0.5.0"},
		{"dev", installed, "0.4.0"},
		{"dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"dev", nil, "dev"},
	} {
		if got := buildVersion(tc.stamped, tc.bi); got != tc.want {
			t.Errorf("buildVersion(%q, %v) = %q, want %q", tc.stamped, tc.bi, got, tc.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:80": "http://127.0.0.1:80",
		"":                    "''",
		"a b":                 "'a b'",
		"it's":                `'it'\''s'`,
		"$HOME":               "'$HOME'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestRunDevicesAnswer: the devices of zdm-local answer a job by default
// (here without delay); with -devices-answer=false (the control) it stays
// pending.
func TestRunDevicesAnswer(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-devices-delay", "0s"}, "done"},
		{[]string{"-devices-answer=false"}, "pending"},
	} {
		env, _, stop := start(t, tc.args...)
		key := env["ZDM_API_KEY"]
		send := func(method, url, body string) string {
			t.Helper()
			req, err := http.NewRequest(method, url, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-API-KEY", key)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode/100 != 2 {
				t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, b)
			}
			return string(b)
		}
		dev := send(http.MethodPost, env["ZDM_BASE_URL"]+"/v3/workspaces/"+env["ZDM_WORKSPACE_ID"]+"/devices", `{"name":"d"}`)
		id := dev[strings.Index(dev, `"id":"`)+6:]
		id = id[:strings.Index(id, `"`)]
		send(http.MethodPost, env["ZDM_BASE_URL"]+"/v3/devices/"+id+"/jobs/reboot", `{}`)
		if got := send(http.MethodGet, env["ZDM_BASE_URL"]+"/v3/devices/"+id+"/jobs/reboot", ""); !strings.Contains(got, `"status":"`+tc.want+`"`) {
			t.Errorf("%v: job %s, want status %s", tc.args, got, tc.want)
		}
		stop()
	}
}

// TestRunDevicesHealth: by default a device that completes a job publishes
// a health point into the storage service; with -devices-health=false (the
// control) it publishes none.
func TestRunDevicesHealth(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-devices-delay", "0s"}, `"tag":"boot_ok","payload":{"job":"reboot","ok":true}`},
		{[]string{"-devices-delay", "0s", "-devices-health=false"}, ""},
	} {
		env, _, stop := start(t, tc.args...)
		key := env["ZDM_API_KEY"]
		send := func(method, url, body string) string {
			t.Helper()
			req, err := http.NewRequest(method, url, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-API-KEY", key)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode/100 != 2 {
				t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, b)
			}
			return string(b)
		}
		dev := send(http.MethodPost, env["ZDM_BASE_URL"]+"/v3/workspaces/"+env["ZDM_WORKSPACE_ID"]+"/devices", `{"name":"d"}`)
		id := dev[strings.Index(dev, `"id":"`)+6:]
		id = id[:strings.Index(id, `"`)]
		send(http.MethodPost, env["ZDM_BASE_URL"]+"/v3/devices/"+id+"/jobs/reboot", `{}`)
		got := strings.TrimSpace(send(http.MethodGet, env["ZDM_STORAGE_URL"]+"/v3/timeseries/"+env["ZDM_WORKSPACE_ID"]+"/data?device="+id, ""))
		if tc.want == "" && got != `{"result":[]}` || tc.want != "" && (strings.Count(got, `"tag"`) != 1 || !strings.Contains(got, tc.want)) {
			t.Errorf("%v: points %s, want %s", tc.args, got, map[bool]string{true: "none", false: "one with " + tc.want}[tc.want == ""])
		}
		stop()
	}
}

// TestHealthCheckListen: -health-check asks the address of -listen: a
// server on 127.0.0.2 is ready there, and not on 127.0.0.1 (the positive
// control: the default address would have missed it).
func TestHealthCheckListen(t *testing.T) {
	env, _, stop := start(t, "-listen", "127.0.0.2")
	defer stop()
	_, port, err := net.SplitHostPort(strings.TrimPrefix(env["ZDM_BASE_URL"], "http://"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(t.Context(), []string{"-health-check", "-listen", "127.0.0.2", "-port", port}, &out, io.Discard); err != nil {
		t.Fatalf("health check of a server on -listen 127.0.0.2: %v", err)
	}
	if err := run(t.Context(), []string{"-health-check", "-port", port}, io.Discard, io.Discard); err == nil {
		t.Error("health check on 127.0.0.1 succeeded for a server that listens on 127.0.0.2 only")
	}
}

func TestClientHost(t *testing.T) {
	for in, want := range map[string]string{
		"0.0.0.0":   "127.0.0.1",
		"::":        "127.0.0.1",
		"127.0.0.2": "127.0.0.2",
		"::1":       "::1",
		"localhost": "localhost",
	} {
		if got := localzdm.ClientHost(in); got != want {
			t.Errorf("ClientHost(%q) = %q, want %q", in, got, want)
		}
	}
	if got := localzdm.ClientAddr("[::]:8080"); got != "127.0.0.1:8080" {
		t.Errorf("ClientAddr([::]:8080) = %q", got)
	}
}

// TestHealthCheck: -health-check succeeds against a running server's port,
// and fails (the positive control) on a port where nothing listens and
// without a port.
func TestHealthCheck(t *testing.T) {
	env, _, stop := start(t)
	defer stop()
	_, port, err := net.SplitHostPort(strings.TrimPrefix(env["ZDM_BASE_URL"], "http://"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(t.Context(), []string{"-health-check", "-port", port}, &out, io.Discard); err != nil {
		t.Fatalf("health check of a running server: %v", err)
	}
	if !strings.Contains(out.String(), "is ready") {
		t.Errorf("output %q", out.String())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, free, _ := net.SplitHostPort(ln.Addr().String())
	_ = ln.Close()
	if err := run(t.Context(), []string{"-health-check", "-port", free}, io.Discard, io.Discard); err == nil {
		t.Error("health check of a port where nothing listens succeeded")
	}
	if err := run(t.Context(), []string{"-health-check"}, io.Discard, io.Discard); err == nil {
		t.Error("health check without -port succeeded")
	}
}
