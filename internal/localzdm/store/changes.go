package store

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// A Change is one mutation of the model, as recorded in the journal
// (Store.Changed) and replayed at start-up (applyRecord). Records carry
// whole objects, not operations: replaying one sets the object to the value
// it had right after the change. The index lists (an account's workspaces, a
// workspace's fleets and devices) are not recorded: they follow from the
// creations and removals, in order.
type Change interface {
	Record() ([]byte, error)
}

// Record operations.
const (
	opAccount         = "account"
	opWorkspace       = "workspace"
	opFleet           = "fleet"
	opDevice          = "device"
	opDeleteDevice    = "delete_device"
	opDeleteFleet     = "delete_fleet"
	opDeleteWorkspace = "delete_workspace"
	opDeleteKey       = "delete_key"
	opKey             = "key"
	opBootstrap       = "bootstrap"
	opPoints          = "points"
	opReset           = "reset"
	opModel           = "model"
)

// journalRecord is the payload of a journal record.
type journalRecord struct {
	Op          string            `json:"op"`
	Account     *Account          `json:"account,omitempty"`
	Workspace   *Workspace        `json:"workspace,omitempty"`
	Fleet       *Fleet            `json:"fleet,omitempty"`
	Device      *Device           `json:"device,omitempty"`
	ID          string            `json:"id,omitempty"`
	Key         *KeyRecord        `json:"key,omitempty"`
	Bootstrap   *Bootstrap        `json:"bootstrap,omitempty"`
	WorkspaceID string            `json:"workspace_id,omitempty"`
	Points      []json.RawMessage `json:"points,omitempty"`
	Model       *StateFile        `json:"model,omitempty"`
}

func (a *Account) Record() ([]byte, error) {
	c := *a
	c.Workspaces = nil
	return json.Marshal(journalRecord{Op: opAccount, Account: &c})
}

func (w *Workspace) Record() ([]byte, error) {
	c := *w
	c.Fleets, c.Devices = nil, nil
	return json.Marshal(journalRecord{Op: opWorkspace, Workspace: &c})
}

func (f *Fleet) Record() ([]byte, error) {
	return json.Marshal(journalRecord{Op: opFleet, Fleet: f})
}

func (d *Device) Record() ([]byte, error) {
	return json.Marshal(journalRecord{Op: opDevice, Device: d})
}

func (b *Bootstrap) Record() ([]byte, error) {
	return json.Marshal(journalRecord{Op: opBootstrap, Bootstrap: b})
}

// gone records the removal of a device, a fleet, a workspace (with
// everything in it: devices, fleets, keys, data points) or an API key.
type gone struct{ op, id string }

// GoneDevice records the removal of a device.
func GoneDevice(id string) Change { return gone{opDeleteDevice, id} }

// GoneFleet records the removal of a fleet.
func GoneFleet(id string) Change { return gone{opDeleteFleet, id} }

// GoneWorkspace records the removal of a workspace with everything in it.
func GoneWorkspace(id string) Change { return gone{opDeleteWorkspace, id} }

// GoneKey records the revocation of an API key.
func GoneKey(key string) Change { return gone{opDeleteKey, key} }

func (g gone) Record() ([]byte, error) {
	return json.Marshal(journalRecord{Op: g.op, ID: g.id})
}

// apiKey records a key bound to a workspace.
type apiKey struct{ key, workspaceID string }

// KeyChange records a key bound to a workspace.
func KeyChange(key, workspaceID string) Change { return apiKey{key, workspaceID} }

func (k apiKey) Record() ([]byte, error) {
	return json.Marshal(journalRecord{Op: opKey, Key: &KeyRecord{Key: k.key, WorkspaceID: k.workspaceID}})
}

// resetAll records Reset: everything is gone.
type resetAll struct{}

// ResetAll records Reset: everything is gone.
func ResetAll() Change { return resetAll{} }

func (resetAll) Record() ([]byte, error) {
	return json.Marshal(journalRecord{Op: opReset})
}

// pointBatch records a published batch (duplicates included: replaying it
// discards them again).
// PointBatch records a published batch of data points of a workspace.
func PointBatch(workspaceID string, points []*Point) Change {
	return pointBatch{workspaceID: workspaceID, points: points}
}

type pointBatch struct {
	workspaceID string
	points      []*Point
}

func (b pointBatch) Record() ([]byte, error) {
	ws, err := json.Marshal(b.workspaceID)
	if err != nil {
		return nil, err
	}
	n := 64 + len(ws)
	for _, p := range b.points {
		n += len(p.Enc) + 1
	}
	buf := make([]byte, 0, n)
	buf = append(buf, `{"op":"points","workspace_id":`...)
	buf = append(buf, ws...)
	buf = append(buf, `,"points":[`...)
	for i, p := range b.points {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, p.Enc...)
	}
	return append(buf, "]}"...), nil
}

// wholeModel records the whole model except data points.
type wholeModel struct{ s *Store }

func (m wholeModel) Record() ([]byte, error) {
	st := m.s.CopyModelLocked()
	st.Data = nil
	return json.Marshal(journalRecord{Op: opModel, Model: &st})
}

