// Package admin serves the admin API of the local ZDM server (under
// /admin/, to loopback clients only): its route table, the decoding and
// validation of its input, and the answers. It acts through Server, the Go
// admin methods of the server; C, B, P and K are the server's choices,
// device behavior, data point and bootstrap types, which it decodes and
// answers as they are.
package admin

import (
	"context"
	"encoding/json"
	"log"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/apierr"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/faults"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/httpio"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/webhook"
)

// Server is what the admin API acts on: one method per route.
type Server[C, B, P, K any] interface {
	BaseURL() string
	StorageURL() string

	CreateAccount(name string) (string, error)
	CreateWorkspace(accountID, name string) (K, error)
	Bootstrap(name string) (K, error)
	DeleteWorkspace(workspaceID string) error
	CreateKey(workspaceID string) (string, error)
	RevokeKey(apiKey string) error
	SetStorage(workspaceID string, enabled bool) error
	SetWebhook(workspaceID, target string) error
	CreateDevices(workspaceID, fleetID string, names []string) ([]string, error)
	Publish(workspaceID string, points []P) (int, error)
	DeleteFleet(fleetID string) error
	RenameFleet(fleetID, name string) error
	DeleteDevice(deviceID string) error
	MoveDevice(deviceID, fleetID string) error
	PurgeJob(deviceID, jobName string) error
	PurgeFOTA(deviceID string) error
	SetJobStatus(deviceID, jobName, status string) error
	SetFOTAStatus(deviceID, status string) error
	ConnectDevice(deviceID, deviceIP string) error
	SetDeviceIdentities(deviceID, physID string, identities json.RawMessage) error

	Counters() map[string]int64
	TotalRequests() int64
	ResetCounters()

	CurrentFaults() faults.Faults
	SetFaults(f faults.Faults)
	RequestFaults() []faults.RequestFault
	AddRequestFault(f faults.RequestFault) (int, error)
	RemoveRequestFault(id int) error
	ClearRequestFaults()

	CurrentChoices() C
	SetChoices(c C) error
	CurrentDeviceBehavior() B
	SetDeviceBehavior(b B) error
	PendingAnswers() int

	WebhookStats() webhook.Stats
	FlushWebhooks(ctx context.Context) error

	Reset()
}

// API is the admin API of one server.
type API[C, B, P, K any] struct {
	srv         Server[C, B, P, K]
	log         *log.Logger
	logRequests bool
	routes      *httpio.Router[handlerFunc[C, B, P, K]]
}

// New returns the admin API of srv; with logRequests, it logs one line per
// request to l.
func New[C, B, P, K any](srv Server[C, B, P, K], l *log.Logger, logRequests bool) *API[C, B, P, K] {
	return &API[C, B, P, K]{srv: srv, log: l, logRequests: logRequests, routes: newRouter[C, B, P, K]()}
}

// call is one admin request routed to a handler.
type call[C, B, P, K any] struct {
	s      Server[C, B, P, K]
	routes *httpio.Router[handlerFunc[C, B, P, K]]
	w      http.ResponseWriter
	r      *http.Request
	params map[string]string
}

// route is an admin route.
type route[C, B, P, K any] = httpio.Route[handlerFunc[C, B, P, K]]

// handlerFunc serves a routed admin request. It returns the value to answer
// with status 200, or an error.
type handlerFunc[C, B, P, K any] func(c *call[C, B, P, K]) (any, error)

