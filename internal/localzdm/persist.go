package localzdm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Persistence (Options.StateFile). The state lives in three kinds of files
// beside each other:
//
//   - the state file: a snapshot of everything, as JSON (stateFile), written
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

// stateFile is the content of Options.StateFile.
type stateFile struct {
	Version int    `json:"version"`
	SavedAt string `json:"saved_at"`
	// JournalGen is the generation of the journal that holds the changes
	// made after this snapshot.
	JournalGen uint64                       `json:"journal_generation,omitempty"`
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

// persister keeps the state file, its journal and its lock.
type persister struct {
	path string
	lock *stateLock
	j    *journal

	compactStop chan struct{}
	compactDone chan struct{}
}

// openState locks the state file, loads it with its journal, and starts the
// journal writer and the compaction loop.
func (s *Server) openState() error {
	// Every name of one file (a symbolic link, a relative path) shares one
	// lock and one journal.
	s.opts.StateFile = realStatePath(s.opts.StateFile)
	path := s.opts.StateFile
	lock, err := lockStateFile(path)
	if err != nil {
		return fmt.Errorf("localzdm: %w", err)
	}
	gen, size, snapSize, err := s.loadState()
	if err != nil {
		_ = lock.release()
		return fmt.Errorf("localzdm: state file %s: %w", path, err)
	}
	j, err := openJournal(path, gen, size, s.opts.Sync, s.log.Printf)
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

// closeState writes what is pending, a final snapshot (the journal is then
// removed), and releases the lock.
func (s *Server) closeState() error {
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
		removeJournals(p.path, gen+1, s.log.Printf)
	}
	if err := p.lock.release(); err != nil {
		errs = append(errs, fmt.Errorf("state file lock: %w", err))
	}
	return errors.Join(errs...)
}

// compactLoop takes a snapshot each time the journal outgrows its limit.
func (s *Server) compactLoop() {
	p := s.persist
	defer close(p.compactDone)
	for {
		select {
		case <-p.compactStop:
			return
		case <-p.j.compact:
		}
		if err := s.compact(); err != nil {
			s.log.Printf("localzdm: %v (the journal keeps every change)", err)
		}
	}
}

// compact writes a snapshot and starts a new journal generation.
func (s *Server) compact() error {
	p := s.persist
	s.mu.RLock()
	s.dataMu.RLock()
	gen := p.j.rotate()
	st := s.copyStateLocked()
	s.dataMu.RUnlock()
	s.mu.RUnlock()
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
	removeJournals(p.path, gen, s.log.Printf)
	return nil
}

// writeSnapshot writes the whole state as the snapshot followed by journal
// generation gen; it returns the size written.
func (s *Server) writeSnapshot(gen uint64) (int64, error) {
	st := s.copyState()
	return s.encodeAndWrite(&st, gen)
}

func (s *Server) encodeAndWrite(st *stateFile, gen uint64) (int64, error) {
	st.JournalGen = gen
	data, err := json.Marshal(st)
	if err != nil {
		return 0, fmt.Errorf("state file: encode: %w", err)
	}
	if err := writeFileAtomic(s.opts.StateFile, data); err != nil {
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

// changed records changes to the model in the journal, when there is a
// state file. Call it with s.mu held for writing (and s.dataMu for data
// points), after the change, naming every object changed: *account,
// *workspace, *fleet, *device (their current values are recorded), removal
// of one (gone), a key (apiKey), the bootstrap (*Bootstrap), data points
// (pointBatch) or a reset (resetAll). Without arguments the whole model
// except data points is recorded, which is correct but costs a copy of it.
func (s *Server) changed(changes ...change) {
	p := s.persist
	if p == nil {
		return
	}
	if len(changes) == 0 {
		changes = []change{wholeModel{s}}
	}
	for _, c := range changes {
		payload, err := c.record()
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
func (s *Server) Sync() error {
	p := s.persist
	if p == nil {
		return nil
	}
	return p.j.wait(p.j.last())
}

// awaitSaved wraps a handler so that an answer leaves only once every change
// made before it is saved: nothing a client sees can be lost by a crash.
func (s *Server) awaitSaved(h http.Handler) http.Handler {
	if s.persist == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&savedWriter{ResponseWriter: w, s: s}, r)
	})
}

// savedWriter waits for the journal before the first byte of an answer. When
// the journal cannot be written, the answer becomes a 500 that says so.
type savedWriter struct {
	http.ResponseWriter
	s       *Server
	checked bool
	failed  bool
}

func (w *savedWriter) check() bool {
	if !w.checked {
		w.checked = true
		if err := w.s.Sync(); err != nil {
			w.failed = true
			writeError(w.ResponseWriter, newError(http.StatusInternalServerError, CodeInternal,
				"the change was made in memory but could not be saved: %v", err))
		}
	}
	return !w.failed
}

func (w *savedWriter) WriteHeader(code int) {
	if w.check() {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *savedWriter) Write(b []byte) (int, error) {
	if !w.check() {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Flush sends what is buffered, once the journal is saved.
func (w *savedWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.check() {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *savedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// copyState copies the state under the read locks; it is encoded without
// holding them, so requests wait for a memory copy, not for JSON.
func (s *Server) copyState() stateFile {
	s.mu.RLock()
	defer s.mu.RUnlock()
	s.dataMu.RLock()
	defer s.dataMu.RUnlock()
	return s.copyStateLocked()
}

// copyStateLocked is copyState with s.mu and s.dataMu held.
func (s *Server) copyStateLocked() stateFile {
	st := s.copyModelLocked()
	st.Data = make(map[string][]json.RawMessage, len(s.series))
	for wid, sr := range s.series {
		pts := make([]json.RawMessage, len(sr.points))
		for i, p := range sr.points {
			pts[i] = p.enc // immutable once stored
		}
		st.Data[wid] = pts
	}
	return st
}

// copyModelLocked copies everything but the data points; s.mu is held.
func (s *Server) copyModelLocked() stateFile {
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

// writeFileAtomic writes path through a temporary file in the same
// directory, fsynced, then renamed over it; the directory is fsynced too.
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