// applyRecord replays one journal record onto the model (s.Mu and s.DataMu
// need not be held: the server is not serving yet). Each record applies to
// exactly the state it was recorded after, so anything it refers to must
// exist.
func (s *Store) applyRecord(payload []byte) error {
	var r journalRecord
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return err
	}
	switch r.Op {
	case opAccount:
		return s.replayAccount(r.Account)
	case opWorkspace:
		return s.replayWorkspace(r.Workspace)
	case opFleet:
		return s.replayFleet(r.Fleet)
	case opDevice:
		return s.replayDevice(r.Device)
	case opDeleteDevice:
		d := s.Devices[r.ID]
		if d == nil {
			return fmt.Errorf("removes unknown device %q", r.ID)
		}
		s.DeleteDeviceLocked(d)
	case opDeleteFleet:
		f := s.Fleets[r.ID]
		if f == nil {
			return fmt.Errorf("removes unknown fleet %q", r.ID)
		}
		s.DeleteFleetLocked(f)
	case opDeleteWorkspace:
		w := s.Workspaces[r.ID]
		if w == nil {
			return fmt.Errorf("removes unknown workspace %q", r.ID)
		}
		s.DeleteWorkspaceLocked(w)
	case opDeleteKey:
		if _, ok := s.Keys[r.ID]; !ok || r.ID == "" {
			return fmt.Errorf("revokes an unknown API key")
		}
		s.DeleteKeyLocked(r.ID)
	case opKey:
		if r.Key == nil || r.Key.Key == "" || s.Workspaces[r.Key.WorkspaceID] == nil {
			return fmt.Errorf("binds a key to an unknown workspace")
		}
		s.Keys[r.Key.Key] = r.Key.WorkspaceID
	case opBootstrap:
		if r.Bootstrap == nil {
			return fmt.Errorf("bootstrap is null")
		}
		b := *r.Bootstrap
		s.Boot = &b
	case opPoints:
		if s.Workspaces[r.WorkspaceID] == nil {
			return fmt.Errorf("data points of unknown workspace %q", r.WorkspaceID)
		}
		return s.restorePoints(r.WorkspaceID, r.Points)
	case opReset:
		s.ResetStateLocked()
		s.Series = map[string]*Series{}
	case opModel:
		if r.Model == nil {
			return fmt.Errorf("model is null")
		}
		series := s.Series
		if err := s.Restore(r.Model); err != nil {
			return err
		}
		s.Series = series
	default:
		return fmt.Errorf("unknown operation %q", r.Op)
	}
	return nil
}

func (s *Store) replayAccount(a *Account) error {
	if a == nil || a.ID == "" {
		return fmt.Errorf("account without ID")
	}
	if old := s.Accounts[a.ID]; old != nil {
		old.Name, old.CreatedAt = a.Name, a.CreatedAt
		return nil
	}
	if s.IDTakenLocked(a.ID) {
		return fmt.Errorf("account ID %q is taken", a.ID)
	}
	a.Workspaces = []string{}
	s.Accounts[a.ID] = a
	s.AccountOrder = append(s.AccountOrder, a.ID)
	return nil
}

func (s *Store) replayWorkspace(w *Workspace) error {
	if w == nil || w.ID == "" {
		return fmt.Errorf("workspace without ID")
	}
	if old := s.Workspaces[w.ID]; old != nil {
		if old.AccountID != w.AccountID {
			return fmt.Errorf("workspace %q moves to account %q", w.ID, w.AccountID)
		}
		w.Fleets, w.Devices = old.Fleets, old.Devices
		*old = *w
		return nil
	}
	a := s.Accounts[w.AccountID]
	if a == nil {
		return fmt.Errorf("workspace %q of unknown account %q", w.ID, w.AccountID)
	}
	if s.IDTakenLocked(w.ID) {
		return fmt.Errorf("workspace ID %q is taken", w.ID)
	}
	w.Fleets, w.Devices = []string{}, []string{}
	s.Workspaces[w.ID] = w
	a.Workspaces = append(a.Workspaces, w.ID)
	return nil
}

func (s *Store) replayFleet(f *Fleet) error {
	if f == nil || f.ID == "" {
		return fmt.Errorf("fleet without ID")
	}
	if old := s.Fleets[f.ID]; old != nil {
		if old.WorkspaceID != f.WorkspaceID {
			return fmt.Errorf("fleet %q moves to workspace %q", f.ID, f.WorkspaceID)
		}
		*old = *f
		return nil
	}
	w := s.Workspaces[f.WorkspaceID]
	if w == nil {
		return fmt.Errorf("fleet %q of unknown workspace %q", f.ID, f.WorkspaceID)
	}
	if s.IDTakenLocked(f.ID) {
		return fmt.Errorf("fleet ID %q is taken", f.ID)
	}
	s.Fleets[f.ID] = f
	w.Fleets = append(w.Fleets, f.ID)
	return nil
}

func (s *Store) replayDevice(d *Device) error {
	if d == nil || d.ID == "" {
		return fmt.Errorf("device without ID")
	}
	if s.Fleets[d.FleetID] == nil {
		return fmt.Errorf("device %q in unknown fleet %q", d.ID, d.FleetID)
	}
	if old := s.Devices[d.ID]; old != nil {
		if old.WorkspaceID != d.WorkspaceID {
			return fmt.Errorf("device %q moves to workspace %q", d.ID, d.WorkspaceID)
		}
		*old = *d
		return nil
	}
	w := s.Workspaces[d.WorkspaceID]
	if w == nil {
		return fmt.Errorf("device %q of unknown workspace %q", d.ID, d.WorkspaceID)
	}
	if s.IDTakenLocked(d.ID) {
		return fmt.Errorf("device ID %q is taken", d.ID)
	}
	s.Devices[d.ID] = d
	w.Devices = append(w.Devices, d.ID)
	return nil
}

// DevicesChanged lists devices as changes.
func DevicesChanged(ds []*Device) []Change {
	out := make([]Change, len(ds))
	for i, d := range ds {
		out[i] = d
	}
	return out
}
