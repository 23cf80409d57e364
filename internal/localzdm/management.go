package localzdm

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/httpio"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/settings"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/store"
)

func (s *Server) newAPIRouter() *router {
	return httpio.NewRouter(
		&route{Method: http.MethodGet, Pattern: "/v3/workspaces", Handle: (*call).listWorkspaces},
		&route{Method: http.MethodPost, Pattern: "/v3/workspaces", Mutating: true, Handle: (*call).createWorkspace},
		&route{Method: http.MethodGet, Pattern: "/v3/workspaces/{workspace_id}", Handle: (*call).getWorkspace},
		&route{Method: http.MethodGet, Pattern: "/v3/workspaces/{workspace_id}/fleets", Handle: (*call).listFleets},
		&route{Method: http.MethodPost, Pattern: "/v3/workspaces/{workspace_id}/fleets", Mutating: true, Handle: (*call).createFleet},
		&route{Method: http.MethodGet, Pattern: "/v3/workspaces/{workspace_id}/fleets/{fleet_id}", Handle: (*call).getFleet},
		&route{Method: http.MethodGet, Pattern: "/v3/workspaces/{workspace_id}/devices", Handle: (*call).listDevices},
		&route{Method: http.MethodPost, Pattern: "/v3/workspaces/{workspace_id}/devices", Mutating: true, Handle: (*call).createDevice},
		&route{Method: http.MethodGet, Pattern: "/v3/workspaces/{workspace_id}/devices/{device_id}", Handle: (*call).getDevice},
		&route{Method: http.MethodPut, Pattern: "/v3/workspaces/{workspace_id}/devices/{device_id}", Handle: (*call).updateDevice},
		&route{Method: http.MethodGet, Pattern: "/v3/devices/{device_id}/jobs", Handle: (*call).listJobs},
		&route{Method: http.MethodGet, Pattern: "/v3/devices/{device_id}/jobs/{job_name}", Handle: (*call).getJob},
		&route{Method: http.MethodPost, Pattern: "/v3/devices/{device_id}/jobs/{job_name}", Mutating: true, Handle: (*call).scheduleJob},
		&route{Method: http.MethodPost, Pattern: "/v3/workspace/{workspace_id}/jobs/{job_name}", Mutating: true, Handle: (*call).scheduleFleetJob},
		&route{Method: http.MethodGet, Pattern: "/v3/devices/{device_id}/fota", Handle: (*call).getFOTA},
		&route{Method: http.MethodPost, Pattern: "/v3/devices/{device_id}/fota/{firmware_id}/versions/{firmware_version}", Mutating: true, Handle: (*call).scheduleFOTA},
		&route{Method: http.MethodPost, Pattern: "/v3/workspaces/{workspace_id}/fota/{firmware_id}/versions/{firmware_version}", Mutating: true, Handle: (*call).scheduleFleetFOTA},
	)
}

// keyWorkspaceLocked returns the workspace the key is bound to; s.st.Mu must be held.
func (c *call) keyWorkspaceLocked() (*workspace, error) {
	w := c.s.st.Workspaces[c.keyWorkspace]
	if w == nil {
		return nil, newError(http.StatusUnauthorized, CodeUnauthenticated, "invalid API key")
	}
	return w, nil
}

// pathWorkspaceLocked resolves the {workspace_id} of the path, which must be
// the key's workspace; s.st.Mu must be held.
func (c *call) pathWorkspaceLocked() (*workspace, error) {
	if _, err := c.keyWorkspaceLocked(); err != nil {
		return nil, err
	}
	id := c.params["workspace_id"]
	w := c.s.st.Workspaces[id]
	switch {
	case w == nil:
		return nil, notFound("workspace %q not found", id)
	case id != c.keyWorkspace:
		return nil, newError(http.StatusForbidden, CodeForbidden, "the API key is not bound to workspace %q", id)
	}
	return w, nil
}

// pathDeviceLocked resolves the {device_id} of the path, which must be in the
// key's workspace; s.st.Mu must be held.
func (c *call) pathDeviceLocked() (*device, error) {
	if _, err := c.keyWorkspaceLocked(); err != nil {
		return nil, err
	}
	id := c.params["device_id"]
	d := c.s.st.Devices[id]
	if d == nil || d.WorkspaceID != c.keyWorkspace {
		return nil, notFound("device %q not found", id)
	}
	return d, nil
}

