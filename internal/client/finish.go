package client

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Interrupts: a request already sent is finished, not abandoned.
//
// Terraform's graceful stop (one Ctrl-C, or SIGINT/SIGTERM of a CI job)
// cancels the context of every provider operation in flight, and then waits
// for those operations to return and saves what they report. A create,
// update or scheduling request that was aborted at that moment may still have
// acted in the service while its result is lost: the object exists and is
// outside the state, and the next apply creates it again. The two contexts
// below prevent that. Both are derived from the operation's context with
// context.WithoutCancel, so they keep its values (loggers) but not its
// cancellation.
//
//   - FinishOnceSent wraps the context of a write. Requests made with it do
//     not start once the operation was canceled (ErrNotSent: provably
//     nothing happened); an attempt already sent runs to its answer, bounded
//     by the client's request timeout; no retry starts after the
//     cancellation, and a wait for a retry ends with it.
//   - (*Client).ResolveContext is the context of the requests that find out
//     what a sent write did (the lookup after an ambiguous create, a
//     read-back after an ambiguous scheduling). They run even after the
//     cancellation, retries included, until a deadline of one request
//     timeout (at least minResolveTime) from the call.
//
// Only a forced stop (a second Ctrl-C, SIGKILL) can still cut a request.

// ErrNotSent marks a request that was not sent because the operation was
// interrupted before it started: the service did not receive it. Test for
// it with errors.Is.
var ErrNotSent = errors.New("the operation was interrupted before the request started, so the service did not receive it")

// minResolveTime is the least time ResolveContext gives the requests that
// resolve a sent write, for clients with a very short request timeout.
const minResolveTime = 5 * time.Second

type stopKey struct{}

// FinishOnceSent returns the context for a request that changes something
// (create, update, scheduling): requests made with it ignore the cancellation
// of ctx once they are sent, and start no new attempt after it. See the
// package comment on interrupts above.
func FinishOnceSent(ctx context.Context) context.Context {
	return context.WithValue(context.WithoutCancel(ctx), stopKey{}, ctx)
}

// ResolveContext returns the context for the requests that find out what a
// sent write did: it is not canceled with ctx, and ends one request timeout
// (at least minResolveTime) after the call. Call cancel when done.
func (c *Client) ResolveContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), max(c.timeout, minResolveTime))
}

// Interrupted reports whether the operation behind ctx was canceled: ctx
// itself, or for a FinishOnceSent context the context it wraps.
func Interrupted(ctx context.Context) bool {
	return stopOf(ctx).Err() != nil
}

// stopOf returns the context whose end stops new attempts of a request made
// with ctx: the wrapped context of FinishOnceSent, else ctx itself.
func stopOf(ctx context.Context) context.Context {
	if s, ok := ctx.Value(stopKey{}).(context.Context); ok {
		return s
	}
	return ctx
}

// notSentError is the error of a request that was not sent because its
// operation was interrupted.
func (c *Client) notSentError(rq *request, cause error) error {
	return &requestError{method: rq.method, path: rq.path, msg: "not sent", errs: []error{ErrNotSent, cause}, scrub: c.scrub}
}

// The process's requests in flight, for an exit of the provider that
// abandons none (Shutdown).
var flight = struct {
	mu     sync.Mutex
	closed bool
	n      int
	idle   chan struct{} // closed when n drops to 0 after Shutdown
}{}

// errShutdown is the cause of a request not started because the process is
// ending (Shutdown).
var errShutdown = errors.New("the provider is exiting: the Terraform process that started it is gone")

// startFlight counts an attempt about to be sent; false once Shutdown was
// called: the attempt must not start.
func startFlight() bool {
	flight.mu.Lock()
	defer flight.mu.Unlock()
	if flight.closed {
		return false
	}
	flight.n++
	return true
}

// endFlight counts an attempt answered, failed or abandoned.
func endFlight() {
	flight.mu.Lock()
	defer flight.mu.Unlock()
	flight.n--
	if flight.n == 0 && flight.idle != nil {
		close(flight.idle)
		flight.idle = nil
	}
}

// Shutdown makes every client of the process start no more attempts (a
// request not yet sent fails with ErrNotSent) and waits until the attempts
// already sent have ended, each bounded by its client's request timeout, or
// until wait has passed. It reports whether none was left. The provider
// calls it before it exits without Terraform (see signals.go): a request
// already sent is finished, not abandoned.
func Shutdown(wait time.Duration) bool {
	flight.mu.Lock()
	flight.closed = true
	if flight.n == 0 {
		flight.mu.Unlock()
		return true
	}
	if flight.idle == nil {
		flight.idle = make(chan struct{})
	}
	idle := flight.idle
	flight.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-idle:
		return true
	case <-t.C:
		return false
	}
}
