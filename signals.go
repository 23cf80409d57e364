package main

import (
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// parentPoll is how often the provider checks that the Terraform process
// that started it still lives.
const parentPoll = 500 * time.Millisecond

// shutdownWait bounds the wait for the requests in flight when Terraform is
// gone; each is bounded by its request_timeout already.
const shutdownWait = 10 * time.Minute

// outliveTERM keeps the provider running after a SIGTERM for as long as the
// Terraform process that started it lives, and ends the provider once that
// process is gone, after the requests it already sent.
//
// A CI runner that cancels a job often sends SIGTERM to the whole process
// group: Terraform, and the provider it started. Terraform treats it as a
// graceful stop: it waits for the operations in flight and saves their
// results. But Go's default action would end the provider at once,
// abandoning the requests it already sent (objects created in the service
// and missing from the state; see DESIGN.md, "Interrupts finish what was
// sent"). The plugin framework already ignores SIGINT in providers for the
// same reason. So the provider ignores SIGTERM while its parent lives:
// Terraform stops it when it is done.
//
// A Terraform that is killed (SIGKILL, a crash, a CI runner that kills the
// process only) never stops its provider, and the plugin server does not
// notice: the provider would run on, alone. So once the parent is gone the
// provider starts no more requests, waits for those already sent to be
// answered (client.Shutdown: a request already sent is finished, not
// abandoned) and exits.
func outliveTERM() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM)
	go func() {
		for range ch { // ignored while the parent lives
		}
	}()
	go func() {
		parentGone()
		if !client.Shutdown(shutdownWait) {
			log.Printf("[WARN] exiting with requests still unanswered after %s: the Terraform process that started the provider is gone", shutdownWait)
		}
		os.Exit(1)
	}()
}
