package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Persistence (Options.StateFile). The state lives in three kinds of files
// beside each other:
//
//   - the state file: a snapshot of everything, as JSON (StateFile), written
//     atomically (temp file, fsync, rename);
//   - the journal (journal.go): every change since that snapshot, appended
//     as it is made; a request that changed something is answered only once
//     its change is written to the journal (fsynced with Options.Sync);
//   - the lock file (lock.go), held while a server uses the state file.
//
// When the journal outgrows the snapshot (and at least minCompaction bytes),
// a new snapshot is taken and the journal starts a new generation, so the
// cost of a change never depends on how much is stored. Start-up loads the
// snapshot and replays the journal (statefile_load.go).

// stateVersion is the version of the state file format written. Version 1
// files (no journal) are read too.
const stateVersion = 2

// minCompaction is the journal size below which no snapshot is taken.
const minCompaction = 4 << 20

// StateFile is the content of Options.StateFile.
type StateFile struct {
	Version int    `json:"version"`
	SavedAt string `json:"saved_at"`
	// JournalGen is the generation of the journal that holds the changes
	// made after this snapshot.
	JournalGen uint64                       `json:"journal_generation,omitempty"`
	Accounts   []*Account                   `json:"accounts"`
	Workspaces []*Workspace                 `json:"workspaces"`
	Fleets     []*Fleet                     `json:"fleets"`
	Devices    []*Device                    `json:"devices"`
	Keys       []KeyRecord                  `json:"keys"`
	Bootstrap  *Bootstrap                   `json:"bootstrap,omitempty"`
	Data       map[string][]json.RawMessage `json:"data"`
}

type KeyRecord struct {
	Key         string `json:"key"`
	WorkspaceID string `json:"workspace_id"`
}

// persister keeps the state file, its journal and its lock.
type persister struct {
	path string
	lock *stateLock
	j    *journal

	compactStop chan struct{}
	compactDone chan struct{}
}

// OpenState locks the state file, loads it with its journal, and starts the
// journal writer and the compaction loop.
func (s *Store) OpenState(stateFile string, syncMode bool) error {
	// Every name of one file (a symbolic link, a relative path) shares one
	// lock and one journal.
	s.path = realStatePath(stateFile)
	s.syncMode = syncMode
	path := s.path
	lock, err := lockStateFile(path)
	if err != nil {
		return fmt.Errorf("localzdm: %w", err)
	}
	if err := lock.lockState(path); err != nil {
		_ = lock.release()
		return fmt.Errorf("localzdm: %w", err)
	}
	s.lock = lock
	gen, size, snapSize, err := s.loadState()
	if err != nil {
		_ = lock.release()
		return fmt.Errorf("localzdm: state file %s: %w", path, err)
	}
	j, err := openJournal(path, gen, size, s.syncMode, s.logf)
	if err != nil {
		_ = lock.release()
		return fmt.Errorf("localzdm: state file %s: %w", path, err)
	}
	j.limit = max(minCompaction, snapSize)
	p := &persister{path: path, lock: lock, j: j, compactStop: make(chan struct{}), compactDone: make(chan struct{})}
	s.persist = p
	go s.compactLoop()
	return nil
}

// CloseState writes what is pending, a final snapshot (the journal is then
// removed), and releases the lock.
func (s *Store) CloseState() error {
	p := s.persist
	close(p.compactStop)
	<-p.compactDone
	gen, jerr := p.j.close()
	var errs []error
	if jerr != nil {
		errs = append(errs, jerr)
	}
	// After a journal failure the snapshot still saves what the journal lost.
	if _, err := s.writeSnapshot(gen + 1); err != nil {
		errs = append(errs, err)
	} else {
		removeJournals(p.path, gen+1, s.logf)
	}
	s.lock = nil
	if err := p.lock.release(); err != nil {
		errs = append(errs, fmt.Errorf("state file lock: %w", err))
	}
	return errors.Join(errs...)
}

// compactLoop takes a snapshot each time the journal outgrows its limit.
func (s *Store) compactLoop() {
	p := s.persist
	defer close(p.compactDone)
	for {
		select {
		case <-p.compactStop:
			return
		case <-p.j.compact:
		}
		if err := s.compact(); err != nil {
			s.logf("localzdm: %v (the journal keeps every Change)", err)
		}
	}
}

// compact writes a snapshot and starts a new journal generation.
func (s *Store) compact() error {
	p := s.persist
	s.Mu.RLock()
	s.DataMu.RLock()
	gen := p.j.rotate()
	st := s.copyStateLocked()
	s.DataMu.RUnlock()
	s.Mu.RUnlock()
	n, err := s.encodeAndWrite(&st, gen)
	if err != nil {
		return err
	}
	if err := p.j.waitGen(gen); err != nil {
		return err
	}
	p.j.mu.Lock()
	p.j.limit = max(minCompaction, n)
	p.j.mu.Unlock()
	removeJournals(p.path, gen, s.logf)
	return nil
}

// writeSnapshot writes the whole state as the snapshot followed by journal
// generation gen; it returns the size written.
func (s *Store) writeSnapshot(gen uint64) (int64, error) {
	st := s.CopyState()
	return s.encodeAndWrite(&st, gen)
}

