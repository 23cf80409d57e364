package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// loadState loads the snapshot (when there is one) and replays the journal
// after it, then checks the result. It returns the journal generation to
// append to, the size of its intact part, and the snapshot's size. Anything
// inconsistent is an error naming the first problem found: the server does
// not start on a state it would have to guess about.
// maxJournalGen is the largest journal generation a state file may name.
const maxJournalGen = 1 << 62

func (s *Store) loadState() (gen uint64, size, snapSize int64, err error) {
	path := s.path
	data, err := os.ReadFile(filepath.Clean(path))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return 0, 0, 0, err
	default:
		st, err := decodeStateFile(data)
		if err != nil {
			return 0, 0, 0, err
		}
		if err := s.Restore(st); err != nil {
			return 0, 0, 0, err
		}
		gen, snapSize = st.JournalGen, int64(len(data))
	}
	gens, err := journalGenerations(path)
	if err != nil {
		return 0, 0, 0, err
	}
	gens = slices.DeleteFunc(gens, func(g uint64) bool { return g < gen }) // older: already in the snapshot
	for i, g := range gens {
		if g != gen+uint64(i) {
			return 0, 0, 0, fmt.Errorf("journal generation %d is missing (found %s)", gen+uint64(i), journalPath(path, g))
		}
	}
	for i, g := range gens {
		last := i == len(gens)-1
		n, err := s.replayJournal(journalPath(path, g), last)
		if err != nil {
			return 0, 0, 0, err
		}
		if last {
			gen, size = g, n
		}
	}
	if gen > maxJournalGen {
		// Every compaction moves to the next generation: a generation this
		// large would wrap around and the state file could not be read
		// back; no real use comes near it.
		return 0, 0, 0, fmt.Errorf("journal generation %d is beyond the largest the server writes (%d): the state file is not consistent", gen, uint64(maxJournalGen))
	}
	if err := s.checkModel(); err != nil {
		return 0, 0, 0, err
	}
	removeJournals(path, gen, s.logf)
	return gen, size, snapSize, nil
}

// decodeStateFile decodes a snapshot strictly: unknown fields, trailing
// data and unknown versions are errors.
func decodeStateFile(data []byte) (*StateFile, error) {
	var st StateFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("not a valid state file: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("not a valid state file: data after the JSON object")
	}
	if st.Version != 1 && st.Version != stateVersion {
		return nil, fmt.Errorf("unsupported version %d (want 1 or %d)", st.Version, stateVersion)
	}
	return &st, nil
}

// replayJournal applies the records of one journal file and returns the
// offset after the last intact one. A torn or damaged record is tolerated
// only at the end of the last file, where a crash during a write leaves it:
// it was never acknowledged, and it is cut off.
func (s *Store) replayJournal(path string, last bool) (int64, error) {
	data, err := os.ReadFile(filepath.Clean(path))
	if err != nil {
		return 0, err
	}
	n := 0
	off, err := readFrames(data, func(payload []byte) error {
		n++
		if err := s.applyRecord(payload); err != nil {
			return fmt.Errorf("journal %s, record %d: %w", path, n, err)
		}
		return nil
	})
	switch {
	case errors.Is(err, errTornRecord) && last:
		s.logf("localzdm: journal %s: ignoring %d bytes of an incomplete last record (a write cut short)", path, len(data)-off)
	case errors.Is(err, errTornRecord):
		return 0, fmt.Errorf("journal %s: damaged record %d at offset %d", path, n+1, off)
	case err != nil && n == 0 && off == 0:
		return 0, fmt.Errorf("journal %s: %w", path, err)
	case err != nil:
		return 0, err
	}
	return int64(off), nil
}

