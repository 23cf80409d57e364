package localzdm

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/httpio"
)

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

func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	rw := &statusWriter{ResponseWriter: w}
	if s.opts.LogRequests {
		start := time.Now()
		defer func() {
			s.log.Printf("localzdm: admin %s %s -> %d (%s)", r.Method, r.URL.RequestURI(), rw.status, time.Since(start).Round(time.Microsecond))
		}()
	}
	if !isLoopback(r.RemoteAddr) {
		writeError(rw, newError(http.StatusForbidden, CodeForbidden, "the admin API answers loopback clients only"))
		return
	}
	segs, ok := httpio.SplitPath(r.URL.EscapedPath())
	if !ok {
		httpio.WriteRouteNotFound(rw, r)
		return
	}
	rte, params, allowed := s.adminRoutes.Match(r.Method, segs)
	if params == nil {
		if rte != nil {
			httpio.WriteMethodNotAllowed(rw, r.Method, allowed)
			return
		}
		httpio.WriteRouteNotFound(rw, r)
		return
	}
	resp, err := rte.Handle(&call{s: s, w: rw, r: r, params: params})
	if err != nil {
		writeError(rw, err)
		return
	}
	if err := httpio.WriteJSON(rw, resp); err != nil {
		s.log.Printf("localzdm: admin %s %s: writing response: %v", r.Method, r.URL.Path, err)
	}
}

