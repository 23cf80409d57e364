package connection

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// TestParseDuration holds the messages of the duration options: a value
// too long for Go's durations says so and gives the longest, where it said
// "not a duration" of a valid spelling.
func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{in: "30s", want: 30 * time.Second},
		{in: " 2m ", want: 2 * time.Minute},
		{in: "2562047h", want: 2562047 * time.Hour},
		{in: "87600000h", err: `"87600000h" is too long: the longest duration is "2562047h"`},
		{in: "1.5e9h", err: `is not a duration such as`},
		{in: "9999999999999999999ns", err: `is too long`},
		{in: "10d", err: `"10d" is not a duration such as "30s"`},
		{in: "soon", err: `is not a duration`},
		{in: "0s", err: `must be greater than zero`},
		{in: "-5s", err: `must be greater than zero`},
	} {
		got, err := ParseDuration(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseDuration(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.err)
		}
	}
}

// TestWorkspaceNotFound tells the 404 of a missing workspace (its own path
// or one of its collections) from the 404 of an object in it, and of a
// path the server does not serve.
func TestWorkspaceNotFound(t *testing.T) {
	var noRoute atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		msg := "not found"
		if noRoute.Load() {
			msg = "no route for GET " + r.URL.Path
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": "not_found", "message": msg}})
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{BaseURL: srv.URL, APIKey: "k", MaxRetries: 0})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, tc := range []struct {
		name    string
		call    func() error
		noRoute bool
		want    bool
	}{
		{"workspace", func() error { _, err := c.GetWorkspace(ctx, "wks-1"); return err }, false, true},
		{"devices", func() error { _, err := c.ListDevices(ctx, "wks-1"); return err }, false, true},
		{"fleets", func() error { _, err := c.ListFleets(ctx, "wks-1"); return err }, false, true},
		{"a device", func() error { _, err := c.GetDevice(ctx, "wks-1", "dev-1"); return err }, false, false},
		{"another workspace", func() error { _, err := c.ListDevices(ctx, "wks-2"); return err }, false, false},
		{"no route", func() error { _, err := c.ListDevices(ctx, "wks-1"); return err }, true, false},
	} {
		noRoute.Store(tc.noRoute)
		err := tc.call()
		if got := WorkspaceNotFound(err, "wks-1"); got != tc.want {
			t.Errorf("%s: WorkspaceNotFound = %v, want %v (%v)", tc.name, got, tc.want, err)
		}
		text := DescribeError(err, "wks-1")
		if tc.want != strings.Contains(text, "ZDM_WORKSPACE_ID") {
			t.Errorf("%s: DescribeError = %s; want the workspace_id hint: %v", tc.name, text, tc.want)
		}
		if tc.noRoute != strings.Contains(text, "storage_url") {
			t.Errorf("%s: DescribeError = %s; want the base_url/storage_url hint: %v", tc.name, text, tc.noRoute)
		}
	}
}
