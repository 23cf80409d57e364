package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// errBodyLimit is how much of an error answer is read to parse it.
const errBodyLimit = 64 << 10

// request is one API call before it is sent.
type request struct {
	method   string
	base     *baseURL
	segments []string
	query    url.Values
	body     []byte // nil: no body

	// restartable tells that a stream that breaks off while the answer is
	// read may start again on another attempt: it keeps nothing of a
	// failed attempt (the lists: see getListEach).
	restartable bool

	// Set by do.
	url  *url.URL
	path string   // escaped, for messages and logs
	turn paceTurn // of the attempt in the pace of its service
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuffer() *bytes.Buffer {
	b, ok := bufPool.Get().(*bytes.Buffer)
	if !ok {
		return new(bytes.Buffer)
	}
	b.Reset()
	return b
}

// maxBodyPreallocation is the largest Content-Length the buffer of an
// answer is sized to before reading; a larger answer grows as it arrives.
const maxBodyPreallocation = 1 << 30

// answerReader is the body of a 2xx answer handed to a stream: it records
// the first error of reading it other than its end (the connection broke
// off, the timeout), its announced length, and its first bytes for
// messages.
type answerReader struct {
	r      io.Reader
	length int64 // Content-Length; -1 when unknown
	err    error
	start  []byte
}

// answerStartSize is how much of an answer's start an answerReader keeps.
const answerStartSize = 256

func (a *answerReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if room := answerStartSize - len(a.start); room > 0 {
		a.start = append(a.start, p[:min(n, room)]...)
	}
	if err != nil && err != io.EOF && a.err == nil {
		a.err = err
	}
	return n, err
}

// putBuffer returns a buffer to the pool unless it grew large.
func putBuffer(b *bytes.Buffer) {
	if b != nil && b.Cap() <= 1<<20 {
		bufPool.Put(b)
	}
}

// attemptResult is the outcome of one attempt.
type attemptResult struct {
	buf        *bytes.Buffer // 2xx body when not streaming
	err        error
	retry      bool          // the error may go away on another attempt
	retryAfter time.Duration // from the Retry-After header, when hasWait
	hasWait    bool
	answered   bool // the service answered (any status)
	refused    bool // it answered 429
	// outage: a service that answered before refused or reset the
	// connection (retry is set): retried for up to the client's outage
	// bound rather than a number of times.
	outage bool
}

// do sends rq, retrying according to the retry rules. With stream nil, the
// body of the 2xx answer is read into a pooled buffer that the caller hands
// back with putBuffer. Otherwise stream consumes the body during the attempt
// (and the attempt's timeout), and errors after that point are not retried.
func (c *Client) do(ctx context.Context, rq *request, stream func(io.Reader) error) (*bytes.Buffer, error) {
	if rq.base == nil {
		return nil, errors.New("client: the storage service URL is not configured (provider setting storage_url)")
	}
	if rq.method == http.MethodGet {
		c.mutantWriteOnRead(ctx)
	}
	rq.url = rq.base.endpoint(rq.segments, rq.query)
	rq.path = c.scrub(rq.url.EscapedPath())
	u, path := rq.url, rq.path
	// stop ends the request between attempts; ctx bounds each attempt. They
	// differ for FinishOnceSent contexts (see finish.go).
	stop := stopOf(ctx)
	if err := stop.Err(); err != nil {
		return nil, c.notSentError(rq, err)
	}
	var outageSince time.Time // the first outage failure of this request
	for attempt := 1; ; attempt++ {
		round, err := c.pace(ctx, stop, rq)
		rq.turn = round
		var spent *QuotaSpentError
		if errors.As(err, &spent) {
			msg := "not sent"
			spent.notSent = attempt == 1
			if attempt > 1 {
				msg = fmt.Sprintf("not retried after %d attempts", attempt-1)
			}
			return nil, &requestError{method: rq.method, path: path, msg: msg, errs: []error{spent}, scrub: c.scrub}
		}
		if err != nil {
			if attempt == 1 {
				return nil, c.notSentError(rq, err)
			}
			return nil, &retryStopError{last: err, cause: err,
				reason: fmt.Sprintf("not retried after %d attempts: the operation was interrupted", attempt-1)}
		}
		if !startFlight() {
			if attempt == 1 {
				return nil, c.notSentError(rq, errShutdown)
			}
			return nil, &retryStopError{last: errShutdown, cause: errShutdown,
				reason: fmt.Sprintf("not retried after %d attempts: the provider is exiting", attempt-1)}
		}
		res := c.attempt(ctx, rq, u, path, attempt, stream)
		endFlight()
		if res.refused {
			// The hold is capped as every retry wait is (RetryWaitMax).
			rq.base.pace.refused(round, min(res.retryAfter, c.waitMax), res.hasWait)
		} else if res.answered {
			rq.base.pace.accepted(round)
		}
		if res.err == nil {
			return res.buf, nil
		}
		if !res.retry {
			return nil, res.err
		}
		if err := stop.Err(); err != nil {
			return nil, &retryStopError{last: res.err, cause: err,
				reason: fmt.Sprintf("not retried after %d attempts: the operation was interrupted", attempt)}
		}
		var wait time.Duration
		switch {
		case res.outage && c.retries > 0:
			// A restart of the service: retried for up to c.outage, in
			// short waits so that its return is seen soon.
			if outageSince.IsZero() {
				outageSince = time.Now()
			}
			left := c.outage - time.Since(outageSince)
			if left <= 0 {
				return nil, &retryStopError{last: res.err, reason: fmt.Sprintf("gave up after %d attempts: the service, "+
					"which answered earlier, refused or reset the connections for %s", attempt, c.outage)}
			}
			wait = min(c.backoff(attempt), outageWaitMax, left)
		case attempt > c.retries:
			if attempt == 1 {
				return nil, res.err
			}
			return nil, &retryStopError{last: res.err, reason: fmt.Sprintf("gave up after %d attempts", attempt)}
		default:
			// Retry-After is the least wait: a shorter one (such as "0")
			// must not make the retries of a rate-limited request run back
			// to back.
			wait = c.backoff(attempt)
			if res.hasWait {
				wait = min(max(res.retryAfter, wait), c.waitMax)
			}
		}
		if deadline, ok := earliestDeadline(ctx, stop); ok && time.Until(deadline) < wait {
			return nil, &retryStopError{last: res.err, cause: context.DeadlineExceeded,
				reason: fmt.Sprintf("gave up after %d attempts: the next one, in %s, would pass the deadline", attempt, wait)}
		}
		c.log(ctx, "retrying API request", map[string]any{
			"method": rq.method, "path": path, "attempt": attempt, "wait_ms": wait.Milliseconds(), "error": res.err.Error(),
		})
		if err := c.sleep(stop, wait); err != nil {
			return nil, &retryStopError{last: res.err, cause: err,
				reason: fmt.Sprintf("stopped waiting to retry after %d attempts: %v", attempt, err)}
		}
	}
}

// pace waits for the request's turn in the pace of its service (pace.go),
// and returns the round of the pace it starts in.
func (c *Client) pace(ctx, stop context.Context, rq *request) (paceTurn, error) {
	p := &rq.base.pace
	ticket := p.reserve()
	for {
		d, round, rate := p.turn(ticket)
		if d <= 0 {
			return round, stop.Err()
		}
		if err := c.quotaWait(ctx, stop, p); err != nil {
			return round, err
		}
		d = min(d, paceTick)
		c.log(ctx, "pacing API request", map[string]any{
			"method": rq.method, "path": rq.path, "wait_ms": d.Milliseconds(), "requests_per_second": rate,
		})
		start := time.Now()
		if err := c.sleep(stop, d); err != nil {
			return round, err
		}
		if time.Since(start) < d/2 {
			// The wait returned early (a Sleep hook that does not
			// sleep): go now rather than ask again and again.
			return p.start(), stop.Err()
		}
	}
}

// quotaWait returns a *QuotaSpentError when the service said the quota is
// used up until a reset later than the request may wait: its
// request_timeout, or its deadline when sooner. A wait of hours for a quota
// is not a pace: the apply would wait silently for it.
func (c *Client) quotaWait(ctx, stop context.Context, p *pacer) error {
	reset, said, ok := p.spent()
	if !ok {
		return nil
	}
	now := time.Now()
	bound, what := c.timeout, fmt.Sprintf("the provider setting request_timeout (%s)", c.timeout)
	if deadline, ok := earliestDeadline(ctx, stop); ok && deadline.Sub(now) < bound {
		bound, what = deadline.Sub(now), fmt.Sprintf("the operation's deadline (in %s)", deadline.Sub(now).Round(time.Second))
	}
	if reset.Sub(now) <= bound {
		return nil
	}
	return &QuotaSpentError{Reset: reset, In: reset.Sub(now), Said: said, Bound: what}
}

// earliestDeadline returns the earlier deadline of a and b, if any.
func earliestDeadline(a, b context.Context) (time.Time, bool) {
	da, oka := a.Deadline()
	db, okb := b.Deadline()
	switch {
	case oka && okb:
		if db.Before(da) {
			return db, true
		}
		return da, true
	case okb:
		return db, true
	default:
		return da, oka
	}
}

// retryStopError is the last error of a retried request, with why the
// retries stopped. It matches both the last error and the cause with
// errors.Is and errors.As.
type retryStopError struct {
	last   error
	cause  error // the context's error, if it stopped the retries
	reason string
}

func (e *retryStopError) Error() string { return e.last.Error() + " (" + e.reason + ")" }

func (e *retryStopError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.last}
	}
	return []error{e.last, e.cause}
}

