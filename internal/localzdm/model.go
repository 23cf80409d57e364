package localzdm

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"
)

// Job status values.
const (
	JobStatusPending = "pending"
	JobStatusDone    = "done"
)

// FOTAStatusPending is the status of a freshly scheduled FOTA.
const FOTAStatusPending = "pending"

// DefaultFleetName is the name of the fleet every workspace is created with.
const DefaultFleetName = "default"

// The records below are both the in-memory model and the state file format.

type account struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	CreatedAt  string   `json:"created_at"`
	Workspaces []string `json:"workspaces"`
}

type workspace struct {
	ID             string   `json:"id"`
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	AccountID      string   `json:"account_id"`
	CreatedAt      string   `json:"created_at"`
	DefaultFleetID string   `json:"default_fleet_id"`
	StorageEnabled bool     `json:"storage_enabled"`
	Webhook        string   `json:"webhook,omitempty"`
	Fleets         []string `json:"fleets"`
	Devices        []string `json:"devices"`
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
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	AccountID   string          `json:"account_id"`
	FleetID     string          `json:"fleet_id"`
	WorkspaceID string          `json:"workspace_id"`
	CreatedAt   string          `json:"created_at"`
	PhysID      string          `json:"phys_id"`
	Identities  json.RawMessage `json:"identities,omitempty"`
	Jobs        map[string]*job `json:"jobs,omitempty"`
	FOTA        *fota           `json:"fota,omitempty"`
}

type job struct {
	Name        string          `json:"name"`
	Status      string          `json:"status"`
	ScheduledAt string          `json:"scheduled_at"`
	Value       json.RawMessage `json:"value"`
}

type fota struct {
	ScheduledAt     string `json:"scheduled_at"`
	Status          string `json:"status"`
	FirmwareID      string `json:"firmware_id"`
	FirmwareVersion string `json:"firmware_version"`
}

// API shapes.

type workspaceJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	AccountID   string `json:"account_id"`
	Description string `json:"description"`
	CreatedAt   string `json:"created_at"`
}

type fleetJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	AccountID   string `json:"account_id"`
	WorkspaceID string `json:"workspace_id"`
	CreatedAt   string `json:"created_at"`
}