// newAdminRouter holds the admin route table: the one list of the admin
// routes, each with the body it reads and the Go method of the same effect
// (and what it answers). The package documentation points here, and GET
// /admin/routes serves this table to a running server's users.
func (s *Server) newAdminRouter() *router {
	return httpio.NewRouter(
		&route{Method: http.MethodGet, Pattern: "/admin/health", Handle: (*call).adminHealth,
			Doc: `-> {"status","base_url","storage_url"}`},
		&route{Method: http.MethodGet, Pattern: "/admin/routes", Handle: (*call).adminRouteTable,
			Doc: `-> {"routes":[{"method","path","body","go"}]}: this table`},
		&route{Method: http.MethodPost, Pattern: "/admin/accounts", Handle: (*call).adminCreateAccount,
			Body: `{"name"}`, Doc: `CreateAccount -> {"account_id"}`},
		&route{Method: http.MethodPost, Pattern: "/admin/workspaces", Handle: (*call).adminCreateWorkspace,
			Body: `{"account_id","name"}`, Doc: `CreateWorkspace -> Bootstrap`},
		&route{Method: http.MethodPost, Pattern: "/admin/bootstrap", Handle: (*call).adminBootstrap,
			Body: `{"name"} (optional)`, Doc: `Bootstrap -> Bootstrap`},
		&route{Method: http.MethodDelete, Pattern: "/admin/workspaces/{workspace_id}", Handle: (*call).adminDeleteWorkspace,
			Doc: `DeleteWorkspace -> {"deleted"}`},
		&route{Method: http.MethodPost, Pattern: "/admin/workspaces/{workspace_id}/keys", Handle: (*call).adminCreateKey,
			Doc: `CreateKey -> {"api_key","workspace_id"}`},
		&route{Method: http.MethodPost, Pattern: "/admin/keys/revoke", Handle: (*call).adminRevokeKey,
			Body: `{"api_key"}`, Doc: `RevokeKey`},
		&route{Method: http.MethodPut, Pattern: "/admin/workspaces/{workspace_id}/storage", Handle: (*call).adminSetStorage,
			Body: `{"enabled"}`, Doc: `SetStorage`},
		&route{Method: http.MethodPut, Pattern: "/admin/workspaces/{workspace_id}/webhook", Handle: (*call).adminSetWebhook,
			Body: `{"url"}`, Doc: `SetWebhook`},
		&route{Method: http.MethodDelete, Pattern: "/admin/workspaces/{workspace_id}/webhook", Handle: (*call).adminDeleteWebhook,
			Doc: `SetWebhook(id, "")`},
		&route{Method: http.MethodPost, Pattern: "/admin/workspaces/{workspace_id}/devices", Handle: (*call).adminCreateDevices,
			Body: `{"fleet_id","names"}`, Doc: `CreateDevices -> {"device_ids"}`},
		&route{Method: http.MethodPost, Pattern: "/admin/workspaces/{workspace_id}/data", Handle: (*call).adminPublish,
			Body: `{"points":[DataPoint]}`, Doc: `Publish -> {"accepted","received"}`},
		&route{Method: http.MethodDelete, Pattern: "/admin/fleets/{fleet_id}", Handle: (*call).adminDeleteFleet,
			Doc: `DeleteFleet -> {"deleted"}`},
		&route{Method: http.MethodPut, Pattern: "/admin/fleets/{fleet_id}/name", Handle: (*call).adminRenameFleet,
			Body: `{"name"}`, Doc: `RenameFleet`},
		&route{Method: http.MethodDelete, Pattern: "/admin/devices/{device_id}", Handle: (*call).adminDeleteDevice,
			Doc: `DeleteDevice -> {"deleted"}`},
		&route{Method: http.MethodPut, Pattern: "/admin/devices/{device_id}/fleet", Handle: (*call).adminMoveDevice,
			Body: `{"fleet_id"}`, Doc: `MoveDevice`},
		&route{Method: http.MethodDelete, Pattern: "/admin/devices/{device_id}/jobs/{job_name}", Handle: (*call).adminPurgeJob,
			Doc: `PurgeJob -> {"deleted"}`},
		&route{Method: http.MethodDelete, Pattern: "/admin/devices/{device_id}/fota", Handle: (*call).adminPurgeFOTA,
			Doc: `PurgeFOTA -> {"deleted"}`},
		&route{Method: http.MethodPut, Pattern: "/admin/devices/{device_id}/jobs/{job_name}/status", Handle: (*call).adminSetJobStatus,
			Body: `{"status"}`, Doc: `SetJobStatus`},
		&route{Method: http.MethodPut, Pattern: "/admin/devices/{device_id}/fota/status", Handle: (*call).adminSetFOTAStatus,
			Body: `{"status"}`, Doc: `SetFOTAStatus`},
		&route{Method: http.MethodPost, Pattern: "/admin/devices/{device_id}/connect", Handle: (*call).adminConnectDevice,
			Body: `{"device_ip"}`, Doc: `ConnectDevice`},
		&route{Method: http.MethodPut, Pattern: "/admin/devices/{device_id}/identities", Handle: (*call).adminSetIdentities,
			Body: `{"phys_id","identities"}`, Doc: `SetDeviceIdentities`},
		&route{Method: http.MethodGet, Pattern: "/admin/counters", Handle: (*call).adminCounters,
			Doc: `Counters, TotalRequests -> {"counters","total"}`},
		&route{Method: http.MethodDelete, Pattern: "/admin/counters", Handle: (*call).adminResetCounters,
			Doc: `ResetCounters`},
		&route{Method: http.MethodGet, Pattern: "/admin/faults", Handle: (*call).adminGetFaults,
			Doc: `CurrentFaults -> Faults`},
		&route{Method: http.MethodPut, Pattern: "/admin/faults", Handle: (*call).adminSetFaults,
			Body: `{"latency","error_rate","rate_limit","retry_after","drop_after_create","hang"}`, Doc: `SetFaults -> Faults`},
		&route{Method: http.MethodGet, Pattern: "/admin/faults/requests", Handle: (*call).adminRequestFaults,
			Doc: `RequestFaults -> {"faults":[RequestFault]}`},
		&route{Method: http.MethodPost, Pattern: "/admin/faults/requests", Handle: (*call).adminAddRequestFault,
			Body: `{"method","path","action","count","for","delay","status"}`, Doc: `AddRequestFault -> RequestFault (with "id")`},
		&route{Method: http.MethodDelete, Pattern: "/admin/faults/requests", Handle: (*call).adminClearRequestFaults,
			Doc: `ClearRequestFaults`},
		&route{Method: http.MethodDelete, Pattern: "/admin/faults/requests/{fault_id}", Handle: (*call).adminRemoveRequestFault,
			Doc: `RemoveRequestFault`},
		&route{Method: http.MethodGet, Pattern: "/admin/choices", Handle: (*call).adminGetChoices,
			Doc: `CurrentChoices -> Choices`},
		&route{Method: http.MethodPut, Pattern: "/admin/choices", Handle: (*call).adminSetChoices,
			Body: `{"missing_fota","shuffle_lists","publish_before_read","job_value","workspace_list_limit","hidden_workspaces","seed"}`,
			Doc:  `SetChoices -> Choices (replaces every choice)`},
		&route{Method: http.MethodGet, Pattern: "/admin/behavior", Handle: (*call).adminGetBehavior,
			Doc: `CurrentDeviceBehavior -> DeviceBehavior, plus "pending_answers": PendingAnswers`},
		&route{Method: http.MethodPut, Pattern: "/admin/behavior", Handle: (*call).adminSetBehavior,
			Body: `{"enabled","delay","jitter","fota_success_status","failure_status","job_failure_status","failure_fraction","fail_devices","silent_fraction","silent_devices","seed"}`,
			Doc:  `SetDeviceBehavior -> DeviceBehavior (replaces every setting)`},
		&route{Method: http.MethodGet, Pattern: "/admin/webhooks", Handle: (*call).adminWebhookStats,
			Doc: `WebhookStats`},
		&route{Method: http.MethodPost, Pattern: "/admin/webhooks/flush", Handle: (*call).adminFlushWebhooks,
			Body: `query ?timeout=10s`, Doc: `FlushWebhooks -> WebhookStats`},
		&route{Method: http.MethodPost, Pattern: "/admin/reset", Handle: (*call).adminReset,
			Doc: `Reset`},
	)
}

