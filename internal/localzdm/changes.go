package localzdm

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// A change is one mutation of the model, as recorded in the journal
// (Server.changed) and replayed at start-up (applyRecord). Records carry
// whole objects, not operations: replaying one sets the object to the value
// it had right after the change. The index lists (an account's workspaces, a
// workspace's fleets and devices) are not recorded: they follow from the
// creations and removals, in order.
type change interface {
	record() ([]byte, error)
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
	Account     *account          `json:"account,omitempty"`
	Workspace   *workspace        `json:"workspace,omitempty"`
	Fleet       *fleet            `json:"fleet,omitempty"`
	Device      *device           `json:"device,omitempty"`
	ID          string            `json:"id,omitempty"`
	Key         *keyRecord        `json:"key,omitempty"`
	Bootstrap   *Bootstrap        `json:"bootstrap,omitempty"`
	WorkspaceID string            `json:"workspace_id,omitempty"`
	Points      []json.RawMessage `json:"points,omitempty"`
	Model       *stateFile        `json:"model,omitempty"`
}

func (a *account) record() ([]byte, error) {
	c := *a
	c.Workspaces = nil
	return json.Marshal(journalRecord{Op: opAccount, Account: &c})
}

func (w *workspace) record() ([]byte, error) {
	c := *w
	c.Fleets, c.Devices = nil, nil
	return json.Marshal(journalRecord{Op: opWorkspace, Workspace: &c})
}

func (f *fleet) record() ([]byte, error) {
	return json.Marshal(journalRecord{Op: opFleet, Fleet: f})
}

func (d *device) record() ([]byte, error) {
	return json.Marshal(journalRecord{Op: opDevice, Device: d})
}

func (b *Bootstrap) record() ([]byte, error) {
	return json.Marshal(journalRecord{Op: opBootstrap, Bootstrap: b})
}

// gone records the removal of a device, a fleet, a workspace (with
// everything in it: devices, fleets, keys, data points) or an API key.
type gone struct{ op, id string }

func goneDevice(id string) gone    { return gone{opDeleteDevice, id} }
func goneFleet(id string) gone     { return gone{opDeleteFleet, id} }
func goneWorkspace(id string) gone { return gone{opDeleteWorkspace, id} }
func goneKey(key string) gone      { return gone{opDeleteKey, key} }

func (g gone) record() ([]byte, error) {
	return json.Marshal(journalRecord{Op: g.op, ID: g.id})
}

// apiKey records a key bound to a workspace.
type apiKey struct{ key, workspaceID string }

func (k apiKey) record() ([]byte, error) {
	return json.Marshal(journalRecord{Op: opKey, Key: &keyRecord{Key: k.key, WorkspaceID: k.workspaceID}})
}

// resetAll records Reset: everything is gone.
type resetAll struct{}

func (resetAll) record() ([]byte, error) {
	return json.Marshal(journalRecord{Op: opReset})
}

// pointBatch records a published batch (duplicates included: replaying it
// discards them again).
type pointBatch struct {
	workspaceID string
	points      []*point
}

func (b pointBatch) record() ([]byte, error) {
	ws, err := json.Marshal(b.workspaceID)
	if err != nil {
		return nil, err
	}
	n := 64 + len(ws)
	for _, p := range b.points {
		n += len(p.enc) + 1
	}
	buf := make([]byte, 0, n)
	buf = append(buf, `{"op":"points","workspace_id":`...)
	buf = append(buf, ws...)
	buf = append(buf, `,"points":[`...)
	for i, p := range b.points {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, p.enc...)
	}
	return append(buf, "]}"...), nil
}

// wholeModel records the whole model except data points.
type wholeModel struct{ s *Server }

func (m wholeModel) record() ([]byte, error) {
	st := m.s.copyModelLocked()
	st.Data = nil
	return json.Marshal(journalRecord{Op: opModel, Model: &st})
}

