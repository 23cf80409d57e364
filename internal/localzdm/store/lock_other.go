//go:build !unix && !windows

package store

import "os"

// tryLock does nothing where the system offers no file lock: the lock file
// still names the process, but a second server is not refused.
func tryLock(*os.File) error { return nil }

// lockHoldsStateFile: no file locks here (see stateLock).
const lockHoldsStateFile = false