// checkWorkspacePath checks the {workspace_id} of the path under a read lock,
// so that scope errors come before body and query errors.
func (c *call) checkWorkspacePath() error {
	c.s.st.Mu.RLock()
	defer c.s.st.Mu.RUnlock()
	_, err := c.pathWorkspaceLocked()
	return err
}

// checkDevicePath checks the {device_id} of the path under a read lock.
func (c *call) checkDevicePath() error {
	c.s.st.Mu.RLock()
	defer c.s.st.Mu.RUnlock()
	_, err := c.pathDeviceLocked()
	return err
}

func (c *call) listWorkspaces() (any, error) {
	s := c.s
	s.st.Mu.RLock()
	defer s.st.Mu.RUnlock()
	kw, err := c.keyWorkspaceLocked()
	if err != nil {
		return nil, err
	}
	a := s.st.Accounts[kw.AccountID]
	ids := s.visibleWorkspaces(a.Workspaces)
	out := make([]workspaceJSON, 0, len(ids))
	for _, id := range ids {
		out = append(out, workspaceToJSON(s.st.Workspaces[id]))
	}
	out = settings.Shuffled(&s.choices, "workspaces "+a.ID, out, func(w *workspaceJSON) string { return w.ID })
	return httpio.List[workspaceJSON]{Key: "workspaces", Items: out}, nil
}

func (c *call) getWorkspace() (any, error) {
	s := c.s
	s.st.Mu.RLock()
	defer s.st.Mu.RUnlock()
	kw, err := c.keyWorkspaceLocked()
	if err != nil {
		return nil, err
	}
	id := c.params["workspace_id"]
	w := s.st.Workspaces[id]
	switch {
	case w == nil:
		return nil, notFound("workspace %q not found", id)
	case w.AccountID != kw.AccountID:
		return nil, newError(http.StatusForbidden, CodeForbidden, "workspace %q belongs to another account", id)
	}
	return map[string]any{"workspace": workspaceToJSON(w)}, nil
}

type nameDescriptionBody struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
}

func (b nameDescriptionBody) validate() (string, string, error) {
	name, err := httpio.RequireName("name", b.Name)
	if err != nil {
		return "", "", err
	}
	desc, err := httpio.OptionalDescription(b.Description)
	if err != nil {
		return "", "", err
	}
	return name, desc, nil
}

func (c *call) createWorkspace() (any, error) {
	var body nameDescriptionBody
	if err := httpio.DecodeBody(c.w, c.r, &body, true); err != nil {
		return nil, err
	}
	name, desc, err := body.validate()
	if err != nil {
		return nil, err
	}
	s := c.s
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	kw, err := c.keyWorkspaceLocked()
	if err != nil {
		return nil, err
	}
	w := s.st.NewWorkspaceLocked("", s.st.Accounts[kw.AccountID], name, desc)
	s.st.Changed(w, s.st.Fleets[w.DefaultFleetID])
	return map[string]any{"workspace": workspaceToJSON(w)}, nil
}

func (c *call) listFleets() (any, error) {
	s := c.s
	s.st.Mu.RLock()
	defer s.st.Mu.RUnlock()
	w, err := c.pathWorkspaceLocked()
	if err != nil {
		return nil, err
	}
	out := make([]fleetJSON, 0, len(w.Fleets))
	for _, id := range w.Fleets {
		out = append(out, fleetToJSON(s.st.Fleets[id]))
	}
	out = settings.Shuffled(&s.choices, "fleets "+w.ID, out, func(f *fleetJSON) string { return f.ID })
	return httpio.List[fleetJSON]{Key: "fleets", Items: out}, nil
}

func (c *call) getFleet() (any, error) {
	s := c.s
	s.st.Mu.RLock()
	defer s.st.Mu.RUnlock()
	w, err := c.pathWorkspaceLocked()
	if err != nil {
		return nil, err
	}
	id := c.params["fleet_id"]
	f := s.st.Fleets[id]
	if f == nil || f.WorkspaceID != w.ID {
		return nil, notFound("fleet %q not found in workspace %q", id, w.ID)
	}
	return map[string]any{"fleet": fleetToJSON(f)}, nil
}

