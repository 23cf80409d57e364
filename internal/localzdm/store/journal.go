package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The journal is an append-only file of the changes made since the last
// snapshot (the state file). Its name is the state file's plus
// ".journal.<generation>"; the snapshot names the generation that follows it.
// A file starts with journalMagic; each record is
//
//	length (uint32, little endian) | CRC-32C of the payload (uint32) | payload (JSON)
//
// One goroutine writes the records in the order they were appended. Requests
// that changed something wait until their records are written (and, with
// Options.Sync, fsynced): concurrent requests share one write and one fsync.
const journalMagic = "ZDMJRNL1"

// maxJournalRecord bounds one record (a publish of MaxPageSize points fits
// well); a larger length field means a damaged file.
const maxJournalRecord = 1 << 30

// syncInterval bounds what an operating system crash can lose without
// Options.Sync: the journal is fsynced at least this often while it changes.
const syncInterval = time.Second

var crcTable = crc32.MakeTable(crc32.Castagnoli)

func journalPath(stateFile string, gen uint64) string {
	return stateFile + ".journal." + strconv.FormatUint(gen, 10)
}

// journalGenerations lists the generations of the journal files beside the
// state file, ascending.
func journalGenerations(stateFile string) ([]uint64, error) {
	dir, base := filepath.Split(filepath.Clean(stateFile))
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	prefix := base + ".journal."
	var gens []uint64
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		g, err := strconv.ParseUint(rest, 10, 64)
		if err != nil || strconv.FormatUint(g, 10) != rest {
			continue // not one of ours
		}
		gens = append(gens, g)
	}
	for i := 1; i < len(gens); i++ { // ReadDir sorts by name, not number
		for k := i; k > 0 && gens[k] < gens[k-1]; k-- {
			gens[k], gens[k-1] = gens[k-1], gens[k]
		}
	}
	return gens, nil
}

// appendFrame appends one framed record to buf.
func appendFrame(buf, payload []byte) []byte {
	var hdr [8]byte
	binary.LittleEndian.PutUint32(hdr[:4], uint32(len(payload))) //nolint:gosec // bounded by maxJournalRecord
	binary.LittleEndian.PutUint32(hdr[4:], crc32.Checksum(payload, crcTable))
	buf = append(buf, hdr[:]...)
	return append(buf, payload...)
}

// errTornRecord marks the end of the readable records: a record cut short or
// damaged, as a crash in the middle of a write leaves at the end of a file.
var errTornRecord = errors.New("torn or damaged record")

// readFrames calls fn with each record's payload. It returns the offset just
// past the last good record and errTornRecord when bytes follow it that are
// not a whole, intact record. A file too short to hold the magic is empty
// (torn); a different magic is an error.
func readFrames(data []byte, fn func(payload []byte) error) (int, error) {
	if len(data) < len(journalMagic) {
		if bytes.HasPrefix([]byte(journalMagic), data) {
			if len(data) == 0 {
				return 0, nil
			}
			return 0, errTornRecord
		}
		return 0, errors.New("not a zdm-local journal")
	}
	if string(data[:len(journalMagic)]) != journalMagic {
		return 0, errors.New("not a zdm-local journal")
	}
	off := len(journalMagic)
	for off < len(data) {
		if len(data)-off < 8 {
			return off, errTornRecord
		}
		n := binary.LittleEndian.Uint32(data[off:])
		sum := binary.LittleEndian.Uint32(data[off+4:])
		if n > maxJournalRecord || int64(n) > int64(len(data)-off-8) {
			return off, errTornRecord
		}
		payload := data[off+8 : off+8+int(n)]
		if crc32.Checksum(payload, crcTable) != sum {
			return off, errTornRecord
		}
		if err := fn(payload); err != nil {
			return off, err
		}
		off += 8 + int(n)
	}
	return off, nil
}

// journal appends records and writes them in the background.
type journal struct {
	stateFile string
	sync      bool
	logf      func(format string, args ...any)

	mu       sync.Mutex
	cond     *sync.Cond // signaled when written, synced, gen or err change
	buf      []byte     // framed records not written yet
	rotateAt int        // offset in buf where the next generation starts, or -1
	appended uint64     // records appended so far
	written  uint64     // records written to the file
	synced   uint64     // records fsynced
	err      error      // the first write failure; no record is written after it
	closed   bool
	gen      uint64 // generation of the file being written
	size     int64  // bytes in that file

	wake    chan struct{}
	done    chan struct{}
	compact chan struct{} // the file grew past the compaction threshold
	limit   int64         // compaction threshold in bytes (read under mu)

	f        *os.File // owned by run
	dirty    bool     // written since the last fsync (owned by run)
	lastSync time.Time
}

// openJournal opens generation gen for appending, creating it when missing,
// and truncating it to size (the end of its last intact record).
func openJournal(stateFile string, gen uint64, size int64, syncMode bool, logf func(string, ...any)) (*journal, error) {
	j := &journal{
		stateFile: stateFile, sync: syncMode, logf: logf, rotateAt: -1,
		wake: make(chan struct{}, 1), done: make(chan struct{}), compact: make(chan struct{}, 1),
		lastSync: time.Now(),
	}
	j.cond = sync.NewCond(&j.mu)
	f, n, err := openJournalFile(stateFile, gen, size)
	if err != nil {
		return nil, err
	}
	j.f, j.gen, j.size = f, gen, n
	go j.run()
	return j, nil
}

