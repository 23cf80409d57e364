package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/apierr"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/httpio"
)

// Actions of a RequestFault.
const (
	// FaultReset closes the connection before the service acts, without
	// answering.
	FaultReset = "reset"
	// FaultDropAnswer lets the service handle the request (acting when it
	// succeeds), then closes the connection instead of answering.
	FaultDropAnswer = "drop_answer"
	// FaultDelay holds the request for Delay, then lets the service act even
	// when the client has given up meanwhile (its answer is then lost).
	FaultDelay = "delay"
	// FaultHTMLError answers Status (default 500) with an HTML error page,
	// as a proxy would, without acting.
	FaultHTMLError = "html_error"
	// FaultNotFound answers 404 with the plain text "404 page not found", as
	// a host or port that serves something else would, without acting.
	FaultNotFound = "not_found"
)

// A RequestFault acts on the API requests (both services, never the admin
// API) that match its Method and Path, before any other fault.
type RequestFault struct {
	// ID is assigned by AddRequestFault.
	ID int `json:"id"`
	// Method matches the request method; empty matches every method.
	Method string `json:"method"`
	// Path matches the request path segment by segment: a segment in
	// braces ("{workspace_id}") matches any segment, others match exactly
	// (unescaped), and a last segment "*" matches any rest, so
	// "/v3/workspaces/{workspace_id}/devices" matches the device list and
	// creation of every workspace and "/v3/*" every API path. Empty
	// matches every path.
	Path string `json:"path"`
	// Action is FaultReset, FaultDropAnswer, FaultDelay, FaultHTMLError or
	// FaultNotFound.
	Action string `json:"action"`
	// Count is how many matching requests the fault acts on (the next
	// Count ones); 0 means every matching request.
	Count int `json:"count"`
	// For ends the fault this long after it was added; 0 means never.
	For time.Duration `json:"for"`
	// Delay is how long FaultDelay holds a request (at most MaxFaultDelay).
	Delay time.Duration `json:"delay"`
	// Status is the status FaultHTMLError answers (400..599, default 500):
	// a proxy's 400 or 403 as well as its 5xx.
	Status int `json:"status"`

	// Hits is how many requests the fault acted on (read only).
	Hits int `json:"hits"`
	// Active reports whether the fault still acts: its Count is not used
	// up and its For has not ended (read only).
	Active bool `json:"active"`

	segs    []string
	prefix  bool
	expires time.Time
}

// requestFaultJSON is the admin API shape of RequestFault: durations are Go
// duration strings or numbers of milliseconds.
type requestFaultJSON struct {
	ID     int    `json:"id"`
	Method string `json:"method"`
	Path   string `json:"path"`
	Action string `json:"action"`
	Count  int    `json:"count"`
	For    any    `json:"for"`
	Delay  any    `json:"delay"`
	Status int    `json:"status"`
	Hits   int    `json:"hits"`
	Active bool   `json:"active"`
}

// MarshalJSON renders durations as Go duration strings.
func (f RequestFault) MarshalJSON() ([]byte, error) {
	return json.Marshal(requestFaultJSON{
		ID: f.ID, Method: f.Method, Path: f.Path, Action: f.Action, Count: f.Count,
		For: f.For.String(), Delay: f.Delay.String(), Status: f.Status, Hits: f.Hits, Active: f.Active,
	})
}

// UnmarshalJSON accepts durations as Go duration strings or milliseconds.
func (f *RequestFault) UnmarshalJSON(data []byte) error {
	var in requestFaultJSON
	if err := httpio.StrictUnmarshal(data, &in); err != nil {
		return err
	}
	window, err := httpio.ParseDurationJSON("for", in.For, MaxFaultWindow)
	if err != nil {
		return err
	}
	delay, err := httpio.ParseDurationJSON("delay", in.Delay, MaxFaultDelay)
	if err != nil {
		return err
	}
	*f = RequestFault{
		ID: in.ID, Method: in.Method, Path: in.Path, Action: in.Action, Count: in.Count,
		For: window, Delay: delay, Status: in.Status, Hits: in.Hits, Active: in.Active,
	}
	return nil
}

