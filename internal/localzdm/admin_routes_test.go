package localzdm_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestAdminRouteTable checks that the one admin route table is served and
// documents every route: its Go method and, for routes that read a body,
// the body's shape.
func TestAdminRouteTable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var out struct {
		Routes []struct {
			Method string `json:"method"`
			Path   string `json:"path"`
			Body   string `json:"body"`
			Go     string `json:"go"`
		} `json:"routes"`
	}
	e.ok(e.admin(http.MethodGet, "/routes", nil), &out)
	seen := map[string]bool{}
	for _, r := range out.Routes {
		key := r.Method + " " + r.Path
		if seen[key] {
			t.Errorf("route %s listed twice", key)
		}
		seen[key] = true
		if !strings.HasPrefix(r.Path, "/admin/") || r.Go == "" {
			t.Errorf("route %s is not documented: %+v", key, r)
		}
		if (r.Method == http.MethodPut) && r.Body == "" {
			t.Errorf("PUT route %s does not name its body", key)
		}
	}
	for _, want := range []string{"GET /admin/routes", "PUT /admin/faults", "POST /admin/reset", "DELETE /admin/devices/{device_id}"} {
		if !seen[want] {
			t.Errorf("route table lacks %s: %v", want, seen)
		}
	}
}