// openJournalFile opens a journal file for appending at size, writing the
// magic into a new or empty one; it returns the file and its size.
func openJournalFile(stateFile string, gen uint64, size int64) (*os.File, int64, error) {
	path := journalPath(stateFile, gen)
	f, err := os.OpenFile(filepath.Clean(path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, 0, err
	}
	fail := func(err error) (*os.File, int64, error) {
		_ = f.Close()
		return nil, 0, fmt.Errorf("journal %s: %w", path, err)
	}
	if size < int64(len(journalMagic)) {
		size = 0
	}
	if err := f.Truncate(size); err != nil {
		return fail(err)
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		return fail(err)
	}
	if size == 0 {
		if _, err := f.WriteString(journalMagic); err != nil {
			return fail(err)
		}
		size = int64(len(journalMagic))
		if err := f.Sync(); err != nil {
			return fail(err)
		}
		if err := syncDir(path); err != nil {
			return fail(err)
		}
	}
	return f, size, nil
}

// append adds a record and returns its sequence number. It is called with
// the model lock held, so records are in the order of the changes.
func (j *journal) append(payload []byte) uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return j.appended
	}
	j.buf = appendFrame(j.buf, payload)
	j.appended++
	seq := j.appended
	select {
	case j.wake <- struct{}{}:
	default:
	}
	return seq
}

// last is the sequence number of the last record appended.
func (j *journal) last() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.appended
}

// wait blocks until record seq is written (fsynced with Options.Sync), or
// the journal failed.
func (j *journal) wait(seq uint64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for {
		if j.err != nil {
			return j.err
		}
		done := j.written
		if j.sync {
			done = j.synced
		}
		if done >= seq || (j.closed && j.written == j.appended) {
			return nil
		}
		j.cond.Wait()
	}
}

// rotate makes the records appended from now on go to the next generation,
// whose number it returns. The caller holds the model locks, so the state it
// copies next is exactly the state after the records before the rotation.
func (j *journal) rotate() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	for j.rotateAt >= 0 {
		j.cond.Wait()
	}
	j.rotateAt = len(j.buf)
	select {
	case j.wake <- struct{}{}:
	default:
	}
	return j.gen + 1
}

// waitGen blocks until the writer writes generation gen (or failed).
func (j *journal) waitGen(gen uint64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for j.gen < gen && j.err == nil && !j.closed {
		j.cond.Wait()
	}
	return j.err
}

// close writes what is pending, fsyncs and closes the file, and returns the
// generation it ended with.
func (j *journal) close() (uint64, error) {
	j.mu.Lock()
	j.closed = true
	j.mu.Unlock()
	select {
	case j.wake <- struct{}{}:
	default:
	}
	<-j.done
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.gen, j.err
}

func (j *journal) run() {
	defer close(j.done)
	var tick <-chan time.Time
	if !j.sync {
		t := time.NewTicker(syncInterval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-j.wake:
		case <-tick:
			if j.dirty && time.Since(j.lastSync) >= syncInterval {
				j.fail(j.fsync())
			}
			continue
		}
		if !j.flush() {
			return
		}
	}
}

// flush writes the pending records; it returns false once the journal is
// closed and everything was written.
func (j *journal) flush() bool {
	for {
		j.mu.Lock()
		buf, rotateAt, seq, closed, failed := j.buf, j.rotateAt, j.appended, j.closed, j.err != nil
		j.buf, j.rotateAt = nil, -1
		j.mu.Unlock()
		if failed {
			if closed {
				_ = j.f.Close()
				return false
			}
			return true
		}
		if len(buf) == 0 && rotateAt < 0 {
			if closed {
				j.fail(j.fsync())
				j.fail(j.f.Close())
				return false
			}
			return true
		}
		err := j.write(buf, rotateAt)
		j.mu.Lock()
		if err != nil && j.err == nil {
			j.err = fmt.Errorf("journal %s: %w", journalPath(j.stateFile, j.gen), err)
			j.logf("localzdm: %v", j.err)
		}
		if err == nil {
			j.written = seq
			if j.sync {
				j.synced = seq
			}
		}
		grew := j.size > j.limit && j.limit > 0
		j.cond.Broadcast()
		j.mu.Unlock()
		if grew {
			select {
			case j.compact <- struct{}{}:
			default:
			}
		}
	}
}

// write writes buf, switching to the next generation at rotateAt (>= 0).
func (j *journal) write(buf []byte, rotateAt int) error {
	if rotateAt >= 0 {
		if err := j.writeFile(buf[:rotateAt]); err != nil {
			return err
		}
		if err := j.fsync(); err != nil {
			return err
		}
		if err := j.f.Close(); err != nil {
			return err
		}
		f, n, err := openJournalFile(j.stateFile, j.gen+1, 0)
		if err != nil {
			return err
		}
		j.mu.Lock()
		j.f, j.gen, j.size = f, j.gen+1, n
		j.mu.Unlock()
		buf = buf[rotateAt:]
	}
	if err := j.writeFile(buf); err != nil {
		return err
	}
	if j.sync && len(buf) > 0 {
		return j.fsync()
	}
	return nil
}

func (j *journal) writeFile(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	n, err := j.f.Write(b)
	j.mu.Lock()
	j.size += int64(n)
	j.mu.Unlock()
	j.dirty = true
	return err
}

func (j *journal) fsync() error {
	if !j.dirty {
		return nil
	}
	if err := j.f.Sync(); err != nil {
		return err
	}
	j.dirty = false
	j.lastSync = time.Now()
	return nil
}

// fail records a write failure from the writer goroutine.
func (j *journal) fail(err error) {
	if err == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err == nil {
		j.err = fmt.Errorf("journal %s: %w", journalPath(j.stateFile, j.gen), err)
		j.logf("localzdm: %v", j.err)
		j.cond.Broadcast()
	}
}

// syncDir fsyncs the directory holding path, so that a created or renamed
// file survives an operating system crash.
func syncDir(path string) error {
	d, err := os.Open(filepath.Dir(filepath.Clean(path)))
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
