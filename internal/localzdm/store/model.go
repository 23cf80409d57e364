package store

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/apierr"
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

// Bootstrap is recorded too.

// Bootstrap describes an account, a workspace of it and an API key bound to
// the workspace.
type Bootstrap struct {
	AccountID     string `json:"account_id"`
	WorkspaceID   string `json:"workspace_id"`
	WorkspaceName string `json:"workspace_name"`
	APIKey        string `json:"api_key"`
}

// Matches reports whether b agrees with every non-empty field of want.
func (b *Bootstrap) Matches(want Bootstrap) bool {
	eq := func(have, want string) bool { return want == "" || have == want }
	return eq(b.AccountID, want.AccountID) && eq(b.WorkspaceID, want.WorkspaceID) &&
		eq(b.WorkspaceName, want.WorkspaceName) && eq(b.APIKey, want.APIKey)
}

// The records below are both the in-memory model and the state file format.

type Account struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	CreatedAt  string   `json:"created_at"`
	Workspaces []string `json:"workspaces"`
}

type Workspace struct {
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

type Fleet struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	AccountID   string `json:"account_id"`
	WorkspaceID string `json:"workspace_id"`
	CreatedAt   string `json:"created_at"`
}

type Device struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	AccountID   string          `json:"account_id"`
	FleetID     string          `json:"fleet_id"`
	WorkspaceID string          `json:"workspace_id"`
	CreatedAt   string          `json:"created_at"`
	PhysID      string          `json:"phys_id"`
	Identities  json.RawMessage `json:"identities,omitempty"`
	Jobs        map[string]*Job `json:"jobs,omitempty"`
	FOTA        *FOTA           `json:"fota,omitempty"`
}

type Job struct {
	Name        string          `json:"name"`
	Status      string          `json:"status"`
	ScheduledAt string          `json:"scheduled_at"`
	Value       json.RawMessage `json:"value"`
}

type FOTA struct {
	ScheduledAt     string `json:"scheduled_at"`
	Status          string `json:"status"`
	FirmwareID      string `json:"firmware_id"`
	FirmwareVersion string `json:"firmware_version"`
}

// Timestamp formats t as RFC 3339 in UTC, with fractional seconds when set.
func Timestamp(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails.
	return hex.EncodeToString(b)
}

// newIDLocked returns an unused ID with the given prefix; s.Mu must be held
// for writing.
func (s *Store) newIDLocked(prefix string) string {
	for {
		id := prefix + randomHex(8)
		if !s.IDTakenLocked(id) {
			return id
		}
	}
}

// IDLocked returns id when set, else a new ID with the prefix.
func (s *Store) IDLocked(id, prefix string) string {
	if id != "" {
		return id
	}
	return s.newIDLocked(prefix)
}

// IDTakenLocked reports whether any object already has the ID.
func (s *Store) IDTakenLocked(id string) bool {
	return s.Accounts[id] != nil || s.Workspaces[id] != nil || s.Fleets[id] != nil || s.Devices[id] != nil
}

func (s *Store) NewAccountLocked(id, name string) *Account {
	a := &Account{ID: s.IDLocked(id, "acc-"), Name: name, CreatedAt: Timestamp(time.Now()), Workspaces: []string{}}
	s.Accounts[a.ID] = a
	s.AccountOrder = append(s.AccountOrder, a.ID)
	return a
}

// NewWorkspaceLocked creates a workspace and its default fleet.
func (s *Store) NewWorkspaceLocked(id string, a *Account, name, description string) *Workspace {
	w := &Workspace{
		ID: s.IDLocked(id, "wks-"), Name: name, Description: description, AccountID: a.ID,
		CreatedAt: Timestamp(time.Now()), Fleets: []string{}, Devices: []string{},
	}
	s.Workspaces[w.ID] = w
	a.Workspaces = append(a.Workspaces, w.ID)
	f := s.NewFleetLocked(w, DefaultFleetName, "")
	w.DefaultFleetID = f.ID
	return w
}

func (s *Store) NewFleetLocked(w *Workspace, name, description string) *Fleet {
	f := &Fleet{
		ID: s.newIDLocked("flt-"), Name: name, Description: description, AccountID: w.AccountID,
		WorkspaceID: w.ID, CreatedAt: Timestamp(time.Now()),
	}
	s.Fleets[f.ID] = f
	w.Fleets = append(w.Fleets, f.ID)
	return f
}

func (s *Store) NewDeviceLocked(prefix string, w *Workspace, f *Fleet, name string) *Device {
	d := &Device{
		ID: s.newIDLocked(prefix), Name: name, AccountID: w.AccountID, FleetID: f.ID,
		WorkspaceID: w.ID, CreatedAt: Timestamp(time.Now()),
	}
	s.Devices[d.ID] = d
	w.Devices = append(w.Devices, d.ID)
	return d
}

// NewKeyLocked binds key (a new random one when empty) to w.
func (s *Store) NewKeyLocked(w *Workspace, key string) string {
	if key != "" {
		s.Keys[key] = w.ID
		return key
	}
	for {
		k := "zdmk_" + randomHex(20)
		if _, taken := s.Keys[k]; !taken {
			s.Keys[k] = w.ID
			return k
		}
	}
}

