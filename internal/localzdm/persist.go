package localzdm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// stateVersion is the version of the state file format.
const stateVersion = 1

// stateFile is the content of Options.StateFile.
type stateFile struct {
	Version    int                          `json:"version"`
	SavedAt    string                       `json:"saved_at"`
	Accounts   []*account                   `json:"accounts"`
	Workspaces []*workspace                 `json:"workspaces"`
	Fleets     []*fleet                     `json:"fleets"`
	Devices    []*device                    `json:"devices"`
	Keys       []keyRecord                  `json:"keys"`
	Bootstrap  *Bootstrap                   `json:"bootstrap,omitempty"`
	Data       map[string][]json.RawMessage `json:"data"`
}

type keyRecord struct {
	Key         string `json:"key"`
	WorkspaceID string `json:"workspace_id"`
}

// changed schedules a write of the state file, when there is one. Writes are
// coalesced by persistLoop: a burst of changes costs one or two writes, and
// requests never wait for the disk.
func (s *Server) changed() {
	if s.persistWake == nil {
		return
	}
	select {
	case s.persistWake <- struct{}{}:
	default:
	}
}

// persistDelay gathers a burst of changes into one write.
const persistDelay = 20 * time.Millisecond

func (s *Server) persistLoop() {
	defer close(s.persistDone)
	for {
		select {
		case <-s.persistStop:
			return
		case <-s.persistWake:
		}
		t := time.NewTimer(persistDelay)
		select {
		case <-s.persistStop:
			t.Stop()
			return // Close writes the final state.
		case <-t.C:
		}
		if err := s.writeState(); err != nil {
			s.log.Printf("localzdm: %v", err)
		}
	}
}

// snapshot copies the state under the read locks, then encodes the copy
// without holding them, so requests wait for a memory copy, not for JSON.
func (s *Server) snapshot() ([]byte, error) {
	st := s.copyState()
	return json.Marshal(&st)
}

func (s *Server) copyState() stateFile {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := stateFile{
		Version:    stateVersion,
		SavedAt:    timestamp(time.Now()),
		Accounts:   make([]*account, 0, len(s.accounts)),
		Workspaces: make([]*workspace, 0, len(s.workspaces)),
		Fleets:     make([]*fleet, 0, len(s.fleets)),
		Devices:    make([]*device, 0, len(s.devices)),
		Keys:       make([]keyRecord, 0, len(s.keys)),
		Data:       map[string][]json.RawMessage{},
	}
	if s.bootstrap != nil {
		b := *s.bootstrap
		st.Bootstrap = &b
	}
	for _, aid := range s.accountOrder {
		a := *s.accounts[aid]
		a.Workspaces = slices.Clone(a.Workspaces)
		st.Accounts = append(st.Accounts, &a)
		for _, wid := range a.Workspaces {
			w := *s.workspaces[wid]
			w.Fleets = slices.Clone(w.Fleets)
			w.Devices = slices.Clone(w.Devices)
			st.Workspaces = append(st.Workspaces, &w)
			for _, fid := range w.Fleets {
				f := *s.fleets[fid]
				st.Fleets = append(st.Fleets, &f)
			}
			for _, did := range w.Devices {
				st.Devices = append(st.Devices, copyDevice(s.devices[did]))
			}
		}
	}
	for _, k := range sortedKeys(s.keys) {
		st.Keys = append(st.Keys, keyRecord{Key: k, WorkspaceID: s.keys[k]})
	}
	s.dataMu.RLock()
	defer s.dataMu.RUnlock()
	for wid, sr := range s.series {
		pts := make([]json.RawMessage, len(sr.points))
		for i, p := range sr.points {
			pts[i] = p.enc // immutable once stored
		}
		st.Data[wid] = pts
	}
	return st
}

// copyDevice copies a device with its jobs and FOTA (Identities and job
// values are never modified in place).
func copyDevice(d *device) *device {
	c := *d
	if d.Jobs != nil {
		c.Jobs = make(map[string]*job, len(d.Jobs))
		for name, j := range d.Jobs {
			jc := *j
			c.Jobs[name] = &jc
		}
	}
	if d.FOTA != nil {
		f := *d.FOTA
		c.FOTA = &f
	}
	return &c
}

