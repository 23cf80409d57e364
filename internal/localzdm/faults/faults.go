// Package faults injects faults into API requests: the fault settings
// (latency, errors, rate limit, hang, dropped answers) and the request faults
// aimed at chosen requests. It knows nothing of the state the requests act on.
package faults

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/apierr"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/httpio"
)

// Limits of the fault settings.
const (
	// MaxFaultDelay bounds every duration of the admin input but a request
	// fault's window: the faults' latency and retry_after, a request
	// fault's delay, and the devices' delay and jitter.
	MaxFaultDelay = time.Hour
	// MaxFaultWindow bounds the "for" window of a request fault.
	MaxFaultWindow = 24 * time.Hour
	// MaxQuotaSpent bounds Faults.QuotaSpent: a day, the longest reset a
	// client reads.
	MaxQuotaSpent = 24 * time.Hour
)

// Set holds the fault settings and request faults of one server.
type Set struct {
	faults  atomic.Pointer[Faults]
	limiter rateLimiter
	// reqFaults are the faults aimed at chosen requests.
	reqFaults requestFaults
	closing   <-chan struct{}
	// refused counts the requests answered 429 for the rate limit.
	refused atomic.Int64
}

// Refused returns the number of requests answered 429 for the rate limit
// since the start or the last ResetRefused.
func (s *Set) Refused() int64 { return s.refused.Load() }

// ResetRefused sets the count of Refused to zero.
func (s *Set) ResetRefused() { s.refused.Store(0) }

// New returns a Set without faults; requests it holds are released when
// closing is closed.
func New(closing <-chan struct{}) *Set {
	s := &Set{closing: closing}
	s.faults.Store(&Faults{})
	s.limiter.init()
	return s
}

// Faults are injected into API requests (both services, never the admin API)
// before any state changes, in this order: Hang, Latency, RateLimit,
// ErrorRate. DropAfterCreate acts after the request was applied.
type Faults struct {
	// Latency is added to every API request.
	Latency time.Duration
	// ErrorRate is the fraction (0..1) of API requests answered 503 with
	// Retry-After, at random.
	ErrorRate float64
	// RateLimit is the number of requests per second allowed per API key (a
	// token bucket holding one second of requests, at least one); requests
	// over it are answered 429 with Retry-After. Zero disables the limit.
	RateLimit float64
	// RetryAfter is the value sent in Retry-After, rounded up to whole
	// seconds. Zero sends 1 for 503 and the time until the next free slot
	// (at least 1) for 429; a negative value sends 0 (the admin API
	// refuses it).
	RetryAfter time.Duration
	// NoRetryAfter leaves the Retry-After header out of 429 and 503
	// answers, as services that only say "too many requests" do.
	NoRetryAfter bool
	// RateLimitHeaders is the form of the quota headers sent on every API
	// answer while RateLimit holds, counted per API key as the limit is:
	// QuotaIETF, QuotaDraft or QuotaX; "" sends none.
	RateLimitHeaders string
	// QuotaSpent makes every API answer say that the key's quota is used
	// up until QuotaSpent from now, in the form of RateLimitHeaders (QuotaX
	// when ""): no request left, no limit said. The requests are answered
	// as usual otherwise, so that a client that sends one anyway is seen.
	// Zero says nothing; at most MaxQuotaSpent.
	QuotaSpent time.Duration
	// DropAfterCreate makes every successful POST of the API act, then close
	// the connection without answering.
	DropAfterCreate bool
	// Hang makes API requests never answer until the client gives up or the
	// server closes.
	Hang bool
}

// faultsJSON is the admin API shape of Faults: durations are Go duration
// strings ("250ms") or numbers of milliseconds.
type faultsJSON struct {
	Latency         any     `json:"latency"`
	ErrorRate       float64 `json:"error_rate"`
	RateLimit       float64 `json:"rate_limit"`
	RetryAfter      any     `json:"retry_after"`
	NoRetryAfter    bool    `json:"no_retry_after"`
	DropAfterCreate bool    `json:"drop_after_create"`
	Hang            bool    `json:"hang"`
	RateLimitHdrs   string  `json:"rate_limit_headers"`
	QuotaSpent      any     `json:"quota_spent"`
}

// MarshalJSON renders durations as Go duration strings.
func (f Faults) MarshalJSON() ([]byte, error) {
	return json.Marshal(faultsJSON{
		Latency: f.Latency.String(), ErrorRate: f.ErrorRate, RateLimit: f.RateLimit,
		RetryAfter: f.RetryAfter.String(), NoRetryAfter: f.NoRetryAfter, DropAfterCreate: f.DropAfterCreate, Hang: f.Hang,
		RateLimitHdrs: f.RateLimitHeaders, QuotaSpent: f.QuotaSpent.String(),
	})
}