// validate reports the first invalid setting and prepares the path matcher.
func (f *RequestFault) validate() error {
	switch f.Action {
	case FaultReset, FaultDropAnswer, FaultNotFound:
	case FaultDelay:
		if err := httpio.CheckDuration("delay", f.Delay, MaxFaultDelay); err != nil {
			return err
		}
		if f.Delay == 0 {
			return apierr.InvalidArgument("\"delay\" of a %q fault is required, e.g. \"5s\"", FaultDelay)
		}
	case FaultHTMLError:
		if f.Status == 0 {
			f.Status = http.StatusInternalServerError
		}
		if f.Status < 400 || f.Status > 599 {
			return apierr.InvalidArgument("\"status\" of a %q fault must be between 400 and 599, got %d", FaultHTMLError, f.Status)
		}
	case "":
		return apierr.InvalidArgument("\"action\" is required: %q, %q, %q, %q or %q", FaultReset, FaultDropAnswer, FaultDelay, FaultHTMLError, FaultNotFound)
	default:
		return apierr.InvalidArgument("\"action\" must be %q, %q, %q, %q or %q, not %q", FaultReset, FaultDropAnswer, FaultDelay, FaultHTMLError, FaultNotFound, f.Action)
	}
	if f.Action != FaultDelay && f.Delay != 0 {
		return apierr.InvalidArgument("\"delay\" applies to %q faults only", FaultDelay)
	}
	if f.Action != FaultHTMLError && f.Status != 0 {
		return apierr.InvalidArgument("\"status\" applies to %q faults only", FaultHTMLError)
	}
	if f.Method != "" && f.Method != strings.ToUpper(f.Method) {
		return apierr.InvalidArgument("\"method\" must be an upper-case HTTP method such as \"POST\", not %q", f.Method)
	}
	switch {
	case f.Count < 0:
		return apierr.InvalidArgument("\"count\" must not be negative (0 means every matching request), got %d", f.Count)
	}
	if err := httpio.CheckDuration("for", f.For, MaxFaultWindow); err != nil {
		return err
	}
	f.segs, f.prefix = nil, false
	if f.Path != "" {
		if !strings.HasPrefix(f.Path, "/") {
			return apierr.InvalidArgument("\"path\" must start with \"/\" (e.g. \"/v3/workspaces/{workspace_id}/devices\"), not %q", f.Path)
		}
		segs := strings.Split(f.Path[1:], "/")
		if segs[len(segs)-1] == "*" {
			f.prefix = true
			segs = segs[:len(segs)-1]
		}
		if slices.Contains(segs, "*") {
			return apierr.InvalidArgument("\"path\": \"*\" may only be the last segment, in %q", f.Path)
		}
		f.segs = segs
	}
	return nil
}

// matches reports whether the fault applies to a request (not whether it is
// still active).
func (f *RequestFault) matches(method string, segs []string) bool {
	if f.Method != "" && f.Method != method {
		return false
	}
	if f.Path == "" {
		return true
	}
	if len(segs) < len(f.segs) || (!f.prefix && len(segs) != len(f.segs)) {
		return false
	}
	for i, p := range f.segs {
		if httpio.IsWildcard(p) {
			if segs[i] == "" {
				return false
			}
		} else if p != segs[i] {
			return false
		}
	}
	return true
}

func (f *RequestFault) active(now time.Time) bool {
	return (f.Count == 0 || f.Hits < f.Count) && (f.expires.IsZero() || now.Before(f.expires))
}

// requestFaults holds the request faults in the order they were added.
type requestFaults struct {
	mu     sync.Mutex
	next   int
	faults []*RequestFault
}