func (s *Store) encodeAndWrite(st *StateFile, gen uint64) (int64, error) {
	st.JournalGen = gen
	data, err := json.Marshal(st)
	if err != nil {
		return 0, fmt.Errorf("state file: encode: %w", err)
	}
	if err := writeFileAtomic(s.path, data, s.lock); err != nil {
		return 0, fmt.Errorf("state file: %w", err)
	}
	return int64(len(data)), nil
}

// removeJournals removes the journal files older than generation gen.
func removeJournals(path string, gen uint64, logf func(string, ...any)) {
	gens, err := journalGenerations(path)
	if err != nil {
		logf("localzdm: state file %s: %v", path, err)
		return
	}
	for _, g := range gens {
		if g >= gen {
			continue
		}
		if err := os.Remove(journalPath(path, g)); err != nil && !errors.Is(err, os.ErrNotExist) {
			logf("localzdm: %v", err)
		}
	}
}

// Changed records changes to the model in the journal, when there is a
// state file. Call it with s.Mu held for writing (and s.DataMu for data
// points), after the change, naming every object changed: *Account,
// *Workspace, *Fleet, *Device (their current values are recorded), removal
// of one (GoneDevice, GoneFleet, GoneWorkspace, GoneKey), a key
// (KeyChange), the bootstrap (*Bootstrap), data points (PointBatch) or a
// reset (ResetAll). Without arguments the whole model
// except data points is recorded, which is correct but costs a copy of it.
func (s *Store) Changed(changes ...Change) {
	p := s.persist
	if p == nil {
		return
	}
	if len(changes) == 0 {
		changes = []Change{wholeModel{s}}
	}
	for _, c := range changes {
		payload, err := c.Record()
		if err != nil {
			p.j.fail(fmt.Errorf("encode change: %w", err))
			return
		}
		p.j.append(payload)
	}
}

// Sync waits until every change made so far is written to the journal of
// the state file (and fsynced with Options.Sync). It returns at once without
// a state file.
func (s *Store) Sync() error {
	p := s.persist
	if p == nil {
		return nil
	}
	return p.j.wait(p.j.last())
}

// CopyState copies the state under the read locks; it is encoded without
// holding them, so requests wait for a memory copy, not for JSON.
func (s *Store) CopyState() StateFile {
	s.Mu.RLock()
	defer s.Mu.RUnlock()
	s.DataMu.RLock()
	defer s.DataMu.RUnlock()
	return s.copyStateLocked()
}

// copyStateLocked is copyState with s.Mu and s.DataMu held.
func (s *Store) copyStateLocked() StateFile {
	st := s.CopyModelLocked()
	st.Data = make(map[string][]json.RawMessage, len(s.Series))
	for wid, sr := range s.Series {
		pts := make([]json.RawMessage, len(sr.Points))
		for i, p := range sr.Points {
			pts[i] = p.Enc // immutable once stored
		}
		st.Data[wid] = pts
	}
	return st
}

// CopyModelLocked copies everything but the data points; s.Mu is held.
func (s *Store) CopyModelLocked() StateFile {
	st := StateFile{
		Version:    stateVersion,
		SavedAt:    Timestamp(time.Now()),
		Accounts:   make([]*Account, 0, len(s.Accounts)),
		Workspaces: make([]*Workspace, 0, len(s.Workspaces)),
		Fleets:     make([]*Fleet, 0, len(s.Fleets)),
		Devices:    make([]*Device, 0, len(s.Devices)),
		Keys:       make([]KeyRecord, 0, len(s.Keys)),
		Data:       map[string][]json.RawMessage{},
	}
	if s.Boot != nil {
		b := *s.Boot
		st.Bootstrap = &b
	}
	for _, aid := range s.AccountOrder {
		a := *s.Accounts[aid]
		a.Workspaces = slices.Clone(a.Workspaces)
		st.Accounts = append(st.Accounts, &a)
		for _, wid := range a.Workspaces {
			w := *s.Workspaces[wid]
			w.Fleets = slices.Clone(w.Fleets)
			w.Devices = slices.Clone(w.Devices)
			st.Workspaces = append(st.Workspaces, &w)
			for _, fid := range w.Fleets {
				f := *s.Fleets[fid]
				st.Fleets = append(st.Fleets, &f)
			}
			for _, did := range w.Devices {
				st.Devices = append(st.Devices, copyDevice(s.Devices[did]))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Keys)) {
		st.Keys = append(st.Keys, KeyRecord{Key: k, WorkspaceID: s.Keys[k]})
	}
	return st
}

// copyDevice copies a device with its jobs and FOTA (Identities and job
// values are never modified in place).
func copyDevice(d *Device) *Device {
	c := *d
	if d.Jobs != nil {
		c.Jobs = make(map[string]*Job, len(d.Jobs))
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

// writeFileAtomic writes path through a temporary file in the same
// directory, fsynced, then renamed over it; the directory is fsynced too.
// With a lock, the new file is locked before it is renamed (see lockState).
func writeFileAtomic(path string, data []byte, lock *stateLock) (err error) {
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
	if lock.keepsState(f) {
		if err = os.Rename(tmp, path); err != nil {
			_ = f.Close()
			return err
		}
		lock.setState(f)
		return syncDir(path)
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(path)
}

// realStatePath is path with its symbolic links resolved (a link to a
// state file not written yet included), and its directory's.
func realStatePath(path string) string {
	for range 40 { // as many links as a system follows
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			break
		}
		target, err := os.Readlink(path)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(dir, filepath.Base(path))
	}
	return filepath.Clean(path)
}
