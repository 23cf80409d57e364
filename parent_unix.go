//go:build !windows

package main

import (
	"os"
	"time"
)

// parentGone returns once the process that started the provider has ended:
// its children are then adopted by another process (init or a subreaper),
// so the parent's process ID changes.
func parentGone() {
	parent := os.Getppid()
	for os.Getppid() == parent {
		time.Sleep(parentPoll)
	}
}
