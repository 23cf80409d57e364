package localzdm_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// env is a running server with a bootstrapped workspace.
type env struct {
	t  *testing.T
	s  *localzdm.Server
	b  localzdm.Bootstrap
	hc *http.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	s := localzdm.StartTest(t)
	return attachEnv(t, s)
}

func attachEnv(t *testing.T, s *localzdm.Server) *env {
	t.Helper()
	b, err := s.Bootstrap("test")
	if err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	t.Cleanup(tr.CloseIdleConnections)
	return &env{t: t, s: s, b: b, hc: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// resp is an answer read in full.
type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) String() string {
	return http.StatusText(r.status) + ": " + string(r.body)
}

// do sends a request; body is marshaled unless it is a string or []byte.
func (e *env) do(method, url, key string, body any) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			e.t.Fatalf("marshal: %v", err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		e.t.Fatalf("new request: %v", err)
	}
	if key != "" {
		req.Header.Set("X-API-KEY", key)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := e.hc.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatalf("read body: %v", err)
	}
	return resp{status: res.StatusCode, header: res.Header, body: data}
}

// api calls the management service with the bootstrap key; path is under /v3.
func (e *env) api(method, path string, body any) resp {
	e.t.Helper()
	return e.do(method, e.s.BaseURL()+"/v3"+path, e.b.APIKey, body)
}

// storage calls the storage service with the bootstrap key; path is under /v3.
func (e *env) storage(path string) resp {
	e.t.Helper()
	return e.do(http.MethodGet, e.s.StorageURL()+"/v3"+path, e.b.APIKey, nil)
}

// admin calls the admin API.
func (e *env) admin(method, path string, body any) resp {
	e.t.Helper()
	return e.do(method, e.s.BaseURL()+"/admin"+path, "", body)
}

// ok asserts a 200 answer and decodes it into v (when not nil).
func (e *env) ok(r resp, v any) {
	e.t.Helper()
	if r.status != http.StatusOK {
		e.t.Fatalf("want 200, got %s", r)
	}
	if v != nil {
		if err := json.Unmarshal(r.body, v); err != nil {
			e.t.Fatalf("decode %s: %v", r.body, err)
		}
	}
}

type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// fails asserts an error answer with status and a message containing want.
func (e *env) fails(r resp, status int, want string) apiError {
	e.t.Helper()
	if r.status != status {
		e.t.Fatalf("want %d, got %s", status, r)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		e.t.Fatalf("error Content-Type = %q, want application/json", ct)
	}
	var ae apiError
	if err := json.Unmarshal(r.body, &ae); err != nil || ae.Error.Code == "" || ae.Error.Message == "" {
		e.t.Fatalf("error body %s is not {\"error\":{\"code\",\"message\"}}: %v", r.body, err)
	}
	if !strings.Contains(ae.Error.Message, want) {
		e.t.Fatalf("error message %q does not contain %q", ae.Error.Message, want)
	}
	return ae
}

type workspace struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	AccountID   string `json:"account_id"`
	Description string `json:"description"`
	CreatedAt   string `json:"created_at"`
}

type fleet struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	AccountID   string `json:"account_id"`
	WorkspaceID string `json:"workspace_id"`
	CreatedAt   string `json:"created_at"`
}

type device struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	AccountID     string          `json:"account_id"`
	FleetID       string          `json:"fleet_id"`
	FleetName     string          `json:"fleet_name"`
	WorkspaceID   string          `json:"workspace_id"`
	WorkspaceName string          `json:"workspace_name"`
	CreatedAt     string          `json:"created_at"`
	PhysID        string          `json:"phys_id"`
	Identities    json.RawMessage `json:"identities"`
}

type job struct {
	Name        string          `json:"name"`
	Status      string          `json:"status"`
	ScheduledAt string          `json:"scheduled_at"`
	Value       json.RawMessage `json:"value"`
	Devices     []string        `json:"devices"`
}

type fotaStatus struct {
	ScheduledAt string `json:"scheduled_at"`
	Status      string `json:"status"`
	Value       struct {
		FirmwareID      string `json:"firmware_id"`
		FirmwareVersion string `json:"firmware_version"`
	} `json:"value"`
	Devices []string `json:"devices"`
}

type dataPoint struct {
	TimestampDevice string          `json:"timestamp_device"`
	TimestampIn     string          `json:"timestamp_in"`
	FleetID         string          `json:"fleet_id"`
	DeviceID        string          `json:"device_id"`
	Tag             string          `json:"tag"`
	Payload         json.RawMessage `json:"payload"`
}

func (e *env) createFleet(name string) fleet {
	e.t.Helper()
	var out struct{ Fleet fleet }
	e.ok(e.api(http.MethodPost, "/workspaces/"+e.b.WorkspaceID+"/fleets", map[string]string{"name": name, "description": "d"}), &out)
	return out.Fleet
}

func (e *env) createDevice(name, fleetID string) device {
	e.t.Helper()
	body := map[string]string{"name": name}
	if fleetID != "" {
		body["fleet_id"] = fleetID
	}
	var out struct{ Device device }
	e.ok(e.api(http.MethodPost, "/workspaces/"+e.b.WorkspaceID+"/devices", body), &out)
	return out.Device
}

func (e *env) defaultFleet() fleet {
	e.t.Helper()
	var out struct{ Fleets []fleet }
	e.ok(e.api(http.MethodGet, "/workspaces/"+e.b.WorkspaceID+"/fleets", nil), &out)
	for _, f := range out.Fleets {
		if f.Name == localzdm.DefaultFleetName {
			return f
		}
	}
	e.t.Fatalf("no default fleet in %+v", out.Fleets)
	return fleet{}
}