// Restore rebuilds the model from a decoded state file. It rejects null
// entries, missing and duplicate IDs; checkModel checks the references.
func (s *Store) Restore(st *StateFile) error {
	s.ResetStateLocked()
	s.Series = map[string]*Series{}
	taken := func(id string) bool { return s.IDTakenLocked(id) }
	for i, a := range st.Accounts {
		switch {
		case a == nil:
			return fmt.Errorf("accounts[%d] is null", i)
		case a.ID == "":
			return fmt.Errorf("accounts[%d] has no id", i)
		case taken(a.ID):
			return fmt.Errorf("accounts[%d]: ID %q is used twice", i, a.ID)
		}
		a.Workspaces = nonNil(a.Workspaces)
		s.Accounts[a.ID] = a
		s.AccountOrder = append(s.AccountOrder, a.ID)
	}
	for i, w := range st.Workspaces {
		switch {
		case w == nil:
			return fmt.Errorf("workspaces[%d] is null", i)
		case w.ID == "":
			return fmt.Errorf("workspaces[%d] has no id", i)
		case taken(w.ID):
			return fmt.Errorf("workspaces[%d]: ID %q is used twice", i, w.ID)
		}
		w.Fleets = nonNil(w.Fleets)
		w.Devices = nonNil(w.Devices)
		s.Workspaces[w.ID] = w
	}
	for i, f := range st.Fleets {
		switch {
		case f == nil:
			return fmt.Errorf("fleets[%d] is null", i)
		case f.ID == "":
			return fmt.Errorf("fleets[%d] has no id", i)
		case taken(f.ID):
			return fmt.Errorf("fleets[%d]: ID %q is used twice", i, f.ID)
		}
		s.Fleets[f.ID] = f
	}
	for i, d := range st.Devices {
		switch {
		case d == nil:
			return fmt.Errorf("devices[%d] is null", i)
		case d.ID == "":
			return fmt.Errorf("devices[%d] has no id", i)
		case taken(d.ID):
			return fmt.Errorf("devices[%d]: ID %q is used twice", i, d.ID)
		}
		s.Devices[d.ID] = d
	}
	for i, k := range st.Keys {
		switch {
		case k.Key == "":
			return fmt.Errorf("keys[%d] has no key", i)
		case s.Keys[k.Key] != "":
			return fmt.Errorf("keys[%d]: a key is listed twice", i)
		}
		s.Keys[k.Key] = k.WorkspaceID
	}
	if st.Bootstrap != nil {
		b := *st.Bootstrap
		s.Boot = &b
	}
	for _, wid := range slices.Sorted(maps.Keys(st.Data)) {
		if err := s.restorePoints(wid, st.Data[wid]); err != nil {
			return err
		}
	}
	return nil
}

// restorePoints adds stored data points of a workspace.
func (s *Store) restorePoints(wid string, raw []json.RawMessage) error {
	pts := make([]*Point, len(raw))
	for i, enc := range raw {
		p, err := decodePoint(enc)
		if err != nil {
			return fmt.Errorf("data point %d of workspace %q: %w", i, wid, err)
		}
		pts[i] = p
	}
	sr := s.Series[wid]
	if sr == nil {
		sr = NewSeries()
		s.Series[wid] = sr
	}
	sr.Insert(pts)
	return nil
}

// checkModel checks every reference and index of the model, and every
// value the API could not have stored.
func (s *Store) checkModel() error {
	listed := map[string]string{} // workspace -> account listing it
	for _, aid := range s.AccountOrder {
		a := s.Accounts[aid]
		if err := checkName("account", a.ID, a.Name); err != nil {
			return err
		}
		for _, wid := range a.Workspaces {
			w := s.Workspaces[wid]
			switch {
			case w == nil:
				return fmt.Errorf("account %q lists unknown workspace %q", a.ID, wid)
			case w.AccountID != a.ID:
				return fmt.Errorf("account %q lists workspace %q of account %q", a.ID, wid, w.AccountID)
			case listed[wid] != "":
				return fmt.Errorf("account %q lists workspace %q twice", a.ID, wid)
			}
			listed[wid] = a.ID
		}
	}
	indexed := map[string]bool{} // fleets and devices listed by their workspace
	for _, wid := range slices.Sorted(maps.Keys(s.Workspaces)) {
		if err := s.checkWorkspace(s.Workspaces[wid], listed[wid] != "", indexed); err != nil {
			return err
		}
	}
	for _, fid := range slices.Sorted(maps.Keys(s.Fleets)) {
		if err := s.checkFleet(s.Fleets[fid], indexed); err != nil {
			return err
		}
	}
	for _, did := range slices.Sorted(maps.Keys(s.Devices)) {
		if err := s.checkDevice(s.Devices[did], indexed); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Keys)) {
		if s.Workspaces[s.Keys[k]] == nil {
			return fmt.Errorf("an API key is bound to unknown workspace %q", s.Keys[k])
		}
	}
	if b := s.Boot; b != nil {
		w := s.Workspaces[b.WorkspaceID]
		switch {
		case w == nil:
			return fmt.Errorf("the bootstrap record names unknown workspace %q", b.WorkspaceID)
		case w.AccountID != b.AccountID:
			return fmt.Errorf("the bootstrap record names account %q, but workspace %q belongs to account %q", b.AccountID, w.ID, w.AccountID)
		case s.Keys[b.APIKey] != w.ID:
			return fmt.Errorf("the bootstrap record's API key is not bound to workspace %q", w.ID)
		}
	}
	for _, wid := range slices.Sorted(maps.Keys(s.Series)) {
		if s.Workspaces[wid] == nil {
			return fmt.Errorf("data points of unknown workspace %q", wid)
		}
	}
	return nil
}

