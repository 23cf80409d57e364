package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// stateLock is the lock file beside a state file (its name plus ".lock"),
// holding the process ID of the server using the state file. Two servers on
// one state file would overwrite each other's changes: the second refuses
// to start.
//
// The lock file is found by name, so it sees every name that resolves to
// the state file's path (a symbolic link, a relative path), but not a hard
// link. Where a locked file can be renamed over (lockHoldsStateFile), the
// lock also holds the state file itself open and locked: a lock on the
// file, which every hard link to it shares. Each snapshot, written to a new
// file renamed over the state file, is locked before the rename, so the
// file under the state file's name is locked at all times.
type stateLock struct {
	f     *os.File
	state *os.File // the state file, locked, or nil
}

func lockPath(stateFile string) string { return stateFile + ".lock" }

// lockStateFile takes the lock of a state file, or fails naming the process
// that holds it.
func lockStateFile(stateFile string) (*stateLock, error) {
	path := lockPath(stateFile)
	f, err := os.OpenFile(filepath.Clean(path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("state file %s: lock: %w", stateFile, err)
	}
	if err := tryLock(f); err != nil {
		holder := "another process"
		if b, rerr := os.ReadFile(filepath.Clean(path)); rerr == nil {
			if pid, perr := strconv.Atoi(string(bytes.TrimSpace(b))); perr == nil && pid > 0 {
				holder = "process " + strconv.Itoa(pid)
			}
		}
		_ = f.Close()
		return nil, fmt.Errorf("state file %s is in use by %s (lock file %s): stop that server or use another state file", stateFile, holder, path)
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("state file %s: lock: %w", stateFile, err)
		}
	}
	return &stateLock{f: f}, nil
}

// lockState locks the state file itself when it exists (see stateLock), or
// fails saying that another server uses it under another name.
func (l *stateLock) lockState(stateFile string) error {
	if !lockHoldsStateFile {
		return nil
	}
	f, err := os.Open(filepath.Clean(stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // the first snapshot is locked before it is renamed into place
	}
	if err != nil {
		return fmt.Errorf("state file %s: lock: %w", stateFile, err)
	}
	if err := tryLock(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("state file %s is in use by another server under another name (a hard link to the same file): stop that server, or copy the file and use the copy", stateFile)
	}
	l.setState(f)
	return nil
}

// keepsState reports whether the lock takes over f, a new state file not
// renamed yet: it is then locked, and the caller passes it to setState once
// renamed (or closes it).
func (l *stateLock) keepsState(f *os.File) bool {
	return l != nil && lockHoldsStateFile && tryLock(f) == nil
}

// setState makes f the state file held, releasing the one held before.
func (l *stateLock) setState(f *os.File) {
	if l.state != nil {
		_ = l.state.Close()
	}
	l.state = f
}

// release empties the lock file and releases the lock. The file stays:
// removing it would let a server that opened it just before take a lock on
// a file nobody else sees.
func (l *stateLock) release() error {
	l.setState(nil)
	err := l.f.Truncate(0)
	if cerr := l.f.Close(); err == nil { // closing releases the lock
		err = cerr
	}
	return err
}