// Sleep waits d, or less when ctx is done first (then it returns ctx's
// error): the clock of the client's retries and of the rollout engine's
// pacing.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// backoff returns the wait before retry number attempt (1-based) when the
// server gave no Retry-After, or a shorter one: capped exponential backoff
// with jitter, uniform in [RetryWaitMin, min(RetryWaitMax,
// RetryWaitMin*2^(attempt-1))].
func (c *Client) backoff(attempt int) time.Duration {
	ceiling := c.waitMin
	for i := 1; i < attempt && ceiling < c.waitMax; i++ {
		if ceiling > c.waitMax/2 {
			ceiling = c.waitMax
			break
		}
		ceiling *= 2
	}
	ceiling = min(ceiling, c.waitMax)
	spread := ceiling - c.waitMin
	if spread <= 0 {
		return c.waitMin
	}
	jitter, err := rand.Int(rand.Reader, big.NewInt(int64(spread)+1))
	if err != nil {
		return ceiling
	}
	return c.waitMin + time.Duration(jitter.Int64())
}

// parseRetryAfter reads a Retry-After header: delta-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(365*24*time.Hour/time.Second) {
			secs = int64(365 * 24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

func (c *Client) attempt(ctx context.Context, rq *request, u *url.URL, path string, attempt int, stream func(io.Reader) error) attemptResult {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var wrote atomic.Bool
	actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { wrote.Store(true) },
	})
	req, err := c.newRequest(actx, rq, u)
	if err != nil {
		return attemptResult{err: &requestError{method: rq.method, path: path, msg: "building the request", errs: []error{err}, scrub: c.scrub}}
	}
	start := time.Now()
	fields := map[string]any{"method": rq.method, "path": path, "attempt": attempt}
	logDone := func(status int, err error) {
		fields["duration_ms"] = time.Since(start).Milliseconds()
		if status != 0 {
			fields["status"] = status
		}
		if err != nil {
			fields["error"] = err.Error()
			c.log(ctx, "API request failed", fields)
			return
		}
		c.log(ctx, "API request", fields)
	}

	resp, err := c.http.Do(req)
	if err != nil {
		res := c.transportFailure(ctx, actx, rq, path, err, wrote.Load(), "")
		logDone(0, res.err)
		return res
	}
	rq.base.reached.Store(true)
	defer func() { _ = resp.Body.Close() }()
	c.clock.observe(resp.Header.Get("Date"), time.Now())
	if q, ok := parseQuota(resp.Header, time.Now()); ok {
		rq.base.pace.quota(rq.turn, q)
	}

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		res := c.errorAnswer(rq, path, resp)
		logDone(resp.StatusCode, res.err)
		return res
	}

	if stream != nil {
		body := &answerReader{r: resp.Body, length: resp.ContentLength}
		err := stream(body)
		if err != nil && rq.restartable && body.err != nil {
			// The answer broke off while it was read: as with an answer
			// read whole, the request is retried by the rules, and the
			// stream starts again.
			res := c.transportFailure(ctx, actx, rq, path, body.err, true, fmt.Sprintf("reading the %s answer", statusLine(resp.StatusCode)))
			logDone(resp.StatusCode, res.err)
			res.answered = true
			return res
		}
		if err != nil {
			err = c.streamFailure(ctx, actx, rq, path, err)
		}
		logDone(resp.StatusCode, err)
		return attemptResult{err: err, answered: true}
	}
	buf := getBuffer()
	if n := resp.ContentLength; n > 0 && n <= maxBodyPreallocation {
		// One allocation of the announced size (and the room ReadFrom
		// wants to see free before it finds the end), instead of doubling
		// through copies of a large list.
		buf.Grow(int(n) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		putBuffer(buf)
		res := c.transportFailure(ctx, actx, rq, path, err, true, fmt.Sprintf("reading the %s answer", statusLine(resp.StatusCode)))
		logDone(resp.StatusCode, res.err)
		res.answered = true
		return res
	}
	logDone(resp.StatusCode, nil)
	return attemptResult{buf: buf, answered: true}
}