// isLoopback reports whether a request's remote address is a loopback IP.
func isLoopback(remoteAddr string) bool {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	if i := strings.IndexByte(host, '%'); i >= 0 {
		host = host[:i]
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ServeHTTP serves the admin API under /admin/ to loopback clients.
func (a *API[C, B, P, K]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rw := &httpio.StatusWriter{ResponseWriter: w}
	if a.logRequests {
		start := time.Now()
		defer func() {
			a.log.Printf("localzdm: admin %s %s -> %d (%s)", r.Method, r.URL.RequestURI(), rw.Status, time.Since(start).Round(time.Microsecond))
		}()
	}
	if !isLoopback(r.RemoteAddr) {
		apierr.Write(rw, apierr.New(http.StatusForbidden, apierr.CodeForbidden, "the admin API answers loopback clients only"))
		return
	}
	segs, ok := httpio.SplitPath(r.URL.EscapedPath())
	if !ok {
		httpio.WriteRouteNotFound(rw, r)
		return
	}
	rte, params, allowed := a.routes.Match(r.Method, segs)
	if params == nil {
		if rte != nil {
			httpio.WriteMethodNotAllowed(rw, r.Method, allowed)
			return
		}
		httpio.WriteRouteNotFound(rw, r)
		return
	}
	for k := range r.URL.Query() {
		if !slices.Contains(rte.Query, k) {
			apierr.Write(rw, apierr.InvalidArgument("unknown query parameter %q on %s %s", k, rte.Method, rte.Pattern))
			return
		}
	}
	resp, err := rte.Handle(&call[C, B, P, K]{s: a.srv, routes: a.routes, w: rw, r: r, params: params})
	if err != nil {
		apierr.Write(rw, err)
		return
	}
	if err := httpio.WriteJSON(rw, resp); err != nil {
		a.log.Printf("localzdm: admin %s %s: writing response: %v", r.Method, r.URL.Path, err)
	}
}

// newRouter holds the admin route table: the one list of the admin
// routes, each with the body it reads and the Go method of the same effect
// (and what it answers). The package documentation points here, and GET
// /admin/routes serves this table to a running server's users.
func newRouter[C, B, P, K any]() *httpio.Router[handlerFunc[C, B, P, K]] {
	return httpio.NewRouter(
		&route[C, B, P, K]{Method: http.MethodGet, Pattern: "/admin/health", Handle: (*call[C, B, P, K]).adminHealth,
			Doc: `-> {"status","base_url","storage_url"}`},
		&route[C, B, P, K]{Method: http.MethodGet, Pattern: "/admin/routes", Handle: (*call[C, B, P, K]).adminRouteTable,
			Doc: `-> {"routes":[{"method","path","body","go"}]}: this table`},
		&route[C, B, P, K]{Method: http.MethodPost, Pattern: "/admin/accounts", Handle: (*call[C, B, P, K]).adminCreateAccount,
			Body: `{"name"}`, Doc: `CreateAccount -> {"account_id"}`},
		&route[C, B, P, K]{Method: http.MethodPost, Pattern: "/admin/workspaces", Handle: (*call[C, B, P, K]).adminCreateWorkspace,
			Body: `{"account_id","name"}`, Doc: `CreateWorkspace -> Bootstrap`},
		&route[C, B, P, K]{Method: http.MethodPost, Pattern: "/admin/bootstrap", Handle: (*call[C, B, P, K]).adminBootstrap,
			Body: `{"name"} (optional)`, Doc: `Bootstrap -> Bootstrap`},
		&route[C, B, P, K]{Method: http.MethodDelete, Pattern: "/admin/workspaces/{workspace_id}", Handle: (*call[C, B, P, K]).adminDeleteWorkspace,
			Doc: `DeleteWorkspace -> {"deleted"}`},
		&route[C, B, P, K]{Method: http.MethodPost, Pattern: "/admin/workspaces/{workspace_id}/keys", Handle: (*call[C, B, P, K]).adminCreateKey,
			Doc: `CreateKey -> {"api_key","workspace_id"}`},
		&route[C, B, P, K]{Method: http.MethodPost, Pattern: "/admin/keys/revoke", Handle: (*call[C, B, P, K]).adminRevokeKey,
			Body: `{"api_key"}`, Doc: `RevokeKey`},
		&route[C, B, P, K]{Method: http.MethodPut, Pattern: "/admin/workspaces/{workspace_id}/storage", Handle: (*call[C, B, P, K]).adminSetStorage,
			Body: `{"enabled"}`, Doc: `SetStorage`},
		&route[C, B, P, K]{Method: http.MethodPut, Pattern: "/admin/workspaces/{workspace_id}/webhook", Handle: (*call[C, B, P, K]).adminSetWebhook,
			Body: `{"url"}`, Doc: `SetWebhook`},
		&route[C, B, P, K]{Method: http.MethodDelete, Pattern: "/admin/workspaces/{workspace_id}/webhook", Handle: (*call[C, B, P, K]).adminDeleteWebhook,
			Doc: `SetWebhook(id, "")`},
		&route[C, B, P, K]{Method: http.MethodPost, Pattern: "/admin/workspaces/{workspace_id}/devices", Handle: (*call[C, B, P, K]).adminCreateDevices,
			Body: `{"fleet_id","names"}`, Doc: `CreateDevices -> {"device_ids"}`},
		&route[C, B, P, K]{Method: http.MethodPost, Pattern: "/admin/workspaces/{workspace_id}/data", Handle: (*call[C, B, P, K]).adminPublish,
			Body: `{"points":[DataPoint]}`, Doc: `Publish -> {"accepted","received"}`},
		&route[C, B, P, K]{Method: http.MethodDelete, Pattern: "/admin/fleets/{fleet_id}", Handle: (*call[C, B, P, K]).adminDeleteFleet,
			Doc: `DeleteFleet -> {"deleted"}`},
		&route[C, B, P, K]{Method: http.MethodPut, Pattern: "/admin/fleets/{fleet_id}/name", Handle: (*call[C, B, P, K]).adminRenameFleet,
			Body: `{"name"}`, Doc: `RenameFleet`},
		&route[C, B, P, K]{Method: http.MethodDelete, Pattern: "/admin/devices/{device_id}", Handle: (*call[C, B, P, K]).adminDeleteDevice,
			Doc: `DeleteDevice -> {"deleted"}`},
		&route[C, B, P, K]{Method: http.MethodPut, Pattern: "/admin/devices/{device_id}/fleet", Handle: (*call[C, B, P, K]).adminMoveDevice,
			Body: `{"fleet_id"}`, Doc: `MoveDevice`},
		&route[C, B, P, K]{Method: http.MethodDelete, Pattern: "/admin/devices/{device_id}/jobs/{job_name}", Handle: (*call[C, B, P, K]).adminPurgeJob,
			Doc: `PurgeJob -> {"deleted"}`},
		&route[C, B, P, K]{Method: http.MethodDelete, Pattern: "/admin/devices/{device_id}/fota", Handle: (*call[C, B, P, K]).adminPurgeFOTA,
			Doc: `PurgeFOTA -> {"deleted"}`},
		&route[C, B, P, K]{Method: http.MethodPut, Pattern: "/admin/devices/{device_id}/jobs/{job_name}/status", Handle: (*call[C, B, P, K]).adminSetJobStatus,
			Body: `{"status"}`, Doc: `SetJobStatus`},
		&route[C, B, P, K]{Method: http.MethodPut, Pattern: "/admin/devices/{device_id}/fota/status", Handle: (*call[C, B, P, K]).adminSetFOTAStatus,
			Body: `{"status"}`, Doc: `SetFOTAStatus`},
		&route[C, B, P, K]{Method: http.MethodPost, Pattern: "/admin/devices/{device_id}/connect", Handle: (*call[C, B, P, K]).adminConnectDevice,
			Body: `{"device_ip"}`, Doc: `ConnectDevice`},
		&route[C, B, P, K]{Method: http.MethodPut, Pattern: "/admin/devices/{device_id}/identities", Handle: (*call[C, B, P, K]).adminSetIdentities,
			Body: `{"phys_id","identities"}`, Doc: `SetDeviceIdentities`},
		&route[C, B, P, K]{Method: http.MethodGet, Pattern: "/admin/counters", Handle: (*call[C, B, P, K]).adminCounters,
			Doc: `Counters, TotalRequests -> {"counters","total"}`},
		&route[C, B, P, K]{Method: http.MethodDelete, Pattern: "/admin/counters", Handle: (*call[C, B, P, K]).adminResetCounters,
			Doc: `ResetCounters`},
		&route[C, B, P, K]{Method: http.MethodGet, Pattern: "/admin/faults", Handle: (*call[C, B, P, K]).adminGetFaults,
			Doc: `CurrentFaults -> Faults`},
		&route[C, B, P, K]{Method: http.MethodPut, Pattern: "/admin/faults", Handle: (*call[C, B, P, K]).adminSetFaults,
			Body: `{"latency","error_rate","rate_limit","retry_after","no_retry_after","drop_after_create","hang"}`, Doc: `SetFaults -> Faults`},
		&route[C, B, P, K]{Method: http.MethodGet, Pattern: "/admin/faults/requests", Handle: (*call[C, B, P, K]).adminRequestFaults,
			Doc: `RequestFaults -> {"faults":[RequestFault]}`},
		&route[C, B, P, K]{Method: http.MethodPost, Pattern: "/admin/faults/requests", Handle: (*call[C, B, P, K]).adminAddRequestFault,
			Body: `{"method","path","action","count","for","delay","status"}`, Doc: `AddRequestFault -> RequestFault (with "id")`},
		&route[C, B, P, K]{Method: http.MethodDelete, Pattern: "/admin/faults/requests", Handle: (*call[C, B, P, K]).adminClearRequestFaults,
			Doc: `ClearRequestFaults`},
		&route[C, B, P, K]{Method: http.MethodDelete, Pattern: "/admin/faults/requests/{fault_id}", Handle: (*call[C, B, P, K]).adminRemoveRequestFault,
			Doc: `RemoveRequestFault`},
		&route[C, B, P, K]{Method: http.MethodGet, Pattern: "/admin/choices", Handle: (*call[C, B, P, K]).adminGetChoices,
			Doc: `CurrentChoices -> Choices`},
		&route[C, B, P, K]{Method: http.MethodPut, Pattern: "/admin/choices", Handle: (*call[C, B, P, K]).adminSetChoices,
			Body: `{"missing_fota","shuffle_lists","publish_before_read","job_value","workspace_list_limit","hidden_workspaces","seed"}`,
			Doc:  `SetChoices -> Choices (replaces every choice)`},
		&route[C, B, P, K]{Method: http.MethodGet, Pattern: "/admin/behavior", Handle: (*call[C, B, P, K]).adminGetBehavior,
			Doc: `CurrentDeviceBehavior -> DeviceBehavior, plus "pending_answers": PendingAnswers`},
		&route[C, B, P, K]{Method: http.MethodPut, Pattern: "/admin/behavior", Handle: (*call[C, B, P, K]).adminSetBehavior,
			Body: `{"enabled","delay","jitter","fota_success_status","failure_status","job_failure_status","failure_fraction","fail_devices","silent_fraction","silent_devices","seed","publish_health","health_tag","health_payload","health_error_tag","health_error_payload","health_silent_fraction","health_error_fraction"}`,
			Doc:  `SetDeviceBehavior -> DeviceBehavior (replaces every setting)`},
		&route[C, B, P, K]{Method: http.MethodGet, Pattern: "/admin/webhooks", Handle: (*call[C, B, P, K]).adminWebhookStats,
			Doc: `WebhookStats`},
		&route[C, B, P, K]{Method: http.MethodPost, Pattern: "/admin/webhooks/flush", Handle: (*call[C, B, P, K]).adminFlushWebhooks,
			Body: `query ?timeout=10s`, Doc: `FlushWebhooks -> WebhookStats`, Query: []string{"timeout"}},
		&route[C, B, P, K]{Method: http.MethodPost, Pattern: "/admin/reset", Handle: (*call[C, B, P, K]).adminReset,
			Doc: `Reset`},
	)
}

// adminRouteTable answers the admin route table.
func (c *call[C, B, P, K]) adminRouteTable() (any, error) {
	type row struct {
		Method string `json:"method"`
		Path   string `json:"path"`
		Body   string `json:"body,omitempty"`
		Go     string `json:"go"`
	}
	rows := make([]row, 0, len(c.routes.Routes))
	for _, r := range c.routes.Routes {
		rows = append(rows, row{Method: r.Method, Path: r.Pattern, Body: r.Body, Go: r.Doc})
	}
	return map[string]any{"routes": rows}, nil
}

func (c *call[C, B, P, K]) adminBody(dst any) error {
	return httpio.DecodeStrictBody(c.w, c.r, dst, true, maxAdminBody)
}

func (c *call[C, B, P, K]) adminHealth() (any, error) {
	return map[string]any{"status": "ok", "base_url": c.s.BaseURL(), "storage_url": c.s.StorageURL()}, nil
}

func (c *call[C, B, P, K]) adminCreateAccount() (any, error) {
	var in struct {
		Name *string `json:"name"`
	}
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	name, err := httpio.RequireName("name", in.Name)
	if err != nil {
		return nil, err
	}
	id, err := c.s.CreateAccount(name)
	if err != nil {
		return nil, err
	}
	return map[string]string{"account_id": id}, nil
}

func (c *call[C, B, P, K]) adminCreateWorkspace() (any, error) {
	var in struct {
		AccountID string  `json:"account_id"`
		Name      *string `json:"name"`
	}
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	name, err := httpio.RequireName("name", in.Name)
	if err != nil {
		return nil, err
	}
	return c.s.CreateWorkspace(in.AccountID, name)
}

func (c *call[C, B, P, K]) adminBootstrap() (any, error) {
	var in struct {
		Name string `json:"name"`
	}
	if err := httpio.DecodeStrictBody(c.w, c.r, &in, false, maxAdminBody); err != nil {
		return nil, err
	}
	return c.s.Bootstrap(in.Name)
}

func (c *call[C, B, P, K]) adminDeleteWorkspace() (any, error) {
	id := c.params["workspace_id"]
	if err := c.s.DeleteWorkspace(id); err != nil {
		return nil, err
	}
	return map[string]string{"deleted": id}, nil
}

func (c *call[C, B, P, K]) adminCreateKey() (any, error) {
	key, err := c.s.CreateKey(c.params["workspace_id"])
	if err != nil {
		return nil, err
	}
	return map[string]string{"api_key": key, "workspace_id": c.params["workspace_id"]}, nil
}

func (c *call[C, B, P, K]) adminSetStorage() (any, error) {
	var in struct {
		Enabled *bool `json:"enabled"`
	}
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	if in.Enabled == nil {
		return nil, apierr.InvalidArgument("%q is required", "enabled")
	}
	id := c.params["workspace_id"]
	if err := c.s.SetStorage(id, *in.Enabled); err != nil {
		return nil, err
	}
	return map[string]any{"workspace_id": id, "enabled": *in.Enabled}, nil
}

func (c *call[C, B, P, K]) adminSetWebhook() (any, error) {
	var in struct {
		URL *string `json:"url"`
	}
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	if in.URL == nil {
		return nil, apierr.InvalidArgument("%q is required (an empty string removes the webhook)", "url")
	}
	id := c.params["workspace_id"]
	if err := c.s.SetWebhook(id, *in.URL); err != nil {
		return nil, err
	}
	return map[string]string{"workspace_id": id, "url": *in.URL}, nil
}

func (c *call[C, B, P, K]) adminDeleteWebhook() (any, error) {
	id := c.params["workspace_id"]
	if err := c.s.SetWebhook(id, ""); err != nil {
		return nil, err
	}
	return map[string]string{"workspace_id": id, "url": ""}, nil
}

func (c *call[C, B, P, K]) adminCreateDevices() (any, error) {
	var in struct {
		FleetID string   `json:"fleet_id"`
		Names   []string `json:"names"`
	}
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	ids, err := c.s.CreateDevices(c.params["workspace_id"], in.FleetID, in.Names)
	if err != nil {
		return nil, err
	}
	if ids == nil {
		ids = []string{}
	}
	return map[string]any{"device_ids": ids}, nil
}

func (c *call[C, B, P, K]) adminPublish() (any, error) {
	var in struct {
		Points []P `json:"points"`
	}
	if err := httpio.DecodeStrictBody(c.w, c.r, &in, true, maxPublishBody); err != nil {
		return nil, err
	}
	n, err := c.s.Publish(c.params["workspace_id"], in.Points)
	if err != nil {
		return nil, err
	}
	return map[string]int{"accepted": n, "received": len(in.Points)}, nil
}

func (c *call[C, B, P, K]) adminDeleteFleet() (any, error) {
	id := c.params["fleet_id"]
	if err := c.s.DeleteFleet(id); err != nil {
		return nil, err
	}
	return map[string]string{"deleted": id}, nil
}

func (c *call[C, B, P, K]) adminDeleteDevice() (any, error) {
	id := c.params["device_id"]
	if err := c.s.DeleteDevice(id); err != nil {
		return nil, err
	}
	return map[string]string{"deleted": id}, nil
}

type statusBody struct {
	Status string `json:"status"`
}

func (c *call[C, B, P, K]) adminSetJobStatus() (any, error) {
	var in statusBody
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	if err := c.s.SetJobStatus(c.params["device_id"], c.params["job_name"], in.Status); err != nil {
		return nil, err
	}
	return map[string]string{"device_id": c.params["device_id"], "job_name": c.params["job_name"], "status": in.Status}, nil
}

func (c *call[C, B, P, K]) adminSetFOTAStatus() (any, error) {
	var in statusBody
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	if err := c.s.SetFOTAStatus(c.params["device_id"], in.Status); err != nil {
		return nil, err
	}
	return map[string]string{"device_id": c.params["device_id"], "status": in.Status}, nil
}

func (c *call[C, B, P, K]) adminConnectDevice() (any, error) {
	var in struct {
		DeviceIP string `json:"device_ip"`
	}
	if err := httpio.DecodeStrictBody(c.w, c.r, &in, false, maxAdminBody); err != nil {
		return nil, err
	}
	if err := c.s.ConnectDevice(c.params["device_id"], in.DeviceIP); err != nil {
		return nil, err
	}
	return map[string]string{"device_id": c.params["device_id"]}, nil
}

func (c *call[C, B, P, K]) adminSetIdentities() (any, error) {
	var in struct {
		PhysID     string          `json:"phys_id"`
		Identities json.RawMessage `json:"identities"`
	}
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	if err := c.s.SetDeviceIdentities(c.params["device_id"], in.PhysID, in.Identities); err != nil {
		return nil, err
	}
	return map[string]string{"device_id": c.params["device_id"]}, nil
}

func (c *call[C, B, P, K]) adminCounters() (any, error) {
	return map[string]any{"counters": c.s.Counters(), "total": c.s.TotalRequests()}, nil
}

func (c *call[C, B, P, K]) adminResetCounters() (any, error) {
	c.s.ResetCounters()
	return map[string]any{"counters": map[string]int64{}, "total": 0}, nil
}

func (c *call[C, B, P, K]) adminGetFaults() (any, error) {
	return c.s.CurrentFaults(), nil
}

func (c *call[C, B, P, K]) adminSetFaults() (any, error) {
	var f faults.Faults
	if err := c.adminBody(&f); err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	c.s.SetFaults(f)
	return c.s.CurrentFaults(), nil
}

func (c *call[C, B, P, K]) adminWebhookStats() (any, error) {
	return c.s.WebhookStats(), nil
}

func (c *call[C, B, P, K]) adminFlushWebhooks() (any, error) {
	timeout := 10 * time.Second
	if v := c.r.URL.Query().Get("timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, apierr.InvalidArgument("query parameter \"timeout\" must be a positive duration such as \"5s\", not %q", v)
		}
		timeout = d
	}
	ctx, cancel := context.WithTimeout(c.r.Context(), timeout)
	defer cancel()
	if err := c.s.FlushWebhooks(ctx); err != nil {
		return nil, apierr.New(http.StatusServiceUnavailable, apierr.CodeUnavailable, "webhook batches still pending after %s", timeout)
	}
	return c.s.WebhookStats(), nil
}

