//go:build windows

package main

import (
	"os"
	"time"
)

// parentGone returns once the process that started the provider has ended.
// Windows does not reparent a process whose parent ended, so the parent is
// waited for by its handle. A parent that cannot be opened is not watched:
// Terraform stops the provider as usual.
func parentGone() {
	p, err := os.FindProcess(os.Getppid())
	if err != nil {
		select {} // cannot watch it: Terraform stops the provider as usual
	}
	for {
		if _, err := p.Wait(); err == nil {
			return
		}
		time.Sleep(parentPoll)
	}
}