func (c *Client) newRequest(ctx context.Context, rq *request, u *url.URL) (*http.Request, error) {
	var body io.Reader
	if rq.body != nil {
		body = bytes.NewReader(rq.body)
	}
	req, err := http.NewRequestWithContext(ctx, rq.method, u.String(), body)
	if err != nil {
		return nil, err
	}
	// NewRequest parses the string again; keep our exact escaping.
	req.URL = u
	req.Header.Set("X-API-KEY", c.key)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	return req, nil
}

// errorAnswer turns a non-2xx answer into an APIError and decides whether to
// retry it.
func (c *Client) errorAnswer(rq *request, path string, resp *http.Response) attemptResult {
	buf := getBuffer()
	defer putBuffer(buf)
	_, _ = buf.ReadFrom(io.LimitReader(resp.Body, errBodyLimit))
	// Drain a little more so that the connection can be reused.
	_, _ = io.CopyN(io.Discard, resp.Body, errBodyLimit)
	apiErr := newAPIError(resp.StatusCode, rq.method, path, resp.Header.Get("Content-Type"), buf.Bytes(), c.scrub)
	res := attemptResult{err: apiErr, answered: true, refused: resp.StatusCode == http.StatusTooManyRequests}
	idempotent := rq.method != http.MethodPost
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		res.retry = true
	case http.StatusBadGateway, http.StatusGatewayTimeout:
		res.retry = idempotent
	}
	if res.retry {
		res.retryAfter, res.hasWait = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return res
}