func (c *call[C, B, P, K]) adminReset() (any, error) {
	c.s.Reset()
	return map[string]string{"status": "reset"}, nil
}

func (c *call[C, B, P, K]) adminRenameFleet() (any, error) {
	var in struct {
		Name *string `json:"name"`
	}
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	name, err := httpio.RequireName("name", in.Name)
	if err != nil {
		return nil, err
	}
	id := c.params["fleet_id"]
	if err := c.s.RenameFleet(id, name); err != nil {
		return nil, err
	}
	return map[string]string{"fleet_id": id, "name": name}, nil
}

func (c *call[C, B, P, K]) adminMoveDevice() (any, error) {
	var in struct {
		FleetID *string `json:"fleet_id"`
	}
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	if in.FleetID == nil || *in.FleetID == "" {
		return nil, apierr.InvalidArgument("%q is required", "fleet_id")
	}
	id := c.params["device_id"]
	if err := c.s.MoveDevice(id, *in.FleetID); err != nil {
		return nil, err
	}
	return map[string]string{"device_id": id, "fleet_id": *in.FleetID}, nil
}

func (c *call[C, B, P, K]) adminPurgeJob() (any, error) {
	id, name := c.params["device_id"], c.params["job_name"]
	if err := c.s.PurgeJob(id, name); err != nil {
		return nil, err
	}
	return map[string]string{"device_id": id, "deleted": name}, nil
}

