//go:build unix

package store

import (
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without waiting. The kernel releases
// it when the process ends, however it ends.
func tryLock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) //nolint:gosec // a file descriptor fits an int
}

// lockHoldsStateFile: a state file locked and held open can be renamed
// over, so the lock holds it (see stateLock).
const lockHoldsStateFile = true
