package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// heldCreate answers POST /v3/workspaces with a workspace, after it told
// arrived that the request came in and release was closed. It counts the
// requests.
type heldCreate struct {
	arrived chan struct{}
	release chan struct{}
	n       atomic.Int64
	// status of the first answer (0: 200); later answers are 200.
	firstStatus int
}

func newHeldCreate() *heldCreate {
	return &heldCreate{arrived: make(chan struct{}, 16), release: make(chan struct{})}
}

func (h *heldCreate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	i := h.n.Add(1)
	h.arrived <- struct{}{}
	<-h.release
	w.Header().Set("Content-Type", "application/json")
	if i == 1 && h.firstStatus != 0 {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(h.firstStatus)
		_, _ = io.WriteString(w, `{"error":{"code":"unavailable","message":"try later"}}`)
		return
	}
	_, _ = io.WriteString(w, `{"workspace":{"id":"wks-held","name":"held"}}`)
}

// createAfterCancel sends a create with ctxFor(ctx), cancels ctx once the
// server holds the request, then lets the server answer.
func createAfterCancel(t *testing.T, h *heldCreate, ctxFor func(context.Context) context.Context) (*Workspace, error) {
	return createAfterCancelWait(t, h, ctxFor, false)
}

// createAfterCancelWait is createAfterCancel; with returnsFirst, the create
// must return after the cancellation while the server still holds it, and
// only then does the server answer (so that an answer can never win a race
// with the cancellation).
func createAfterCancelWait(t *testing.T, h *heldCreate, ctxFor func(context.Context) context.Context, returnsFirst bool) (*Workspace, error) {
	t.Helper()
	c, _ := newTestClient(t, h, nil)
	ctx, cancel := context.WithCancel(t.Context())
	type result struct {
		w   *Workspace
		err error
	}
	done := make(chan result, 1)
	go func() {
		w, err := c.CreateWorkspace(ctxFor(ctx), "held", "")
		done <- result{w, err}
	}()
	<-h.arrived
	cancel()
	if returnsFirst {
		select {
		case r := <-done:
			close(h.release)
			return r.w, r.err
		case <-time.After(10 * time.Second):
			close(h.release)
			t.Fatal("the create did not return after its context was canceled")
		}
	}
	close(h.release)
	r := <-done
	return r.w, r.err
}

// TestFinishOnceSentCompletesAfterCancel: a create whose operation is
// canceled while the server holds it returns the server's answer. The
// control, with the operation's own context, is aborted.
func TestFinishOnceSentCompletesAfterCancel(t *testing.T) {
	h := newHeldCreate()
	w, err := createAfterCancel(t, h, FinishOnceSent)
	if err != nil || w == nil || w.ID != "wks-held" {
		t.Fatalf("create with FinishOnceSent after cancel: %+v, %v; want the created workspace", w, err)
	}
	if h.n.Load() != 1 {
		t.Errorf("%d requests, want 1", h.n.Load())
	}

	control := newHeldCreate()
	w, err = createAfterCancelWait(t, control, func(ctx context.Context) context.Context { return ctx }, true)
	if err == nil || !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("control: create with the canceled context: %+v, %v; want an ambiguous abort", w, err)
	}
}

// TestFinishOnceSentNoRetryAfterCancel: a create answered 503 after its
// operation was canceled is not retried (a retry would be a new request);
// the control, not canceled, is retried and succeeds.
func TestFinishOnceSentNoRetryAfterCancel(t *testing.T) {
	h := newHeldCreate()
	h.firstStatus = http.StatusServiceUnavailable
	_, err := createAfterCancel(t, h, FinishOnceSent)
	if err == nil || !IsStatus(err, http.StatusServiceUnavailable) || !errors.Is(err, context.Canceled) {
		t.Fatalf("create answered 503 after cancel: %v; want the 503, stopped by the cancellation", err)
	}
	if errors.Is(err, ErrAmbiguous) {
		t.Errorf("a 503 is not ambiguous: %v", err)
	}
	if h.n.Load() != 1 {
		t.Errorf("%d requests after cancel, want 1 (no retry)", h.n.Load())
	}

	control := newHeldCreate()
	control.firstStatus = http.StatusServiceUnavailable
	close(control.release)
	c, _ := newTestClient(t, control, nil)
	if _, err := c.CreateWorkspace(FinishOnceSent(t.Context()), "held", ""); err != nil {
		t.Fatalf("control: %v", err)
	}
	if control.n.Load() != 2 {
		t.Errorf("control: %d requests, want 2 (one retry)", control.n.Load())
	}
}