// adminRouteTable answers the admin route table.
func (c *call) adminRouteTable() (any, error) {
	type row struct {
		Method string `json:"method"`
		Path   string `json:"path"`
		Body   string `json:"body,omitempty"`
		Go     string `json:"go"`
	}
	rows := make([]row, 0, len(c.s.adminRoutes.Routes))
	for _, r := range c.s.adminRoutes.Routes {
		rows = append(rows, row{Method: r.Method, Path: r.Pattern, Body: r.Body, Go: r.Doc})
	}
	return map[string]any{"routes": rows}, nil
}

func (c *call) adminBody(dst any) error {
	return httpio.DecodeStrictBody(c.w, c.r, dst, true, maxAdminBody)
}

func (c *call) adminHealth() (any, error) {
	return map[string]any{"status": "ok", "base_url": c.s.BaseURL(), "storage_url": c.s.StorageURL()}, nil
}

func (c *call) adminCreateAccount() (any, error) {
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

func (c *call) adminCreateWorkspace() (any, error) {
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

func (c *call) adminBootstrap() (any, error) {
	var in struct {
		Name string `json:"name"`
	}
	if err := httpio.DecodeStrictBody(c.w, c.r, &in, false, maxAdminBody); err != nil {
		return nil, err
	}
	return c.s.Bootstrap(in.Name)
}

func (c *call) adminDeleteWorkspace() (any, error) {
	id := c.params["workspace_id"]
	if err := c.s.DeleteWorkspace(id); err != nil {
		return nil, err
	}
	return map[string]string{"deleted": id}, nil
}

func (c *call) adminCreateKey() (any, error) {
	key, err := c.s.CreateKey(c.params["workspace_id"])
	if err != nil {
		return nil, err
	}
	return map[string]string{"api_key": key, "workspace_id": c.params["workspace_id"]}, nil
}

func (c *call) adminSetStorage() (any, error) {
	var in struct {
		Enabled *bool `json:"enabled"`
	}
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	if in.Enabled == nil {
		return nil, invalidArgument("%q is required", "enabled")
	}
	id := c.params["workspace_id"]
	if err := c.s.SetStorage(id, *in.Enabled); err != nil {
		return nil, err
	}
	return map[string]any{"workspace_id": id, "enabled": *in.Enabled}, nil
}

func (c *call) adminSetWebhook() (any, error) {
	var in struct {
		URL *string `json:"url"`
	}
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	if in.URL == nil {
		return nil, invalidArgument("%q is required (an empty string removes the webhook)", "url")
	}
	id := c.params["workspace_id"]
	if err := c.s.SetWebhook(id, *in.URL); err != nil {
		return nil, err
	}
	return map[string]string{"workspace_id": id, "url": *in.URL}, nil
}

func (c *call) adminDeleteWebhook() (any, error) {
	id := c.params["workspace_id"]
	if err := c.s.SetWebhook(id, ""); err != nil {
		return nil, err
	}
	return map[string]string{"workspace_id": id, "url": ""}, nil
}

func (c *call) adminCreateDevices() (any, error) {
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

func (c *call) adminPublish() (any, error) {
	var in struct {
		Points []DataPoint `json:"points"`
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

func (c *call) adminDeleteFleet() (any, error) {
	id := c.params["fleet_id"]
	if err := c.s.DeleteFleet(id); err != nil {
		return nil, err
	}
	return map[string]string{"deleted": id}, nil
}

func (c *call) adminDeleteDevice() (any, error) {
	id := c.params["device_id"]
	if err := c.s.DeleteDevice(id); err != nil {
		return nil, err
	}
	return map[string]string{"deleted": id}, nil
}

type statusBody struct {
	Status string `json:"status"`
}

func (c *call) adminSetJobStatus() (any, error) {
	var in statusBody
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	if err := c.s.SetJobStatus(c.params["device_id"], c.params["job_name"], in.Status); err != nil {
		return nil, err
	}
	return map[string]string{"device_id": c.params["device_id"], "job_name": c.params["job_name"], "status": in.Status}, nil
}

func (c *call) adminSetFOTAStatus() (any, error) {
	var in statusBody
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	if err := c.s.SetFOTAStatus(c.params["device_id"], in.Status); err != nil {
		return nil, err
	}
	return map[string]string{"device_id": c.params["device_id"], "status": in.Status}, nil
}

func (c *call) adminConnectDevice() (any, error) {
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

func (c *call) adminSetIdentities() (any, error) {
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

func (c *call) adminCounters() (any, error) {
	return map[string]any{"counters": c.s.Counters(), "total": c.s.TotalRequests()}, nil
}

func (c *call) adminResetCounters() (any, error) {
	c.s.ResetCounters()
	return map[string]any{"counters": map[string]int64{}, "total": 0}, nil
}

func (c *call) adminGetFaults() (any, error) {
	return c.s.CurrentFaults(), nil
}

func (c *call) adminSetFaults() (any, error) {
	var f Faults
	if err := c.adminBody(&f); err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	c.s.SetFaults(f)
	return c.s.CurrentFaults(), nil
}

func (c *call) adminWebhookStats() (any, error) {
	return c.s.WebhookStats(), nil
}

func (c *call) adminFlushWebhooks() (any, error) {
	timeout := 10 * time.Second
	if v := c.r.URL.Query().Get("timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, invalidArgument("query parameter \"timeout\" must be a positive duration such as \"5s\", not %q", v)
		}
		timeout = d
	}
	ctx, cancel := context.WithTimeout(c.r.Context(), timeout)
	defer cancel()
	if err := c.s.FlushWebhooks(ctx); err != nil {
		return nil, newError(http.StatusServiceUnavailable, CodeUnavailable, "webhook batches still pending after %s", timeout)
	}
	return c.s.WebhookStats(), nil
}

func (c *call) adminReset() (any, error) {
	c.s.Reset()
	return map[string]string{"status": "reset"}, nil
}

func (c *call) adminRenameFleet() (any, error) {
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

func (c *call) adminMoveDevice() (any, error) {
	var in struct {
		FleetID *string `json:"fleet_id"`
	}
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	if in.FleetID == nil || *in.FleetID == "" {
		return nil, invalidArgument("%q is required", "fleet_id")
	}
	id := c.params["device_id"]
	if err := c.s.MoveDevice(id, *in.FleetID); err != nil {
		return nil, err
	}
	return map[string]string{"device_id": id, "fleet_id": *in.FleetID}, nil
}

func (c *call) adminPurgeJob() (any, error) {
	id, name := c.params["device_id"], c.params["job_name"]
	if err := c.s.PurgeJob(id, name); err != nil {
		return nil, err
	}
	return map[string]string{"device_id": id, "deleted": name}, nil
}

func (c *call) adminPurgeFOTA() (any, error) {
	id := c.params["device_id"]
	if err := c.s.PurgeFOTA(id); err != nil {
		return nil, err
	}
	return map[string]string{"device_id": id, "deleted": "fota"}, nil
}

func (c *call) adminRequestFaults() (any, error) {
	return map[string]any{"faults": c.s.RequestFaults()}, nil
}

func (c *call) adminAddRequestFault() (any, error) {
	var f RequestFault
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
	return nil, notFound("request fault %d was removed meanwhile", id)
}

func (c *call) adminClearRequestFaults() (any, error) {
	c.s.ClearRequestFaults()
	return map[string]any{"faults": []RequestFault{}}, nil
}

func (c *call) adminRemoveRequestFault() (any, error) {
	v := c.params["fault_id"]
	id, err := strconv.Atoi(v)
	if err != nil {
		return nil, notFound("request fault %q not found", v)
	}
	if err := c.s.RemoveRequestFault(id); err != nil {
		return nil, err
	}
	return map[string]int{"deleted": id}, nil
}

func (c *call) adminGetChoices() (any, error) {
	return c.s.CurrentChoices(), nil
}

func (c *call) adminSetChoices() (any, error) {
	var ch Choices
	if err := c.adminBody(&ch); err != nil {
		return nil, err
	}
	if err := c.s.SetChoices(ch); err != nil {
		return nil, err
	}
	return c.s.CurrentChoices(), nil
}

func (c *call) adminGetBehavior() (any, error) {
	return behaviorAnswer(c.s)
}

func (c *call) adminSetBehavior() (any, error) {
	var b DeviceBehavior
	if err := c.adminBody(&b); err != nil {
		return nil, err
	}
	if err := c.s.SetDeviceBehavior(b); err != nil {
		return nil, err
	}
	return behaviorAnswer(c.s)
}

// behaviorAnswer is the device behavior with the number of answers planned.
func behaviorAnswer(s *Server) (any, error) {
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

func (c *call) adminRevokeKey() (any, error) {
	var in struct {
		APIKey *string `json:"api_key"`
	}
	if err := c.adminBody(&in); err != nil {
		return nil, err
	}
	if in.APIKey == nil || *in.APIKey == "" {
		return nil, invalidArgument("%q is required", "api_key")
	}
	if err := c.s.RevokeKey(*in.APIKey); err != nil {
		return nil, err
	}
	return map[string]bool{"revoked": true}, nil
}