// UnmarshalJSON accepts durations as Go duration strings or milliseconds.
func (f *Faults) UnmarshalJSON(data []byte) error {
	var in faultsJSON
	if err := httpio.StrictUnmarshal(data, &in); err != nil {
		return err
	}
	lat, err := httpio.ParseDurationJSON("latency", in.Latency, MaxFaultDelay)
	if err != nil {
		return err
	}
	ra, err := httpio.ParseDurationJSON("retry_after", in.RetryAfter, MaxFaultDelay)
	if err != nil {
		return err
	}
	qs, err := httpio.ParseDurationJSON("quota_spent", in.QuotaSpent, MaxQuotaSpent)
	if err != nil {
		return err
	}
	*f = Faults{
		Latency: lat, ErrorRate: in.ErrorRate, RateLimit: in.RateLimit, RetryAfter: ra, NoRetryAfter: in.NoRetryAfter,
		DropAfterCreate: in.DropAfterCreate, Hang: in.Hang, RateLimitHeaders: in.RateLimitHdrs, QuotaSpent: qs,
	}
	return nil
}

// Validate reports the first out-of-range setting of the admin API.
func (f Faults) Validate() error {
	if err := httpio.CheckDuration("latency", f.Latency, MaxFaultDelay); err != nil {
		return err
	}
	if err := httpio.CheckDuration("retry_after", f.RetryAfter, MaxFaultDelay); err != nil {
		return err
	}
	if err := httpio.CheckDuration("quota_spent", f.QuotaSpent, MaxQuotaSpent); err != nil {
		return err
	}
	switch {
	case math.IsNaN(f.ErrorRate) || f.ErrorRate < 0 || f.ErrorRate > 1:
		return apierr.InvalidArgument("\"error_rate\" must be between 0 and 1, got %g", f.ErrorRate)
	case math.IsNaN(f.RateLimit) || math.IsInf(f.RateLimit, 0) || f.RateLimit < 0:
		return apierr.InvalidArgument("\"rate_limit\" must be a finite number >= 0, got %g", f.RateLimit)
	}
	return CheckQuotaForm("\"rate_limit_headers\"", f.RateLimitHeaders)
}

// Forms of the quota headers (Faults.RateLimitHeaders).
const (
	// QuotaIETF sends the IETF httpapi RateLimit header fields:
	// RateLimit-Policy: "default";q=LIMIT;w=1 and
	// RateLimit: "default";r=LEFT;t=RESET.
	QuotaIETF = "ietf"
	// QuotaDraft sends the earlier drafts' RateLimit-Limit,
	// RateLimit-Remaining and RateLimit-Reset.
	QuotaDraft = "draft"
	// QuotaX sends X-RateLimit-Limit, X-RateLimit-Remaining and
	// X-RateLimit-Reset.
	QuotaX = "x"
)

// CheckQuotaForm checks a form of the quota headers; name names the setting.
func CheckQuotaForm(name, form string) error {
	switch form {
	case "", QuotaIETF, QuotaDraft, QuotaX:
		return nil
	}
	return apierr.InvalidArgument("%s must be \"\" (none), %q, %q or %q, got %q", name, QuotaIETF, QuotaDraft, QuotaX, form)
}

// setQuota writes the quota headers of form: the limit of a one-second
// window, the whole requests left and the whole seconds until the bucket
// is full.
func setQuota(h http.Header, form string, limit, left, reset float64) {
	l, r, t := strconv.FormatFloat(math.Floor(limit), 'f', -1, 64), strconv.Itoa(int(left)), strconv.Itoa(int(math.Ceil(reset)))
	switch form {
	case QuotaIETF:
		h.Set("RateLimit-Policy", `"default";q=`+l+";w=1")
		h.Set("RateLimit", `"default";r=`+r+";t="+t)
	case QuotaDraft:
		h.Set("RateLimit-Limit", l)
		h.Set("RateLimit-Remaining", r)
		h.Set("RateLimit-Reset", t)
	case QuotaX:
		h.Set("X-RateLimit-Limit", l)
		h.Set("X-RateLimit-Remaining", r)
		h.Set("X-RateLimit-Reset", t)
	}
}