// DeleteDeviceLocked removes a device from its workspace.
func (s *Store) DeleteDeviceLocked(d *Device) {
	delete(s.Devices, d.ID)
	if w := s.Workspaces[d.WorkspaceID]; w != nil {
		if i := slices.Index(w.Devices, d.ID); i >= 0 {
			w.Devices = slices.Delete(w.Devices, i, i+1)
		}
	}
}

// DeleteFleetLocked removes a fleet from its workspace.
func (s *Store) DeleteFleetLocked(f *Fleet) {
	delete(s.Fleets, f.ID)
	if w := s.Workspaces[f.WorkspaceID]; w != nil {
		if i := slices.Index(w.Fleets, f.ID); i >= 0 {
			w.Fleets = slices.Delete(w.Fleets, i, i+1)
		}
	}
}

// DeleteWorkspaceLocked removes a workspace with its fleets, devices, keys
// and data points; s.DataMu must not be held.
func (s *Store) DeleteWorkspaceLocked(w *Workspace) {
	for _, id := range w.Devices {
		delete(s.Devices, id)
	}
	for _, id := range w.Fleets {
		delete(s.Fleets, id)
	}
	for k, ws := range s.Keys {
		if ws == w.ID {
			delete(s.Keys, k)
		}
	}
	if a := s.Accounts[w.AccountID]; a != nil {
		if i := slices.Index(a.Workspaces, w.ID); i >= 0 {
			a.Workspaces = slices.Delete(a.Workspaces, i, i+1)
		}
	}
	delete(s.Workspaces, w.ID)
	if s.Boot != nil && s.Boot.WorkspaceID == w.ID {
		s.Boot = nil // EnsureBootstrap makes a new one
	}
	s.DataMu.Lock()
	delete(s.Series, w.ID)
	s.DataMu.Unlock()
}

// DeleteKeyLocked revokes an API key. A bootstrap record of the key is
// dropped with it: EnsureBootstrap makes a new one.
func (s *Store) DeleteKeyLocked(key string) {
	delete(s.Keys, key)
	if s.Boot != nil && s.Boot.APIKey == key {
		s.Boot = nil
	}
}

// ValidJobStatus reports whether status is a job status.
func ValidJobStatus(status string) bool {
	return status == JobStatusPending || status == JobStatusDone
}

// ResetStateLocked empties the model.
func (s *Store) ResetStateLocked() {
	s.Accounts = map[string]*Account{}
	s.AccountOrder = nil
	s.Workspaces = map[string]*Workspace{}
	s.Fleets = map[string]*Fleet{}
	s.Devices = map[string]*Device{}
	s.Keys = map[string]string{}
	s.Boot = nil
}

// FOTAStatusRE matches a FOTA status: a lower-case word such as "done".
var FOTAStatusRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// ValidJobName checks a job name (see ValidPathName).
func ValidJobName(name string) error {
	return ValidPathName("job name", name)
}

// ValidPathName checks a name that a path segment gives to a stored object
// (job, firmware): not blank, not "." or ".." (path steps, which many
// clients and proxies resolve away, so the name could not be reached), at
// most maxNameLen characters, and valid UTF-8, since a JSON answer could
// not carry the name back unchanged (invalid bytes would come back as
// U+FFFD, a name that finds nothing).
func ValidPathName(what, v string) error {
	if !utf8.ValidString(v) {
		return apierr.InvalidArgument("%s %q is not valid UTF-8", what, v)
	}
	switch {
	case strings.TrimSpace(v) == "":
		return apierr.InvalidArgument("%s must not be empty or blank, got %q", what, v)
	case v == "." || v == "..":
		return apierr.InvalidArgument("%s %q is not allowed: \".\" and \"..\" are path steps, not names", what, v)
	}
	if utf8.RuneCountInString(v) > maxNameLen {
		return apierr.InvalidArgument("%s is longer than %d characters", what, maxNameLen)
	}
	return nil
}

// ResetKeepingBootLocked empties the model but for the bootstrap record
// (Boot, see EnsureBootstrap): its account, workspace and API key come back
// with the same IDs, names and storage switch, the workspace empty with a
// new default fleet, so the lines a server wrote for them (zdm-local
// -env-file) stay valid. Without a valid bootstrap record it is
// ResetStateLocked. It returns the changes to record.
func (s *Store) ResetKeepingBootLocked() []Change {
	var boot *Bootstrap
	var acc Account
	var ws Workspace
	if b := s.Boot; b != nil && s.Keys[b.APIKey] == b.WorkspaceID && s.Workspaces[b.WorkspaceID] != nil && s.Accounts[b.AccountID] != nil {
		boot, acc, ws = b, *s.Accounts[b.AccountID], *s.Workspaces[b.WorkspaceID]
	}
	s.ResetStateLocked()
	changes := []Change{ResetAll()}
	if boot == nil {
		return changes
	}
	a := s.NewAccountLocked(acc.ID, acc.Name)
	w := s.NewWorkspaceLocked(ws.ID, a, ws.Name, ws.Description)
	w.StorageEnabled = ws.StorageEnabled
	s.Keys[boot.APIKey] = w.ID
	s.Boot = boot
	return append(changes, a, w, s.Fleets[w.DefaultFleetID], KeyChange(boot.APIKey, w.ID), s.Boot)
}