type deviceJSON struct {
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

type jobJSON struct {
	Name        string          `json:"name"`
	Status      string          `json:"status"`
	ScheduledAt string          `json:"scheduled_at"`
	Value       json.RawMessage `json:"value"`
}

type fleetJobJSON struct {
	jobJSON
	Devices []string `json:"devices"`
}

type fotaValueJSON struct {
	FirmwareID      string `json:"firmware_id"`
	FirmwareVersion string `json:"firmware_version"`
}

type fotaJSON struct {
	ScheduledAt string        `json:"scheduled_at"`
	Status      string        `json:"status"`
	Value       fotaValueJSON `json:"value"`
}

type fleetFOTAJSON struct {
	fotaJSON
	Devices []string `json:"devices"`
}

func (w *workspace) toJSON() workspaceJSON {
	return workspaceJSON{ID: w.ID, Name: w.Name, AccountID: w.AccountID, Description: w.Description, CreatedAt: w.CreatedAt}
}

func (f *fleet) toJSON() fleetJSON {
	return fleetJSON{ID: f.ID, Name: f.Name, Description: f.Description, AccountID: f.AccountID, WorkspaceID: f.WorkspaceID, CreatedAt: f.CreatedAt}
}

func (j *job) toJSON() jobJSON {
	return jobJSON{Name: j.Name, Status: j.Status, ScheduledAt: j.ScheduledAt, Value: j.Value}
}

func (f *fota) toJSON() fotaJSON {
	return fotaJSON{ScheduledAt: f.ScheduledAt, Status: f.Status, Value: fotaValueJSON{FirmwareID: f.FirmwareID, FirmwareVersion: f.FirmwareVersion}}
}

// deviceJSONLocked renders a device; s.mu must be held.
func (s *Server) deviceJSONLocked(d *device) deviceJSON {
	out := deviceJSON{
		ID: d.ID, Name: d.Name, AccountID: d.AccountID, FleetID: d.FleetID,
		WorkspaceID: d.WorkspaceID, CreatedAt: d.CreatedAt, PhysID: d.PhysID,
	}
	if len(d.Identities) > 0 {
		out.Identities = d.Identities
	}
	if f := s.fleets[d.FleetID]; f != nil {
		out.FleetName = f.Name
	}
	if w := s.workspaces[d.WorkspaceID]; w != nil {
		out.WorkspaceName = w.Name
	}
	return out
}

// timestamp formats t as RFC 3339 in UTC, with fractional seconds when set.
func timestamp(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails.
	return hex.EncodeToString(b)
}

// newIDLocked returns an unused ID with the given prefix; s.mu must be held
// for writing.
func (s *Server) newIDLocked(prefix string) string {
	for {
		id := prefix + randomHex(8)
		if !s.idTakenLocked(id) {
			return id
		}
	}
}

// idLocked returns id when set, else a new ID with the prefix.
func (s *Server) idLocked(id, prefix string) string {
	if id != "" {
		return id
	}
	return s.newIDLocked(prefix)
}

// idTakenLocked reports whether any object already has the ID.
func (s *Server) idTakenLocked(id string) bool {
	return s.accounts[id] != nil || s.workspaces[id] != nil || s.fleets[id] != nil || s.devices[id] != nil
}

func (s *Server) newAccountLocked(id, name string) *account {
	a := &account{ID: s.idLocked(id, "acc-"), Name: name, CreatedAt: timestamp(time.Now()), Workspaces: []string{}}
	s.accounts[a.ID] = a
	s.accountOrder = append(s.accountOrder, a.ID)
	return a
}

// newWorkspaceLocked creates a workspace and its default fleet.
func (s *Server) newWorkspaceLocked(id string, a *account, name, description string) *workspace {
	w := &workspace{
		ID: s.idLocked(id, "wks-"), Name: name, Description: description, AccountID: a.ID,
		CreatedAt: timestamp(time.Now()), Fleets: []string{}, Devices: []string{},
	}
	s.workspaces[w.ID] = w
	a.Workspaces = append(a.Workspaces, w.ID)
	f := s.newFleetLocked(w, DefaultFleetName, "")
	w.DefaultFleetID = f.ID
	return w
}

func (s *Server) newFleetLocked(w *workspace, name, description string) *fleet {
	f := &fleet{
		ID: s.newIDLocked("flt-"), Name: name, Description: description, AccountID: w.AccountID,
		WorkspaceID: w.ID, CreatedAt: timestamp(time.Now()),
	}
	s.fleets[f.ID] = f
	w.Fleets = append(w.Fleets, f.ID)
	return f
}

func (s *Server) newDeviceLocked(w *workspace, f *fleet, name string) *device {
	d := &device{
		ID: s.newIDLocked(s.deviceIDPrefix()), Name: name, AccountID: w.AccountID, FleetID: f.ID,
		WorkspaceID: w.ID, CreatedAt: timestamp(time.Now()),
	}
	s.devices[d.ID] = d
	w.Devices = append(w.Devices, d.ID)
	return d
}

// deviceIDPrefix is the prefix of new device IDs (Choices.DeviceIDPrefix).
func (s *Server) deviceIDPrefix() string {
	if p := s.choices.get().DeviceIDPrefix; p != "" {
		return p
	}
	return "dev-"
}

// newKeyLocked binds key (a new random one when empty) to w.
func (s *Server) newKeyLocked(w *workspace, key string) string {
	if key != "" {
		s.keys[key] = w.ID
		return key
	}
	for {
		k := "zdmk_" + randomHex(20)
		if _, taken := s.keys[k]; !taken {
			s.keys[k] = w.ID
			return k
		}
	}
}

// deleteDeviceLocked removes a device from its workspace.
func (s *Server) deleteDeviceLocked(d *device) {
	delete(s.devices, d.ID)
	if w := s.workspaces[d.WorkspaceID]; w != nil {
		if i := slices.Index(w.Devices, d.ID); i >= 0 {
			w.Devices = slices.Delete(w.Devices, i, i+1)
		}
	}
}

// deleteFleetLocked removes a fleet from its workspace.
func (s *Server) deleteFleetLocked(f *fleet) {
	delete(s.fleets, f.ID)
	if w := s.workspaces[f.WorkspaceID]; w != nil {
		if i := slices.Index(w.Fleets, f.ID); i >= 0 {
			w.Fleets = slices.Delete(w.Fleets, i, i+1)
		}
	}
}

// deleteWorkspaceLocked removes a workspace with its fleets, devices, keys
// and data points; s.dataMu must not be held.
func (s *Server) deleteWorkspaceLocked(w *workspace) {
	for _, id := range w.Devices {
		delete(s.devices, id)
	}
	for _, id := range w.Fleets {
		delete(s.fleets, id)
	}
	for k, ws := range s.keys {
		if ws == w.ID {
			delete(s.keys, k)
		}
	}
	if a := s.accounts[w.AccountID]; a != nil {
		if i := slices.Index(a.Workspaces, w.ID); i >= 0 {
			a.Workspaces = slices.Delete(a.Workspaces, i, i+1)
		}
	}
	delete(s.workspaces, w.ID)
	if s.bootstrap != nil && s.bootstrap.WorkspaceID == w.ID {
		s.bootstrap = nil // EnsureBootstrap makes a new one
	}
	s.dataMu.Lock()
	delete(s.series, w.ID)
	s.dataMu.Unlock()
}

// deleteKeyLocked revokes an API key. A bootstrap record of the key is
// dropped with it: EnsureBootstrap makes a new one.
func (s *Server) deleteKeyLocked(key string) {
	delete(s.keys, key)
	if s.bootstrap != nil && s.bootstrap.APIKey == key {
		s.bootstrap = nil
	}
}

// validJobStatus reports whether status is a job status.
func validJobStatus(status string) bool {
	return status == JobStatusPending || status == JobStatusDone
}

// resetStateLocked empties the model.
func (s *Server) resetStateLocked() {
	s.accounts = map[string]*account{}
	s.accountOrder = nil
	s.workspaces = map[string]*workspace{}
	s.fleets = map[string]*fleet{}
	s.devices = map[string]*device{}
	s.keys = map[string]string{}
	s.bootstrap = nil
}