func (c *call) createFleet() (any, error) {
	s := c.s
	if err := c.checkWorkspacePath(); err != nil {
		return nil, err
	}
	var body nameDescriptionBody
	if err := httpio.DecodeBody(c.w, c.r, &body, true); err != nil {
		return nil, err
	}
	name, desc, err := body.validate()
	if err != nil {
		return nil, err
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	w, err := c.pathWorkspaceLocked()
	if err != nil {
		return nil, err
	}
	f := s.st.NewFleetLocked(w, name, desc)
	s.st.Changed(f)
	return map[string]any{"fleet": fleetToJSON(f)}, nil
}

func (c *call) listDevices() (any, error) {
	s := c.s
	s.st.Mu.RLock()
	defer s.st.Mu.RUnlock()
	w, err := c.pathWorkspaceLocked()
	if err != nil {
		return nil, err
	}
	out := make([]deviceJSON, 0, len(w.Devices))
	for _, id := range w.Devices {
		out = append(out, s.deviceJSONLocked(s.st.Devices[id]))
	}
	out = settings.Shuffled(&s.choices, "devices "+w.ID, out, func(d *deviceJSON) string { return d.ID })
	return httpio.List[deviceJSON]{Key: "devices", Items: out}, nil
}

func (c *call) getDevice() (any, error) {
	s := c.s
	s.st.Mu.RLock()
	defer s.st.Mu.RUnlock()
	w, err := c.pathWorkspaceLocked()
	if err != nil {
		return nil, err
	}
	id := c.params["device_id"]
	d := s.st.Devices[id]
	if d == nil || d.WorkspaceID != w.ID {
		return nil, notFound("device %q not found in workspace %q", id, w.ID)
	}
	return map[string]any{"device": s.deviceJSONLocked(d)}, nil
}

type deviceBody struct {
	Name    *string `json:"name"`
	FleetID *string `json:"fleet_id"`
}

// fleetForDeviceLocked resolves the fleet_id of a device body in workspace
// w; fallback is used when it is absent or empty.
func (s *Server) fleetForDeviceLocked(w *workspace, fleetID *string, fallback string) (*fleet, error) {
	id := fallback
	if fleetID != nil && *fleetID != "" {
		id = *fleetID
	}
	f := s.st.Fleets[id]
	switch {
	case f == nil:
		return nil, invalidArgument("\"fleet_id\": fleet %q not found", id)
	case f.WorkspaceID != w.ID:
		return nil, invalidArgument("\"fleet_id\": fleet %q belongs to another workspace, not %q", id, w.ID)
	}
	return f, nil
}

func (c *call) createDevice() (any, error) {
	s := c.s
	if err := c.checkWorkspacePath(); err != nil {
		return nil, err
	}
	var body deviceBody
	if err := httpio.DecodeBody(c.w, c.r, &body, true); err != nil {
		return nil, err
	}
	name, err := httpio.RequireName("name", body.Name)
	if err != nil {
		return nil, err
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	w, err := c.pathWorkspaceLocked()
	if err != nil {
		return nil, err
	}
	f, err := s.fleetForDeviceLocked(w, body.FleetID, w.DefaultFleetID)
	if err != nil {
		return nil, err
	}
	d := s.newDeviceLocked(w, f, name)
	s.st.Changed(d)
	return map[string]any{"device": s.deviceJSONLocked(d)}, nil
}

func (c *call) updateDevice() (any, error) {
	s := c.s
	if err := c.checkWorkspacePath(); err != nil {
		return nil, err
	}
	var body deviceBody
	if err := httpio.DecodeBody(c.w, c.r, &body, true); err != nil {
		return nil, err
	}
	name, err := httpio.RequireName("name", body.Name)
	if err != nil {
		return nil, err
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	w, err := c.pathWorkspaceLocked()
	if err != nil {
		return nil, err
	}
	id := c.params["device_id"]
	d := s.st.Devices[id]
	if d == nil || d.WorkspaceID != w.ID {
		return nil, notFound("device %q not found in workspace %q", id, w.ID)
	}
	f, err := s.fleetForDeviceLocked(w, body.FleetID, d.FleetID)
	if err != nil {
		return nil, err
	}
	d.Name = name
	d.FleetID = f.ID
	s.st.Changed(d)
	return map[string]any{"device": s.deviceJSONLocked(d)}, nil
}

func (c *call) listJobs() (any, error) {
	s := c.s
	if err := c.checkDevicePath(); err != nil {
		return nil, err
	}
	status, present, err := httpio.SingleQuery(c.r.URL.Query(), "status")
	if err != nil {
		return nil, err
	}
	if present && status != JobStatusPending && status != JobStatusDone {
		return nil, invalidArgument("query parameter \"status\" must be %q or %q, not %q", JobStatusPending, JobStatusDone, status)
	}
	s.st.Mu.RLock()
	defer s.st.Mu.RUnlock()
	d, err := c.pathDeviceLocked()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(d.Jobs))
	for _, name := range slices.Sorted(maps.Keys(d.Jobs)) {
		if !present || d.Jobs[name].Status == status {
			names = append(names, name)
		}
	}
	names = settings.Shuffled(&s.choices, "jobs "+d.ID, names, func(n *string) string { return *n })
	out := make([]any, 0, len(names))
	for _, name := range names {
		out = append(out, s.jobAnswer(d.Jobs[name]))
	}
	return httpio.List[any]{Key: "jobs", Items: out}, nil
}

func (c *call) getJob() (any, error) {
	s := c.s
	s.st.Mu.RLock()
	defer s.st.Mu.RUnlock()
	d, err := c.pathDeviceLocked()
	if err != nil {
		return nil, err
	}
	name := c.params["job_name"]
	j := d.Jobs[name]
	if j == nil {
		return nil, notFound("job %q not found on device %q", name, d.ID)
	}
	return map[string]any{"job": s.jobAnswer(j)}, nil
}

type jobBody struct {
	Value json.RawMessage `json:"value"`
}

// jobValue validates the optional "value" of a job body: a JSON object;
// absent or null means {}.
func jobValue(v json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(v)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return json.RawMessage("{}"), nil
	}
	if t[0] != '{' {
		return nil, invalidArgument("\"value\" must be a JSON object")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, t); err != nil {
		return nil, invalidArgument("\"value\" is not valid JSON: %v", err)
	}
	return float64Numbers(buf.Bytes())
}

// float64Numbers rewrites every number of the compact JSON text v as the
// service keeps numbers, a float64 (written as encoding/json writes one):
// 0.33333333333333333333 becomes 0.3333333333333333, 12345678901234567890
// becomes 12345678901234567000, 1e-400 becomes 0. A number beyond the
// float64 range is refused.
func float64Numbers(v []byte) ([]byte, error) {
	out := make([]byte, 0, len(v))
	for i := 0; i < len(v); {
		c := v[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(v) && v[j] != '"' {
				if v[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, v[i:min(j+1, len(v))]...)
			i = j + 1
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(v) && strings.IndexByte("0123456789.eE+-", v[j]) >= 0 {
				j++
			}
			f, err := strconv.ParseFloat(string(v[i:j]), 64)
			if err != nil {
				return nil, invalidArgument("\"value\" holds the number %s, which is out of range", v[i:j])
			}
			enc, err := json.Marshal(f)
			if err != nil {
				return nil, invalidArgument("\"value\" holds the number %s, which is out of range", v[i:j])
			}
			out = append(out, enc...)
			i = j
		default:
			out = append(out, c)
			i++
		}
	}
	return out, nil
}

func validJobName(name string) error { return store.ValidJobName(name) }

func validPathName(what, v string) error { return store.ValidPathName(what, v) }

// setJobLocked schedules (or reschedules) a job on a device.
func setJobLocked(d *device, name string, value json.RawMessage, at string) *job {
	j := &job{Name: name, Status: JobStatusPending, ScheduledAt: at, Value: value}
	if d.Jobs == nil {
		d.Jobs = map[string]*job{}
	}
	d.Jobs[name] = j
	return j
}

func (c *call) scheduleJob() (any, error) {
	s := c.s
	if err := c.checkDevicePath(); err != nil {
		return nil, err
	}
	name := c.params["job_name"]
	if err := validJobName(name); err != nil {
		return nil, err
	}
	var body jobBody
	if err := httpio.DecodeBody(c.w, c.r, &body, false); err != nil {
		return nil, err
	}
	value, err := jobValue(body.Value)
	if err != nil {
		return nil, err
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	d, err := c.pathDeviceLocked()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	w := s.st.Workspaces[d.WorkspaceID]
	j := setJobLocked(d, name, value, store.Timestamp(now))
	out := jobToJSON(j)
	s.st.Changed(d)
	s.emitLocked(w, []event{jobEvent(d, j, directionC2D, now)})
	s.planLocked(s.newPlannerLocked(w), d, target{job: j}, now)
	return map[string]any{"job": out}, nil
}

// fleetsFromQueryLocked resolves the repeatable "fleet" parameter to fleet
// IDs of w; no parameter means every fleet of w.
func (s *Server) fleetsFromQueryLocked(w *workspace, ids []string) (map[string]bool, error) {
	set := make(map[string]bool, len(ids))
	if len(ids) == 0 {
		for _, id := range w.Fleets {
			set[id] = true
		}
		return set, nil
	}
	for _, id := range ids {
		f := s.st.Fleets[id]
		switch {
		case f == nil:
			return nil, invalidArgument("query parameter \"fleet\": fleet %q not found", id)
		case f.WorkspaceID != w.ID:
			return nil, invalidArgument("query parameter \"fleet\": fleet %q belongs to another workspace, not %q", id, w.ID)
		}
		set[id] = true
	}
	return set, nil
}

// scheduleOnFleetsLocked applies schedule to every device of the path's
// workspace that is in the fleets named by fleetIDs (every fleet when none),
// records the change, emits the events schedule returns, and answers the IDs
// of the devices reached (never nil). Nothing changes when a fleet ID is
// invalid. s.st.Mu is held for writing.
func (c *call) scheduleOnFleetsLocked(fleetIDs []string, schedule func(d *device) (event, target)) ([]string, error) {
	s := c.s
	w, err := c.pathWorkspaceLocked()
	if err != nil {
		return nil, err
	}
	fleets, err := s.fleetsFromQueryLocked(w, fleetIDs)
	if err != nil {
		return nil, err
	}
	devices := []string{}
	var events []event
	var reached []*device
	var targets []target
	for _, id := range w.Devices {
		d := s.st.Devices[id]
		if !fleets[d.FleetID] {
			continue
		}
		ev, t := schedule(d)
		events = append(events, ev)
		targets = append(targets, t)
		devices = append(devices, d.ID)
		reached = append(reached, d)
	}
	s.st.Changed(store.DevicesChanged(reached)...)
	s.emitLocked(w, events)
	if p := s.newPlannerLocked(w); p != nil {
		now := time.Now()
		for i, id := range devices {
			s.planLocked(p, s.st.Devices[id], targets[i], now)
		}
	}
	return devices, nil
}

func (c *call) scheduleFleetJob() (any, error) {
	s := c.s
	if err := c.checkWorkspacePath(); err != nil {
		return nil, err
	}
	fleetIDs, err := httpio.RepeatedQuery(c.r.URL.Query(), "fleet")
	if err != nil {
		return nil, err
	}
	name := c.params["job_name"]
	if err := validJobName(name); err != nil {
		return nil, err
	}
	var body jobBody
	if err := httpio.DecodeBody(c.w, c.r, &body, false); err != nil {
		return nil, err
	}
	value, err := jobValue(body.Value)
	if err != nil {
		return nil, err
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	now := time.Now()
	at := store.Timestamp(now)
	devices, err := c.scheduleOnFleetsLocked(fleetIDs, func(d *device) (event, target) {
		j := setJobLocked(d, name, value, at)
		return jobEvent(d, j, directionC2D, now), target{job: j}
	})
	if err != nil {
		return nil, err
	}
	out := fleetJobJSON{jobJSON: jobJSON{Name: name, Status: JobStatusPending, ScheduledAt: at, Value: value}, Devices: devices}
	return map[string]any{"job": out}, nil
}

func (c *call) getFOTA() (any, error) {
	s := c.s
	s.st.Mu.RLock()
	defer s.st.Mu.RUnlock()
	d, err := c.pathDeviceLocked()
	if err != nil {
		return nil, err
	}
	if d.FOTA == nil {
		return s.missingFOTA(d.ID)
	}
	return map[string]any{"fota": fotaToJSON(d.FOTA)}, nil
}

func validFirmware(id, version string) error {
	if err := validPathName("firmware_id", id); err != nil {
		return err
	}
	return validPathName("firmware_version", version)
}

func (c *call) scheduleFOTA() (any, error) {
	s := c.s
	if err := c.checkDevicePath(); err != nil {
		return nil, err
	}
	fw, ver := c.params["firmware_id"], c.params["firmware_version"]
	if err := validFirmware(fw, ver); err != nil {
		return nil, err
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	d, err := c.pathDeviceLocked()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	w := s.st.Workspaces[d.WorkspaceID]
	d.FOTA = &fota{ScheduledAt: store.Timestamp(now), Status: FOTAStatusPending, FirmwareID: fw, FirmwareVersion: ver}
	out := fotaToJSON(d.FOTA)
	s.st.Changed(d)
	s.emitLocked(w, []event{fotaEvent(d, d.FOTA, directionC2D, now)})
	s.planLocked(s.newPlannerLocked(w), d, target{fota: d.FOTA}, now)
	return map[string]any{"fota": out}, nil
}

func (c *call) scheduleFleetFOTA() (any, error) {
	s := c.s
	if err := c.checkWorkspacePath(); err != nil {
		return nil, err
	}
	fw, ver := c.params["firmware_id"], c.params["firmware_version"]
	if err := validFirmware(fw, ver); err != nil {
		return nil, err
	}
	fleetIDs, err := httpio.RepeatedQuery(c.r.URL.Query(), "fleet")
	if err != nil {
		return nil, err
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	now := time.Now()
	at := store.Timestamp(now)
	devices, err := c.scheduleOnFleetsLocked(fleetIDs, func(d *device) (event, target) {
		d.FOTA = &fota{ScheduledAt: at, Status: FOTAStatusPending, FirmwareID: fw, FirmwareVersion: ver}
		return fotaEvent(d, d.FOTA, directionC2D, now), target{fota: d.FOTA}
	})
	if err != nil {
		return nil, err
	}
	out := fleetFOTAJSON{
		fotaJSON: fotaJSON{ScheduledAt: at, Status: FOTAStatusPending, Value: fotaValueJSON{FirmwareID: fw, FirmwareVersion: ver}},
		Devices:  devices,
	}
	return map[string]any{"fota": out}, nil
}

// deviceIDPrefix is the prefix of new device IDs (Choices.DeviceIDPrefix).
func (s *Server) deviceIDPrefix() string {
	if p := s.choices.Get().DeviceIDPrefix; p != "" {
		return p
	}
	return "dev-"
}

// newDeviceLocked creates a device with an ID of the prefix in use.
func (s *Server) newDeviceLocked(w *workspace, f *fleet, name string) *device {
	return s.st.NewDeviceLocked(s.deviceIDPrefix(), w, f, name)
}

// deviceJSONLocked renders a device; s.st.Mu must be held.
func (s *Server) deviceJSONLocked(d *device) deviceJSON {
	out := deviceJSON{
		ID: d.ID, Name: d.Name, AccountID: d.AccountID, FleetID: d.FleetID,
		WorkspaceID: d.WorkspaceID, CreatedAt: d.CreatedAt, PhysID: d.PhysID,
	}
	if len(d.Identities) > 0 {
		out.Identities = d.Identities
	}
	if f := s.st.Fleets[d.FleetID]; f != nil {
		out.FleetName = f.Name
	}
	if w := s.st.Workspaces[d.WorkspaceID]; w != nil {
		out.WorkspaceName = w.Name
	}
	return out
}