// SetFaults replaces the fault settings; the zero Faults disables them all.
// Out-of-range values are clamped (negative latency and rate limit to 0, the
// error rate to 0..1). Rate limit buckets start full again.
func (s *Set) SetFaults(f Faults) {
	f.Latency = max(f.Latency, 0)
	if math.IsNaN(f.ErrorRate) {
		f.ErrorRate = 0
	}
	f.ErrorRate = min(max(f.ErrorRate, 0), 1)
	if math.IsNaN(f.RateLimit) || math.IsInf(f.RateLimit, 0) || f.RateLimit < 0 {
		f.RateLimit = 0
	}
	s.limiter.reset()
	s.faults.Store(&f)
}

// CurrentFaults returns the fault settings in effect.
func (s *Set) CurrentFaults() Faults {
	return *s.faults.Load()
}

// Inject applies the fault settings to an API request and reports
// whether it answered (or dropped) the request.
func (s *Set) Inject(w http.ResponseWriter, r *http.Request) bool {
	f := s.faults.Load()
	if f.Hang {
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
		httpio.DropConnection(w)
		return true
	}
	if f.Latency > 0 {
		// With the body read, a client that gives up during the latency
		// cancels the request, which then changes nothing.
		if err := bufferBody(r); err != nil {
			httpio.DropConnection(w)
			return true
		}
		t := time.NewTimer(f.Latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			httpio.DropConnection(w)
			return true
		case <-s.closing:
			t.Stop()
			httpio.DropConnection(w)
			return true
		}
	}
	if f.RateLimit > 0 {
		wait, ok, left := s.limiter.take(r.Header.Get("X-API-KEY"), f.RateLimit)
		if f.RateLimitHeaders != "" {
			capacity := max(f.RateLimit, 1)
			setQuota(w.Header(), f.RateLimitHeaders, capacity, math.Floor(left), (capacity-left)/f.RateLimit)
		}
		if !ok {
			s.refused.Add(1)
			secs := retryAfterSeconds(f.RetryAfter, int(math.Ceil(wait.Seconds())))
			if !f.NoRetryAfter {
				w.Header().Set("Retry-After", strconv.Itoa(secs))
			}
			apierr.Write(w, apierr.New(http.StatusTooManyRequests, apierr.CodeRateLimited,
				"rate limit of %g requests per second per API key exceeded; retry after %d s", f.RateLimit, secs))
			return true
		}
	}
	if f.QuotaSpent > 0 {
		form := f.RateLimitHeaders
		if form == "" {
			form = QuotaX
		}
		setQuota(w.Header(), form, 0, 0, f.QuotaSpent.Seconds())
		if form == QuotaIETF {
			w.Header().Del("RateLimit-Policy")
		} else {
			w.Header().Del(map[string]string{QuotaDraft: "RateLimit-Limit", QuotaX: "X-RateLimit-Limit"}[form])
		}
	}
	if f.ErrorRate > 0 && randFloat() < f.ErrorRate {
		secs := retryAfterSeconds(f.RetryAfter, 1)
		if !f.NoRetryAfter {
			w.Header().Set("Retry-After", strconv.Itoa(secs))
		}
		apierr.Write(w, apierr.New(http.StatusServiceUnavailable, apierr.CodeUnavailable,
			"service temporarily unavailable (injected fault); retry after %d s", secs))
		return true
	}
	return false
}

func retryAfterSeconds(configured time.Duration, fallback int) int {
	switch {
	case configured < 0:
		return 0
	case configured > 0:
		return int(math.Ceil(configured.Seconds()))
	default:
		return max(fallback, 1)
	}
}

// randFloat returns a uniform float in [0, 1).
func randFloat() float64 {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails.
	return float64(binary.LittleEndian.Uint64(b[:])>>11) / (1 << 53)
}

// rateLimiter holds one token bucket per API key.
type rateLimiter struct {
	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func (l *rateLimiter) init() {
	l.buckets = map[string]*bucket{}
}

func (l *rateLimiter) reset() {
	l.mu.Lock()
	l.buckets = map[string]*bucket{}
	l.mu.Unlock()
}

// take consumes a token of key's bucket, or reports how long until one is
// free; either way it returns the tokens left.
func (l *rateLimiter) take(key string, rate float64) (time.Duration, bool, float64) {
	capacity := max(rate, 1)
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: capacity, last: now}
		l.buckets[key] = b
	}
	b.tokens = min(capacity, b.tokens+now.Sub(b.last).Seconds()*rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return 0, true, b.tokens
	}
	return time.Duration((1 - b.tokens) / rate * float64(time.Second)), false, b.tokens
}
