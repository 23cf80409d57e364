//go:build windows

package store

import (
	"os"
	"syscall"
	"unsafe"
)

var lockFileEx = syscall.NewLazyDLL("kernel32.dll").NewProc("LockFileEx")

// tryLock takes an exclusive lock on f without waiting (LockFileEx). The
// system releases it when the process ends, however it ends.
func tryLock(f *os.File) error {
	const lockfileExclusiveLock, lockfileFailImmediately = 2, 1
	var ol syscall.Overlapped
	r, _, err := lockFileEx.Call(f.Fd(), lockfileExclusiveLock|lockfileFailImmediately, 0, 1, 0, uintptr(unsafe.Pointer(&ol))) //nolint:gosec // G103: LockFileEx takes a pointer to an OVERLAPPED.
	if r == 0 {
		return err
	}
	return nil
}

// lockHoldsStateFile: a file held open cannot be renamed over, so the lock
// does not hold the state file (see stateLock); hard links are not seen.
const lockHoldsStateFile = false