func (c *call[C, B, P, K]) adminPurgeFOTA() (any, error) {
	id := c.params["device_id"]
	if err := c.s.PurgeFOTA(id); err != nil {
		return nil, err
	}
	return map[string]string{"device_id": id, "deleted": "fota"}, nil
}

func (c *call[C, B, P, K]) adminRequestFaults() (any, error) {
	return map[string]any{"faults": c.s.RequestFaults()}, nil
}

func (c *call[C, B, P, K]) adminAddRequestFault() (any, error) {
	var f faults.RequestFault
	if err := c.adminBody(&f); err != nil {
		return nil, err
	}
	id, err := c.s.AddRequestFault(f)
	if err != nil {
		return nil, err
	}
	for _, have := range c.s.RequestFaults() {
		if have.ID == id {
			return have, nil
		}
	}
	return nil, apierr.NotFound("request fault %d was removed meanwhile", id)
}

func (c *call[C, B, P, K]) adminClearRequestFaults() (any, error) {
	c.s.ClearRequestFaults()
	return map[string]any{"faults": []faults.RequestFault{}}, nil
}

func (c *call[C, B, P, K]) adminRemoveRequestFault() (any, error) {
	v := c.params["fault_id"]
	id, err := strconv.Atoi(v)
	if err != nil {
		return nil, apierr.NotFound("request fault %q not found", v)
	}
	if err := c.s.RemoveRequestFault(id); err != nil {
		return nil, err
	}
	return map[string]int{"deleted": id}, nil
}

