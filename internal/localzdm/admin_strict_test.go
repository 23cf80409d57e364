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
