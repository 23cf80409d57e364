package localzdm

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/faults"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/httpio"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/store"
)

// Bootstrap describes an account, a workspace of it and an API key bound to
// the workspace.
type Bootstrap = store.Bootstrap

// DefaultBootstrapName names the account and workspace of Bootstrap("") and
// of EnsureBootstrap when no name is given.
const DefaultBootstrapName = "local"

// CreateAccount creates an account and returns its ID.
func (s *Server) CreateAccount(name string) (string, error) {
	n, err := httpio.RequireName("name", &name)
	if err != nil {
		return "", err
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	a := s.st.NewAccountLocked("", n)
	s.st.Changed(a)
	return a.ID, nil
}

// CreateWorkspace creates a workspace of an account, with its default fleet
// and a new API key bound to it.
func (s *Server) CreateWorkspace(accountID, name string) (Bootstrap, error) {
	n, err := httpio.RequireName("name", &name)
	if err != nil {
		return Bootstrap{}, err
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	a := s.st.Accounts[accountID]
	if a == nil {
		return Bootstrap{}, notFound("account %q not found", accountID)
	}
	w := s.st.NewWorkspaceLocked("", a, n, "")
	key := s.st.NewKeyLocked(w, "")
	s.st.Changed(w, s.st.Fleets[w.DefaultFleetID], store.KeyChange(key, w.ID))
	return Bootstrap{AccountID: a.ID, WorkspaceID: w.ID, WorkspaceName: w.Name, APIKey: key}, nil
}

// Bootstrap creates an account and a workspace both named name (default
// DefaultBootstrapName), and an API key bound to the workspace.
func (s *Server) Bootstrap(name string) (Bootstrap, error) {
	if strings.TrimSpace(name) == "" {
		name = DefaultBootstrapName
	}
	n, err := httpio.RequireName("name", &name)
	if err != nil {
		return Bootstrap{}, err
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	a := s.st.NewAccountLocked("", n)
	w := s.st.NewWorkspaceLocked("", a, n, "")
	key := s.st.NewKeyLocked(w, "")
	s.st.Changed(a, w, s.st.Fleets[w.DefaultFleetID], store.KeyChange(key, w.ID))
	return Bootstrap{AccountID: a.ID, WorkspaceID: w.ID, WorkspaceName: w.Name, APIKey: key}, nil
}

// EnsureBootstrap returns a bootstrap matching b, creating what is missing:
// fields left empty are filled in (new IDs, a new key, name
// DefaultBootstrapName), fields set are used as given and reused when they
// already exist. The result of the previous call is remembered (in the state
// file too): while its key is valid and it agrees with every field set in b,
// it is returned as is, so a restarted server prints the same key.
func (s *Server) EnsureBootstrap(b Bootstrap) (Bootstrap, error) {
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	if sb := s.st.Boot; sb != nil && sb.Matches(b) {
		if ws, ok := s.st.Keys[sb.APIKey]; ok && ws == sb.WorkspaceID && s.st.Workspaces[ws] != nil {
			return *sb, nil
		}
	}
	name := b.WorkspaceName
	if strings.TrimSpace(name) == "" {
		name = DefaultBootstrapName
	}
	if _, err := httpio.RequireName("workspace_name", &name); err != nil {
		return Bootstrap{}, err
	}
	if b.APIKey != "" {
		if ws, ok := s.st.Keys[b.APIKey]; ok {
			if b.WorkspaceID != "" && b.WorkspaceID != ws {
				return Bootstrap{}, conflict("API key is bound to workspace %q, not %q", ws, b.WorkspaceID)
			}
			b.WorkspaceID = ws
		}
	}
	var w *workspace
	if b.WorkspaceID != "" {
		w = s.st.Workspaces[b.WorkspaceID]
		if w == nil && s.st.IDTakenLocked(b.WorkspaceID) {
			return Bootstrap{}, conflict("ID %q is taken by an object that is not a workspace", b.WorkspaceID)
		}
	}
	if w != nil {
		if b.AccountID != "" && b.AccountID != w.AccountID {
			return Bootstrap{}, conflict("workspace %q belongs to account %q, not %q", w.ID, w.AccountID, b.AccountID)
		}
	} else {
		a := s.st.Accounts[b.AccountID]
		if a == nil {
			if b.AccountID != "" && s.st.IDTakenLocked(b.AccountID) {
				return Bootstrap{}, conflict("ID %q is taken by an object that is not an account", b.AccountID)
			}
			a = s.st.NewAccountLocked(b.AccountID, name)
		}
		w = s.st.NewWorkspaceLocked(b.WorkspaceID, a, name, "")
	}
	key := b.APIKey
	if _, ok := s.st.Keys[key]; !ok || key == "" {
		key = s.st.NewKeyLocked(w, key)
	}
	out := Bootstrap{AccountID: w.AccountID, WorkspaceID: w.ID, WorkspaceName: w.Name, APIKey: key}
	s.st.Boot = &out
	s.st.Changed(s.st.Accounts[w.AccountID], w, s.st.Fleets[w.DefaultFleetID], store.KeyChange(key, w.ID), s.st.Boot)
	return out, nil
}

// CreateKey creates a new API key bound to a workspace.
func (s *Server) CreateKey(workspaceID string) (string, error) {
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	w := s.st.Workspaces[workspaceID]
	if w == nil {
		return "", notFound("workspace %q not found", workspaceID)
	}
	key := s.st.NewKeyLocked(w, "")
	s.st.Changed(store.KeyChange(key, w.ID))
	return key, nil
}

// SetJobStatus moves a job of a device to "pending" or "done" and emits a
// "job" event (direction d2c).
func (s *Server) SetJobStatus(deviceID, jobName, status string) error {
	if status != JobStatusPending && status != JobStatusDone {
		return invalidArgument("\"status\" must be %q or %q, not %q", JobStatusPending, JobStatusDone, status)
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	d := s.st.Devices[deviceID]
	if d == nil {
		return notFound("device %q not found", deviceID)
	}
	j := d.Jobs[jobName]
	if j == nil {
		return notFound("job %q not found on device %q", jobName, deviceID)
	}
	j.Status = status
	s.st.Changed(d)
	s.emitLocked(s.st.Workspaces[d.WorkspaceID], []event{jobEvent(d, j, directionD2C, time.Now())})
	return nil
}

var fotaStatusRE = store.FOTAStatusRE

// SetFOTAStatus sets the status of a device's current FOTA (any lower-case
// word such as "done" or "failed") and emits a "fota" event (direction d2c).
func (s *Server) SetFOTAStatus(deviceID, status string) error {
	if !fotaStatusRE.MatchString(status) {
		return invalidArgument("\"status\" must be a lower-case word of at most 32 characters (e.g. \"done\", \"failed\"), not %q", status)
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	d := s.st.Devices[deviceID]
	if d == nil {
		return notFound("device %q not found", deviceID)
	}
	if d.FOTA == nil {
		return notFound("no FOTA scheduled on device %q", deviceID)
	}
	d.FOTA.Status = status
	s.st.Changed(d)
	s.emitLocked(s.st.Workspaces[d.WorkspaceID], []event{fotaEvent(d, d.FOTA, directionD2C, time.Now())})
	return nil
}

// SetDeviceIdentities sets the phys_id and identities of a device, as
// provisioning would. identities must be a JSON array of objects; empty,
// null and [] mean none, answered as null.
func (s *Server) SetDeviceIdentities(deviceID, physID string, identities json.RawMessage) error {
	ids := bytes.TrimSpace(identities)
	if len(ids) == 0 || bytes.Equal(ids, []byte("null")) {
		ids = nil
	} else {
		var arr []map[string]any
		if err := json.Unmarshal(ids, &arr); err != nil {
			return invalidArgument("\"identities\" must be a JSON array of objects or null: %v", err)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, ids); err != nil {
			return invalidArgument("\"identities\" is not valid JSON: %v", err)
		}
		ids = buf.Bytes()
		if len(arr) == 0 {
			ids = nil // none is answered as null
		}
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	d := s.st.Devices[deviceID]
	if d == nil {
		return notFound("device %q not found", deviceID)
	}
	d.PhysID = physID
	d.Identities = ids
	s.st.Changed(d)
	return nil
}

// DeleteDevice deletes a device with its jobs and FOTA, as if it was
// removed outside Terraform. Its stored data points stay.
func (s *Server) DeleteDevice(deviceID string) error {
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	d := s.st.Devices[deviceID]
	if d == nil {
		return notFound("device %q not found", deviceID)
	}
	s.st.DeleteDeviceLocked(d)
	s.st.Changed(store.GoneDevice(d.ID))
	return nil
}

// DeleteFleet deletes an empty fleet. The default fleet and fleets that hold
// devices cannot be deleted (409).
func (s *Server) DeleteFleet(fleetID string) error {
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	f := s.st.Fleets[fleetID]
	if f == nil {
		return notFound("fleet %q not found", fleetID)
	}
	w := s.st.Workspaces[f.WorkspaceID]
	if w.DefaultFleetID == f.ID {
		return conflict("fleet %q is the default fleet of workspace %q", f.ID, w.ID)
	}
	n := 0
	for _, id := range w.Devices {
		if s.st.Devices[id].FleetID == f.ID {
			n++
		}
	}
	if n > 0 {
		return conflict("fleet %q still holds %d devices; delete or move them first", f.ID, n)
	}
	s.st.DeleteFleetLocked(f)
	s.st.Changed(store.GoneFleet(f.ID))
	return nil
}

// DeleteWorkspace deletes a workspace with its fleets, devices, data points
// and webhook, and revokes the API keys bound to it.
func (s *Server) DeleteWorkspace(workspaceID string) error {
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	w := s.st.Workspaces[workspaceID]
	if w == nil {
		return notFound("workspace %q not found", workspaceID)
	}
	s.st.DeleteWorkspaceLocked(w)
	s.st.Changed(store.GoneWorkspace(w.ID))
	return nil
}

// CreateDevices creates devices named names in a fleet of a workspace (""
// means the default fleet), out of band, and returns their IDs in order. All
// names are validated first: on error nothing is created.
func (s *Server) CreateDevices(workspaceID, fleetID string, names []string) ([]string, error) {
	for i := range names {
		if _, err := httpio.RequireName("names["+strconv.Itoa(i)+"]", &names[i]); err != nil {
			return nil, err
		}
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	w := s.st.Workspaces[workspaceID]
	if w == nil {
		return nil, notFound("workspace %q not found", workspaceID)
	}
	f, err := s.fleetForDeviceLocked(w, &fleetID, w.DefaultFleetID)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(names))
	created := make([]*device, len(names))
	for i, n := range names {
		created[i] = s.newDeviceLocked(w, f, n)
		ids[i] = created[i].ID
	}
	s.st.Changed(store.DevicesChanged(created)...)
	return ids, nil
}

// Reset deletes all state (accounts, workspaces, keys, data points,
// webhooks) but the bootstrap of EnsureBootstrap (its account, its
// workspace, empty, and its API key keep their IDs, so the lines zdm-local
// wrote stay valid), zeroes the counters, clears the faults and the planned device
// answers, returns to the choices and device behavior of Options and drops
// queued webhook batches.
func (s *Server) Reset() {
	s.st.Mu.Lock()
	s.st.DataMu.Lock()
	changes := s.st.ResetKeepingBootLocked()
	s.st.Series = map[string]*series{}
	s.st.Changed(changes...)
	s.st.DataMu.Unlock()
	s.st.Mu.Unlock()
	s.ResetCounters()
	s.faults.SetFaults(faults.Faults{})
	s.faults.ClearRequestFaults()
	s.choices.Set(s.opts.Choices)
	s.clearAnswers()
	s.st.Mu.Lock()
	s.behavior = s.opts.DeviceBehavior.Normalized()
	s.healthAt = map[string]time.Time{}
	s.st.Mu.Unlock()
	s.hooks.Clear()
}

// PurgeJob deletes the record of a job of a device, as a service that
// forgets finished jobs would; the device stays.
func (s *Server) PurgeJob(deviceID, jobName string) error {
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	d := s.st.Devices[deviceID]
	if d == nil {
		return notFound("device %q not found", deviceID)
	}
	if d.Jobs[jobName] == nil {
		return notFound("job %q not found on device %q", jobName, deviceID)
	}
	delete(d.Jobs, jobName)
	s.st.Changed(d)
	return nil
}

// PurgeFOTA deletes the FOTA record of a device: GET .../fota then answers
// as for a device that never had one (see Choices.MissingFOTA).
func (s *Server) PurgeFOTA(deviceID string) error {
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	d := s.st.Devices[deviceID]
	if d == nil {
		return notFound("device %q not found", deviceID)
	}
	if d.FOTA == nil {
		return notFound("no FOTA scheduled on device %q", deviceID)
	}
	d.FOTA = nil
	s.st.Changed(d)
	return nil
}

// RenameFleet renames a fleet, as if it was renamed outside Terraform.
func (s *Server) RenameFleet(fleetID, name string) error {
	n, err := httpio.RequireName("name", &name)
	if err != nil {
		return err
	}
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	f := s.st.Fleets[fleetID]
	if f == nil {
		return notFound("fleet %q not found", fleetID)
	}
	f.Name = n
	s.st.Changed(f)
	return nil
}

// MoveDevice moves a device to another fleet of its workspace, as if it was
// moved outside Terraform. Its stored data points keep their fleet.
func (s *Server) MoveDevice(deviceID, fleetID string) error {
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	d := s.st.Devices[deviceID]
	if d == nil {
		return notFound("device %q not found", deviceID)
	}
	f := s.st.Fleets[fleetID]
	switch {
	case f == nil:
		return notFound("fleet %q not found", fleetID)
	case f.WorkspaceID != d.WorkspaceID:
		return conflict("fleet %q is in workspace %q, device %q in workspace %q", f.ID, f.WorkspaceID, d.ID, d.WorkspaceID)
	}
	d.FleetID = f.ID
	s.st.Changed(d)
	return nil
}

// RevokeKey revokes an API key, as if it was revoked in the web console:
// requests with it then answer 401.
func (s *Server) RevokeKey(apiKey string) error {
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	if _, ok := s.st.Keys[apiKey]; !ok || apiKey == "" {
		return notFound("no such API key")
	}
	s.st.DeleteKeyLocked(apiKey)
	s.st.Changed(store.GoneKey(apiKey))
	return nil
}
