package localzdm

import (
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/faults"
)

// Faults are injected into API requests (both services, never the admin API)
// before any state changes, in this order: Hang, Latency, RateLimit,
// ErrorRate. DropAfterCreate acts after the request was applied.
type Faults = faults.Faults

// A RequestFault acts on the API requests (both services, never the admin
// API) that match its Method and Path, before any other fault.
type RequestFault = faults.RequestFault

// Actions of a RequestFault.
const (
	// FaultReset closes the connection before the service acts, without
	// answering.
	FaultReset = faults.FaultReset
	// FaultDropAnswer lets the service handle the request (acting when it
	// succeeds), then closes the connection instead of answering.
	FaultDropAnswer = faults.FaultDropAnswer
	// FaultDelay holds the request for Delay, then lets the service act even
	// when the client has given up meanwhile (its answer is then lost).
	FaultDelay = faults.FaultDelay
	// FaultHTMLError answers Status (default 500) with an HTML error page,
	// as a proxy would, without acting.
	FaultHTMLError = faults.FaultHTMLError
	// FaultNotFound answers 404 with the plain text "404 page not found", as
	// a host or port that serves something else would, without acting.
	FaultNotFound = faults.FaultNotFound
)

// Forms of the quota headers (Faults.RateLimitHeaders).
const (
	QuotaIETF  = faults.QuotaIETF
	QuotaDraft = faults.QuotaDraft
	QuotaX     = faults.QuotaX
)

// CheckQuotaForm checks a form of the quota headers; name names the setting.
func CheckQuotaForm(name, form string) error { return faults.CheckQuotaForm(name, form) }

// Limits of the admin API's input.
const (
	// MaxFaultDelay bounds every duration of the admin input but a request
	// fault's window: the faults' latency and retry_after, a request
	// fault's delay, and the devices' delay and jitter.
	MaxFaultDelay = faults.MaxFaultDelay
	// MaxFaultWindow bounds the "for" window of a request fault.
	MaxFaultWindow = faults.MaxFaultWindow
)

// SetFaults replaces the fault settings; the zero Faults disables them all.
// Out-of-range values are clamped (negative latency and rate limit to 0, the
// error rate to 0..1). Rate limit buckets start full again.
func (s *Server) SetFaults(f Faults) { s.faults.SetFaults(f) }

// CurrentFaults returns the fault settings in effect.
func (s *Server) CurrentFaults() Faults { return s.faults.CurrentFaults() }

// AddRequestFault adds a fault acting on matching API requests and returns
// its ID. Faults are tried in the order they were added; the first active
// one that matches a request acts on it.
func (s *Server) AddRequestFault(f RequestFault) (int, error) { return s.faults.AddRequestFault(f) }

// RequestFaults returns the request faults added since the last
// ClearRequestFaults, spent ones included, with their hits.
func (s *Server) RequestFaults() []RequestFault { return s.faults.RequestFaults() }

// RemoveRequestFault removes one request fault.
func (s *Server) RemoveRequestFault(id int) error { return s.faults.RemoveRequestFault(id) }

// ClearRequestFaults removes every request fault.
func (s *Server) ClearRequestFaults() { s.faults.ClearRequestFaults() }