// writeState writes the state file atomically: a temporary file in the same
// directory, synced, then renamed over the old one.
func (s *Server) writeState() error {
	data, err := s.snapshot()
	if err != nil {
		return fmt.Errorf("state file: encode: %w", err)
	}
	if err := writeFileAtomic(s.opts.StateFile, data); err != nil {
		return fmt.Errorf("state file: %w", err)
	}
	return nil
}

func writeFileAtomic(path string, data []byte) (err error) {
	dir, base := filepath.Split(filepath.Clean(path))
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// loadState reads the state file when it exists.
func (s *Server) loadState() error {
	data, err := os.ReadFile(filepath.Clean(s.opts.StateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("localzdm: state file: %w", err)
	}
	var st stateFile
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("localzdm: state file %s: %w", s.opts.StateFile, err)
	}
	if st.Version != stateVersion {
		return fmt.Errorf("localzdm: state file %s: unsupported version %d (want %d)", s.opts.StateFile, st.Version, stateVersion)
	}
	if err := s.restore(&st); err != nil {
		return fmt.Errorf("localzdm: state file %s: %w", s.opts.StateFile, err)
	}
	return nil
}

// restore rebuilds the model from a decoded state file, checking references.
func (s *Server) restore(st *stateFile) error {
	s.resetStateLocked()
	for _, a := range st.Accounts {
		if a == nil || a.ID == "" || s.accounts[a.ID] != nil {
			return errors.New("bad or duplicate account")
		}
		s.accounts[a.ID] = a
		s.accountOrder = append(s.accountOrder, a.ID)
	}
	for _, w := range st.Workspaces {
		if w == nil || w.ID == "" || s.workspaces[w.ID] != nil || s.accounts[w.AccountID] == nil {
			return errors.New("bad or duplicate workspace")
		}
		w.Fleets = nonNil(w.Fleets)
		w.Devices = nonNil(w.Devices)
		s.workspaces[w.ID] = w
	}
	for _, f := range st.Fleets {
		if f == nil || f.ID == "" || s.fleets[f.ID] != nil || s.workspaces[f.WorkspaceID] == nil {
			return errors.New("bad or duplicate fleet")
		}
		s.fleets[f.ID] = f
	}
	for _, d := range st.Devices {
		if d == nil || d.ID == "" || s.devices[d.ID] != nil || s.workspaces[d.WorkspaceID] == nil || s.fleets[d.FleetID] == nil {
			return errors.New("bad or duplicate device")
		}
		s.devices[d.ID] = d
	}
	for _, a := range s.accounts {
		a.Workspaces = nonNil(a.Workspaces)
		for _, wid := range a.Workspaces {
			if s.workspaces[wid] == nil {
				return fmt.Errorf("account %q lists unknown workspace %q", a.ID, wid)
			}
		}
	}
	for _, w := range s.workspaces {
		if s.fleets[w.DefaultFleetID] == nil {
			return fmt.Errorf("workspace %q has no default fleet", w.ID)
		}
		if slices.ContainsFunc(w.Fleets, func(id string) bool { return s.fleets[id] == nil }) ||
			slices.ContainsFunc(w.Devices, func(id string) bool { return s.devices[id] == nil }) {
			return fmt.Errorf("workspace %q lists unknown fleets or devices", w.ID)
		}
	}
	for _, k := range st.Keys {
		if s.workspaces[k.WorkspaceID] == nil {
			return errors.New("API key bound to an unknown workspace")
		}
		s.keys[k.Key] = k.WorkspaceID
	}
	s.bootstrap = st.Bootstrap
	for wid, raw := range st.Data {
		pts := make([]*point, len(raw))
		for i, enc := range raw {
			p, err := decodePoint(enc)
			if err != nil {
				return fmt.Errorf("data point %d of workspace %q: %w", i, wid, err)
			}
			pts[i] = p
		}
		sr := newSeries()
		sr.insert(pts)
		s.series[wid] = sr
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