// AddRequestFault adds a fault acting on matching API requests and returns
// its ID. Faults are tried in the order they were added; the first active
// one that matches a request acts on it.
func (s *Set) AddRequestFault(f RequestFault) (int, error) {
	if err := f.validate(); err != nil {
		return 0, err
	}
	rf := &s.reqFaults
	rf.mu.Lock()
	defer rf.mu.Unlock()
	rf.next++
	f.ID, f.Hits = rf.next, 0
	if f.For > 0 {
		f.expires = time.Now().Add(f.For)
	}
	rf.faults = append(rf.faults, &f)
	return f.ID, nil
}

// RequestFaults returns the request faults added since the last
// ClearRequestFaults, spent ones included, with their hits.
func (s *Set) RequestFaults() []RequestFault {
	rf := &s.reqFaults
	rf.mu.Lock()
	defer rf.mu.Unlock()
	now := time.Now()
	out := make([]RequestFault, 0, len(rf.faults))
	for _, f := range rf.faults {
		c := *f
		c.Active = f.active(now)
		out = append(out, c)
	}
	return out
}

// RemoveRequestFault removes one request fault.
func (s *Set) RemoveRequestFault(id int) error {
	rf := &s.reqFaults
	rf.mu.Lock()
	defer rf.mu.Unlock()
	i := slices.IndexFunc(rf.faults, func(f *RequestFault) bool { return f.ID == id })
	if i < 0 {
		return apierr.NotFound("request fault %d not found", id)
	}
	rf.faults = slices.Delete(rf.faults, i, i+1)
	return nil
}

// ClearRequestFaults removes every request fault.
func (s *Set) ClearRequestFaults() {
	rf := &s.reqFaults
	rf.mu.Lock()
	rf.faults = nil
	rf.mu.Unlock()
}

// TakeRequestFault returns the action the first active matching fault takes
// on a request, counting the hit, or nil.
func (s *Set) TakeRequestFault(method string, segs []string) *RequestFault {
	rf := &s.reqFaults
	rf.mu.Lock()
	defer rf.mu.Unlock()
	now := time.Now()
	for _, f := range rf.faults {
		if f.active(now) && f.matches(method, segs) {
			f.Hits++
			c := *f
			return &c
		}
	}
	return nil
}

// htmlErrorPage is the body of FaultHTMLError answers.
const htmlErrorPage = `<html>
<head><title>%[1]d %[2]s</title></head>
<body>
<center><h1>%[1]d %[2]s</h1></center>
<hr><center>proxy</center>
</body>
</html>
`

// ApplyRequestFault acts on a request before the service sees it. It
// reports whether the request was answered (or dropped); it may replace r
// (FaultDelay) and returns whether the answer must be dropped after the
// service acted (FaultDropAnswer).
func (s *Set) ApplyRequestFault(w http.ResponseWriter, r *http.Request, f *RequestFault) (*http.Request, bool, bool) {
	switch f.Action {
	case FaultReset:
		httpio.DropConnection(w)
		return r, true, false
	case FaultHTMLError:
		body := fmt.Appendf(nil, htmlErrorPage, f.Status, http.StatusText(f.Status))
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(f.Status)
		_, _ = w.Write(body)
		return r, true, false
	case FaultNotFound:
		http.NotFound(w, r)
		return r, true, false
	case FaultDropAnswer:
		return r, false, true
	case FaultDelay:
		// Read the body now: the client may be gone when the service acts.
		if err := bufferBody(r); err != nil {
			httpio.DropConnection(w)
			return r, true, false
		}
		r = r.WithContext(context.WithoutCancel(r.Context()))
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-s.closing:
			t.Stop()
			httpio.DropConnection(w)
			return r, true, false
		}
		return r, false, false
	}
	return r, false, false
}

// bufferBody reads the body of r (up to one byte more than httpio.MaxAPIBody, so
// the handler still sees an oversized body) into memory and puts it back.
// Once a body has been read to its end, net/http watches the connection:
// a client that goes away then cancels the request's context.
func bufferBody(r *http.Request) error {
	data, err := io.ReadAll(io.LimitReader(r.Body, httpio.MaxAPIBody+1))
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	return nil
}