// TestFinishOnceSentNotSentAfterCancel: no request starts once the
// operation was canceled, and the error proves it (ErrNotSent).
func TestFinishOnceSentNotSentAfterCancel(t *testing.T) {
	h := newHeldCreate()
	close(h.release)
	c, _ := newTestClient(t, h, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := c.CreateWorkspace(FinishOnceSent(ctx), "held", "")
	if !errors.Is(err, ErrNotSent) || errors.Is(err, ErrAmbiguous) {
		t.Fatalf("create after cancel: %v; want ErrNotSent", err)
	}
	if !Interrupted(FinishOnceSent(ctx)) || Interrupted(FinishOnceSent(t.Context())) {
		t.Error("Interrupted does not follow the wrapped context")
	}
	if h.n.Load() != 0 {
		t.Errorf("%d requests reached the server after cancel, want 0", h.n.Load())
	}
	// Control: the same call before any cancellation is sent.
	if _, err := c.CreateWorkspace(FinishOnceSent(t.Context()), "held", ""); err != nil || h.n.Load() != 1 {
		t.Fatalf("control: %v, %d requests; want success and 1 request", err, h.n.Load())
	}
}

// TestResolveContextOutlivesCancel: requests made with ResolveContext run
// after the operation was canceled, and the context has a deadline.
func TestResolveContextOutlivesCancel(t *testing.T) {
	seq := &sequence{steps: []step{{status: 200, body: `{"workspaces":[]}`}}}
	c, _ := newTestClient(t, seq, func(cfg *Config) { cfg.RequestTimeout = time.Second })
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	rctx, rcancel := c.ResolveContext(ctx)
	defer rcancel()
	if _, ok := rctx.Deadline(); !ok {
		t.Error("ResolveContext has no deadline")
	}
	if _, err := c.ListWorkspaces(rctx); err != nil || seq.count() != 1 {
		t.Fatalf("list with ResolveContext after cancel: %v, %d requests", err, seq.count())
	}
	// Control: the canceled context itself sends nothing.
	if _, err := c.ListWorkspaces(ctx); err == nil || seq.count() != 1 {
		t.Fatalf("control: list with the canceled context: %v, %d requests", err, seq.count())
	}
}

// TestEarliestServiceTime follows a service whose clock runs one hour ahead:
// the bound is never later than the service's clock and is within the
// Date header's one-second precision (plus the round trip) of it.
func TestEarliestServiceTime(t *testing.T) {
	const ahead = time.Hour
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Date", time.Now().Add(ahead).UTC().Format(http.TimeFormat))
		_, _ = io.WriteString(w, `{"workspaces":[]}`)
	})
	c, _ := newTestClient(t, h, nil)
	if _, ok := c.EarliestServiceTime(time.Now()); ok {
		t.Fatal("a service time is known before any answer")
	}
	if _, err := c.ListWorkspaces(t.Context()); err != nil {
		t.Fatal(err)
	}
	local := time.Now()
	got, ok := c.EarliestServiceTime(local)
	if !ok {
		t.Fatal("no service time after an answer with a Date header")
	}
	if offset := got.Sub(local); offset > ahead || offset < ahead-time.Minute {
		t.Errorf("offset %s, want at most %s and close to it", offset, ahead)
	}
}