func (s *Store) checkWorkspace(w *Workspace, listed bool, indexed map[string]bool) error {
	if err := checkName("workspace", w.ID, w.Name); err != nil {
		return err
	}
	switch {
	case s.Accounts[w.AccountID] == nil:
		return fmt.Errorf("workspace %q belongs to unknown account %q", w.ID, w.AccountID)
	case !listed:
		return fmt.Errorf("workspace %q is missing from the workspaces of account %q", w.ID, w.AccountID)
	}
	if f := s.Fleets[w.DefaultFleetID]; f == nil || f.WorkspaceID != w.ID {
		return fmt.Errorf("workspace %q: default fleet %q is not a fleet of it", w.ID, w.DefaultFleetID)
	}
	for _, fid := range w.Fleets {
		f := s.Fleets[fid]
		switch {
		case f == nil:
			return fmt.Errorf("workspace %q lists unknown fleet %q", w.ID, fid)
		case f.WorkspaceID != w.ID:
			return fmt.Errorf("workspace %q lists fleet %q of workspace %q", w.ID, fid, f.WorkspaceID)
		case indexed[fid]:
			return fmt.Errorf("workspace %q lists fleet %q twice", w.ID, fid)
		}
		indexed[fid] = true
	}
	for _, did := range w.Devices {
		d := s.Devices[did]
		switch {
		case d == nil:
			return fmt.Errorf("workspace %q lists unknown device %q", w.ID, did)
		case d.WorkspaceID != w.ID:
			return fmt.Errorf("workspace %q lists device %q of workspace %q", w.ID, did, d.WorkspaceID)
		case indexed[did]:
			return fmt.Errorf("workspace %q lists device %q twice", w.ID, did)
		}
		indexed[did] = true
	}
	return nil
}

func (s *Store) checkFleet(f *Fleet, indexed map[string]bool) error {
	w := s.Workspaces[f.WorkspaceID]
	switch {
	case w == nil:
		return fmt.Errorf("fleet %q belongs to unknown workspace %q", f.ID, f.WorkspaceID)
	case !indexed[f.ID]:
		return fmt.Errorf("fleet %q is missing from the fleets of workspace %q", f.ID, w.ID)
	case f.AccountID != w.AccountID:
		return fmt.Errorf("fleet %q belongs to account %q, but its workspace %q to account %q", f.ID, f.AccountID, w.ID, w.AccountID)
	}
	return checkName("fleet", f.ID, f.Name)
}

func (s *Store) checkDevice(d *Device, indexed map[string]bool) error {
	w := s.Workspaces[d.WorkspaceID]
	if w == nil {
		return fmt.Errorf("device %q belongs to unknown workspace %q", d.ID, d.WorkspaceID)
	}
	if !indexed[d.ID] {
		return fmt.Errorf("device %q is missing from the devices of workspace %q", d.ID, w.ID)
	}
	if f := s.Fleets[d.FleetID]; f == nil || f.WorkspaceID != w.ID {
		return fmt.Errorf("device %q: fleet %q is not a fleet of its workspace %q", d.ID, d.FleetID, w.ID)
	}
	if d.AccountID != w.AccountID {
		return fmt.Errorf("device %q belongs to account %q, but its workspace %q to account %q", d.ID, d.AccountID, w.ID, w.AccountID)
	}
	if err := checkName("device", d.ID, d.Name); err != nil {
		return err
	}
	if len(d.Identities) > 0 {
		var ids []map[string]any
		if err := json.Unmarshal(d.Identities, &ids); err != nil {
			return fmt.Errorf("device %q: identities must be an array of objects", d.ID)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(d.Jobs)) {
		j := d.Jobs[name]
		switch {
		case j == nil:
			return fmt.Errorf("device %q: job %q is null", d.ID, name)
		case j.Name != name:
			return fmt.Errorf("device %q: job %q is named %q", d.ID, name, j.Name)
		case ValidJobName(name) != nil:
			return fmt.Errorf("device %q: job name %q is not valid", d.ID, name)
		case !ValidJobStatus(j.Status):
			return fmt.Errorf("device %q: job %q has unknown status %q (want %q or %q)", d.ID, name, j.Status, JobStatusPending, JobStatusDone)
		case len(j.Value) == 0 || j.Value[0] != '{':
			return fmt.Errorf("device %q: job %q: value must be a JSON object", d.ID, name)
		}
	}
	if f := d.FOTA; f != nil && !FOTAStatusRE.MatchString(f.Status) {
		return fmt.Errorf("device %q: FOTA has unknown status %q", d.ID, f.Status)
	}
	return nil
}

// checkName checks a stored name as the API checks a new one.
func checkName(kind, id, name string) error {
	if strings.TrimSpace(name) == "" || !utf8.ValidString(name) || utf8.RuneCountInString(name) > maxNameLen {
		return fmt.Errorf("%s %q: name %q is blank, too long or not UTF-8", kind, id, name)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