// transportFailure classifies an error of the transport: the request failed
// without an answer, or reading the answer failed. GET and PUT are retried;
// a POST only when it cannot have reached the server.
func (c *Client) transportFailure(ctx, actx context.Context, rq *request, path string, err error, wrote bool, what string) attemptResult {
	if ctx.Err() != nil {
		// The caller's context ended: never retry.
		return attemptResult{err: &requestError{method: rq.method, path: path, msg: "request aborted", errs: []error{ctx.Err()}, ambiguous: rq.method == http.MethodPost && wrote, scrub: c.scrub}}
	}
	e := &requestError{method: rq.method, path: path, scrub: c.scrub}
	if actx.Err() == context.DeadlineExceeded {
		e.msg = c.timeoutMessage(what)
		e.errs = []error{context.DeadlineExceeded}
	} else {
		e.msg = "request failed"
		if what != "" {
			e.msg = what + " failed"
		}
		e.errs = []error{unwrapURLError(err)}
	}
	// After the service answered once, a refused connection is a restart,
	// not a wrong address: a dial that was refused delivered nothing, so
	// any method is retried; a reset, only when the method is idempotent.
	reached := rq.base != nil && rq.base.reached.Load()
	if hint, ok := connectHint(err, rq.base); ok {
		e.msg = "cannot connect"
		e.hint = hint
		if reached && errors.Is(err, syscall.ECONNREFUSED) {
			return attemptResult{err: e, retry: true, outage: true}
		}
		// The request never reached a ZDM service: another attempt would
		// fail the same way, so none is made.
		return attemptResult{err: e}
	}
	if rq.method == http.MethodPost && wrote && !isDialError(err) {
		e.ambiguous = true
		if e.msg == "request failed" {
			e.msg = "the connection failed after the request was sent"
		}
		return attemptResult{err: e}
	}
	return attemptResult{err: e, retry: true, outage: reached && rq.method != http.MethodPost && errors.Is(err, syscall.ECONNRESET)}
}

