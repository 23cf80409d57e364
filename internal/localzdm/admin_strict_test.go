package localzdm_test

import (
	"net/http"
	"testing"
)

// TestAdminKeysExact: encoding/json matches keys case-insensitively and lets
// the last of duplicated keys win; the admin API refuses both with a 400
// naming the key, and a body with the exact keys (the control) is applied.
func TestAdminKeysExact(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct{ method, path, body, want string }{
		{http.MethodPut, "/faults", `{"Error_Rate": 0.5}`, `"Error_Rate"`},
		{http.MethodPut, "/faults", `{"error_rate": 0.1, "error_rate": 0.5}`, `"error_rate" is given twice`},
		{http.MethodPost, "/accounts", `{"Name": "a"}`, `"Name"`},
		{http.MethodPost, "/accounts", `{"name": "a", "name": "b"}`, `"name" is given twice`},
	} {
		e.fails(e.admin(tc.method, tc.path, tc.body), http.StatusBadRequest, tc.want)
	}
	var f struct {
		ErrorRate float64 `json:"error_rate"`
	}
	e.ok(e.admin(http.MethodGet, "/faults", nil), &f)
	if f.ErrorRate != 0 {
		t.Fatalf("a refused body changed the faults: error_rate %v", f.ErrorRate)
	}
	e.ok(e.admin(http.MethodPut, "/faults", `{"error_rate": 0.5}`), &f)
	if f.ErrorRate != 0.5 {
		t.Fatalf("control: error_rate %v, want 0.5", f.ErrorRate)
	}
	e.ok(e.admin(http.MethodPost, "/accounts", `{"name": "a"}`), nil)
}

// TestAdminUnknownQuery: a query parameter an admin route does not read is a
// 400 naming it; the one it reads (the control) is accepted.
func TestAdminUnknownQuery(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fails(e.admin(http.MethodGet, "/faults?error_rate=0.5", nil), http.StatusBadRequest, `unknown query parameter "error_rate"`)
	e.fails(e.admin(http.MethodPost, "/webhooks/flush?timout=1s", nil), http.StatusBadRequest, `unknown query parameter "timout"`)
	e.ok(e.admin(http.MethodPost, "/webhooks/flush?timeout=1s", nil), nil)
	e.ok(e.admin(http.MethodGet, "/faults", nil), nil)
}