// applyRecord replays one journal record onto the model (s.mu and s.dataMu
// need not be held: the server is not serving yet). Each record applies to
// exactly the state it was recorded after, so anything it refers to must
// exist.
func (s *Server) applyRecord(payload []byte) error {
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
		d := s.devices[r.ID]
		if d == nil {
			return fmt.Errorf("removes unknown device %q", r.ID)
		}
		s.deleteDeviceLocked(d)
	case opDeleteFleet:
		f := s.fleets[r.ID]
		if f == nil {
			return fmt.Errorf("removes unknown fleet %q", r.ID)
		}
		s.deleteFleetLocked(f)
	case opDeleteWorkspace:
		w := s.workspaces[r.ID]
		if w == nil {
			return fmt.Errorf("removes unknown workspace %q", r.ID)
		}
		s.deleteWorkspaceLocked(w)
	case opDeleteKey:
		if _, ok := s.keys[r.ID]; !ok || r.ID == "" {
			return fmt.Errorf("revokes an unknown API key")
		}
		s.deleteKeyLocked(r.ID)
	case opKey:
		if r.Key == nil || r.Key.Key == "" || s.workspaces[r.Key.WorkspaceID] == nil {
			return fmt.Errorf("binds a key to an unknown workspace")
		}
		s.keys[r.Key.Key] = r.Key.WorkspaceID
	case opBootstrap:
		if r.Bootstrap == nil {
			return fmt.Errorf("bootstrap is null")
		}
		b := *r.Bootstrap
		s.bootstrap = &b
	case opPoints:
		if s.workspaces[r.WorkspaceID] == nil {
			return fmt.Errorf("data points of unknown workspace %q", r.WorkspaceID)
		}
		return s.restorePoints(r.WorkspaceID, r.Points)
	case opReset:
		s.resetStateLocked()
		s.series = map[string]*series{}
	case opModel:
		if r.Model == nil {
			return fmt.Errorf("model is null")
		}
		series := s.series
		if err := s.restore(r.Model); err != nil {
			return err
		}
		s.series = series
	default:
		return fmt.Errorf("unknown operation %q", r.Op)
	}
	return nil
}

func (s *Server) replayAccount(a *account) error {
	if a == nil || a.ID == "" {
		return fmt.Errorf("account without ID")
	}
	if old := s.accounts[a.ID]; old != nil {
		old.Name, old.CreatedAt = a.Name, a.CreatedAt
		return nil
	}
	if s.idTakenLocked(a.ID) {
		return fmt.Errorf("account ID %q is taken", a.ID)
	}
	a.Workspaces = []string{}
	s.accounts[a.ID] = a
	s.accountOrder = append(s.accountOrder, a.ID)
	return nil
}

func (s *Server) replayWorkspace(w *workspace) error {
	if w == nil || w.ID == "" {
		return fmt.Errorf("workspace without ID")
	}
	if old := s.workspaces[w.ID]; old != nil {
		if old.AccountID != w.AccountID {
			return fmt.Errorf("workspace %q moves to account %q", w.ID, w.AccountID)
		}
		w.Fleets, w.Devices = old.Fleets, old.Devices
		*old = *w
		return nil
	}
	a := s.accounts[w.AccountID]
	if a == nil {
		return fmt.Errorf("workspace %q of unknown account %q", w.ID, w.AccountID)
	}
	if s.idTakenLocked(w.ID) {
		return fmt.Errorf("workspace ID %q is taken", w.ID)
	}
	w.Fleets, w.Devices = []string{}, []string{}
	s.workspaces[w.ID] = w
	a.Workspaces = append(a.Workspaces, w.ID)
	return nil
}

func (s *Server) replayFleet(f *fleet) error {
	if f == nil || f.ID == "" {
		return fmt.Errorf("fleet without ID")
	}
	if old := s.fleets[f.ID]; old != nil {
		if old.WorkspaceID != f.WorkspaceID {
			return fmt.Errorf("fleet %q moves to workspace %q", f.ID, f.WorkspaceID)
		}
		*old = *f
		return nil
	}
	w := s.workspaces[f.WorkspaceID]
	if w == nil {
		return fmt.Errorf("fleet %q of unknown workspace %q", f.ID, f.WorkspaceID)
	}
	if s.idTakenLocked(f.ID) {
		return fmt.Errorf("fleet ID %q is taken", f.ID)
	}
	s.fleets[f.ID] = f
	w.Fleets = append(w.Fleets, f.ID)
	return nil
}

func (s *Server) replayDevice(d *device) error {
	if d == nil || d.ID == "" {
		return fmt.Errorf("device without ID")
	}
	if s.fleets[d.FleetID] == nil {
		return fmt.Errorf("device %q in unknown fleet %q", d.ID, d.FleetID)
	}
	if old := s.devices[d.ID]; old != nil {
		if old.WorkspaceID != d.WorkspaceID {
			return fmt.Errorf("device %q moves to workspace %q", d.ID, d.WorkspaceID)
		}
		*old = *d
		return nil
	}
	w := s.workspaces[d.WorkspaceID]
	if w == nil {
		return fmt.Errorf("device %q of unknown workspace %q", d.ID, d.WorkspaceID)
	}
	if s.idTakenLocked(d.ID) {
		return fmt.Errorf("device ID %q is taken", d.ID)
	}
	s.devices[d.ID] = d
	w.Devices = append(w.Devices, d.ID)
	return nil
}

// devicesChanged lists devices as changes.
func devicesChanged(ds []*device) []change {
	out := make([]change, len(ds))
	for i, d := range ds {
		out[i] = d
	}
	return out
}