func (c *call[C, B, P, K]) adminGetChoices() (any, error) {
	return c.s.CurrentChoices(), nil
}

func (c *call[C, B, P, K]) adminSetChoices() (any, error) {
	var ch C
	if err := c.adminBody(&ch); err != nil {
		return nil, err
	}
	if err := c.s.SetChoices(ch); err != nil {
		return nil, err
	}
	return c.s.CurrentChoices(), nil
}

func (c *call[C, B, P, K]) adminGetBehavior() (any, error) {
	return behaviorAnswer(c.s)
}

func (c *call[C, B, P, K]) adminSetBehavior() (any, error) {
	var b B
	if err := c.adminBody(&b); err != nil {
		return nil, err
	}
	if err := c.s.SetDeviceBehavior(b); err != nil {
		return nil, err
	}
	return behaviorAnswer(c.s)
}

// behaviorAnswer is the device behavior with the number of answers planned.
func behaviorAnswer[C, B, P, K any](s Server[C, B, P, K]) (any, error) {
	data, err := json.Marshal(s.CurrentDeviceBehavior())
	if err != nil {
		return nil, err
	}
	var out map[string]json.RawMessage // keeps a large seed exact
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	out["pending_answers"] = json.RawMessage(strconv.Itoa(s.PendingAnswers()))
	return out, nil
}

func (c *call[C, B, P, K]) adminRevokeKey() (any, error) {
	var in struct {
		APIKey *string `json:"api_key"`
	}
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	if in.APIKey == nil || *in.APIKey == "" {
		return nil, apierr.InvalidArgument("%q is required", "api_key")
	}
	if err := c.s.RevokeKey(*in.APIKey); err != nil {
		return nil, err
	}
	return map[string]bool{"revoked": true}, nil
}