// outageWaitMax caps each wait between the attempts of an outage (see
// Config.OutageRetry): a restart takes seconds, and its end should be seen
// soon.
const outageWaitMax = 2 * time.Second

// streamFailure wraps an error that happened while the body of a 2xx answer
// was being consumed. These are not retried: part of the answer was used.
func (c *Client) streamFailure(ctx, actx context.Context, rq *request, path string, err error) error {
	if ctx.Err() == nil && actx.Err() == context.DeadlineExceeded {
		return &requestError{method: rq.method, path: path, msg: c.timeoutMessage("reading the answer"), errs: []error{context.DeadlineExceeded}, scrub: c.scrub}
	}
	var callbackErr *callbackError
	if errors.As(err, &callbackErr) {
		return callbackErr.err
	}
	if ctx.Err() != nil {
		return &requestError{method: rq.method, path: path, msg: "request aborted while reading the answer", errs: []error{ctx.Err()}, scrub: c.scrub}
	}
	return &requestError{method: rq.method, path: path, msg: "decoding the answer", errs: []error{err}, scrub: c.scrub}
}

func (c *Client) timeoutMessage(what string) string {
	if what == "" {
		what = "request"
	}
	return fmt.Sprintf("%s timed out after %s (raise the provider setting request_timeout if the service is slow)", what, c.timeout)
}

// callbackError carries an error returned by the caller's callback through
// the stream decoder unchanged.
type callbackError struct{ err error }

func (e *callbackError) Error() string { return e.err.Error() }
func (e *callbackError) Unwrap() error { return e.err }

// connectHint explains an error of a request that could not reach the
// service at all, and how to fix it: nothing listens at the address, its
// host name is unknown, or an https:// address points at a plain-HTTP
// server (which answers the TLS hello with HTTP, or with no TLS record).
// ok is false for any other error (which may be transient).
func connectHint(err error, b *baseURL) (hint string, ok bool) {
	setting := "the service address"
	host := ""
	if b != nil {
		setting, host = b.setting, b.host
	}
	var dnsErr *net.DNSError
	var record tls.RecordHeaderError // a server answering the TLS hello with no TLS at all (an HTML page)
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("nothing accepts connections at %s: check that the service (or zdm-local) runs there, "+
			"and the host and port of %s", host, setting), true
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return fmt.Sprintf("the host %q is unknown: check the host name of %s", dnsErr.Name, setting), true
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") || errors.As(err, &record):
		return fmt.Sprintf("the server at %s answers plain HTTP, not HTTPS: use an http:// address in %s, "+
			"with insecure_http = true (or ZDM_INSECURE_HTTP=true), which plain HTTP requires", host, setting), true
	}
	return "", false
}

func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// unwrapURLError drops the *url.Error wrapper, whose text repeats the method
// and URL that requestError already names.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

func (c *Client) log(ctx context.Context, msg string, fields map[string]any) {
	if c.logger != nil {
		c.logger(ctx, msg, fields)
	}
}
