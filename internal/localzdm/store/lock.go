package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// stateLock is the lock file beside a state file (its name plus ".lock"),
// holding the process ID of the server using the state file. Two servers on
// one state file would overwrite each other's changes: the second refuses
// to start.
type stateLock struct {
	f *os.File
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

// release empties the lock file and releases the lock. The file stays:
// removing it would let a server that opened it just before take a lock on
// a file nobody else sees.
func (l *stateLock) release() error {
	err := l.f.Truncate(0)
	if cerr := l.f.Close(); err == nil { // closing releases the lock
		err = cerr
	}
	return err
}
