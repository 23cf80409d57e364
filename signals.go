package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// outliveTERM keeps the provider running after a SIGTERM for as long as the
// Terraform process that started it lives.
//
// A CI runner that cancels a job often sends SIGTERM to the whole process
// group: Terraform, and the provider it started. Terraform treats it as a
// graceful stop: it waits for the operations in flight and saves their
// results. But Go's default action would end the provider at once,
// abandoning the requests it already sent (objects created in the service
// and missing from the state; see DESIGN.md, "Interrupts finish what was
// sent"). The plugin framework already ignores SIGINT in providers for the
// same reason. So the provider ignores SIGTERM while its parent lives:
// Terraform stops it when it is done, and if Terraform is gone (a forced
// stop), the provider exits within half a second.
func outliveTERM() {
	parent := os.Getppid()
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM)
	go func() {
		<-ch
		for os.Getppid() == parent {
			time.Sleep(500 * time.Millisecond)
		}
		os.Exit(1)
	}()
}
