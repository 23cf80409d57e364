package store

// Helpers for the tests of the server built on a Store: they reach into the
// persistence to simulate a crash or damage. Nothing else calls them.

// CrashForTest stops the persistence as kill -9 would leave its files: what
// the journal writer has written stays, nothing else is written, and the
// lock goes.
func (s *Store) CrashForTest() error {
	p := s.persist
	if _, err := p.j.close(); err != nil {
		return err
	}
	close(p.compactStop)
	<-p.compactDone
	p.lock.setState(nil)
	_ = p.lock.f.Close()
	return nil
}

// SetJournalLimitForTest sets the journal size that triggers a snapshot.
func (s *Store) SetJournalLimitForTest(n int64) {
	j := s.persist.j
	j.mu.Lock()
	j.limit = n
	j.mu.Unlock()
}

// JournalGenForTest is the generation of the journal being written.
func (s *Store) JournalGenForTest() uint64 {
	j := s.persist.j
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.gen
}

// BreakJournalForTest closes the journal file: every later write fails.
func (s *Store) BreakJournalForTest() {
	_ = s.persist.j.f.Close()
}

// DecodeStateFileForTest decodes a state file.
func DecodeStateFileForTest(data []byte) (*StateFile, error) { return decodeStateFile(data) }

// JournalPathForTest is the journal file of generation gen.
func JournalPathForTest(stateFile string, gen uint64) string { return journalPath(stateFile, gen) }

// JournalGenerationsForTest lists the journal generations beside a state file.
func JournalGenerationsForTest(stateFile string) ([]uint64, error) {
	return journalGenerations(stateFile)
}

// AppendFrameForTest appends one framed journal record to buf.
func AppendFrameForTest(buf, payload []byte) []byte { return appendFrame(buf, payload) }
