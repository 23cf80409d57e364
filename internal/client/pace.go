package client

import (
	"sync"
	"time"
)

// Pacing: spending a rate limit on useful work.
//
// A client sends as fast as its callers ask until the service refuses a
// request for its rate (429). From then on it paces every request of that
// service: all resources of one provider configuration share the client, so
// they share the pace.
//
// The pace is additive increase, multiplicative decrease (AIMD, as TCP
// does for a link):
//
//   - the first refusal sets the rate to paceFirst times the answers the
//     service accepted in the last paceWindow (at least paceMin);
//   - a refusal of a request sent after the last decrease multiplies the
//     rate by paceBeta (the refusals of requests sent before were paced by
//     a rate already lowered: one decrease per round);
//   - each accepted answer adds paceAlpha/rate, so that the rate grows by
//     paceAlpha requests a second every second; after paceQuiet without a
//     decrease, also by paceGrowth of itself every second: the limit is not
//     near, or other clients stopped sending;
//   - a Retry-After longer than paceHoldAfter holds every request of the
//     service until it has passed: the service is closed for a while, not
//     merely full, and sending before only spends its limit on refusals (a
//     rate limiter's Retry-After counts whole seconds, so one second says
//     little more than "not now").
//
// Several processes on one key each pace themselves the same way; additive
// increase with multiplicative decrease moves them towards equal shares.
// Their refusals grow with the square of their number (each must be
// refused to slow down, and all of them probe), which the small paceAlpha
// keeps low: see pace_test.go for the figures under a scripted limiter.
//
// The refused request itself is retried by the retry rules: a 429 means the
// service did not act, so even a POST is sent again; a dropped connection
// never resends a POST.
const (
	// paceFirst is the share of the accepted rate taken at the first
	// refusal.
	paceFirst = 0.9
	// paceBeta is the decrease after a refusal.
	paceBeta = 0.9
	// paceAlpha is the additive increase, in requests per second per
	// second.
	paceAlpha = 0.1
	// paceQuiet is the time without a decrease after which the rate also
	// grows by paceGrowth of itself every second.
	paceQuiet  = 10 * time.Second
	paceGrowth = 0.05
	// paceWindow is the window of the accepted rate at the first refusal.
	paceWindow = time.Second
	// paceMin is the lowest rate, in requests per second.
	paceMin = 0.2
	// paceHoldAfter is the shortest Retry-After that holds every request.
	paceHoldAfter = time.Second
)

// pacer paces the requests of one service of a client. Its zero value does
// not pace until the first refusal.
type pacer struct {
	mu  sync.Mutex
	now func() time.Time

	rate float64   // requests per second; 0: not paced
	next time.Time // the earliest start of the next request

	// While unpaced: the accepted answers of the last paceWindow, oldest
	// first.
	answers []time.Time
	// lastCut is the time of the last decrease.
	lastCut time.Time
}

func (p *pacer) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// reserve returns how long the caller must wait before it starts a
// request, and books that start; and the rate.
func (p *pacer) reserve() (time.Duration, float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock()
	start := now
	if p.next.After(now) {
		start = p.next
	}
	if p.rate > 0 {
		p.next = start.Add(time.Duration(float64(time.Second) / p.rate))
	}
	return start.Sub(now), p.rate
}

// refused records a 429 answer to a request sent at sent, and its
// Retry-After (when has).
func (p *pacer) refused(sent time.Time, retryAfter time.Duration, has bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock()
	switch {
	case p.rate == 0:
		p.rate = max(float64(p.recent(now))*paceFirst, paceMin)
		p.answers = nil
		p.lastCut = now
	case !sent.Before(p.lastCut):
		// One cut per round: the refusals of requests sent before the
		// last cut were paced by the rate it already lowered.
		p.rate = max(p.rate*paceBeta, paceMin)
		p.lastCut = now
	}
	if has && retryAfter > paceHoldAfter {
		if until := now.Add(retryAfter); until.After(p.next) {
			p.next = until
		}
	}
}

// accepted records an answer other than 429.
func (p *pacer) accepted() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock()
	if p.rate == 0 {
		p.recent(now)
		p.answers = append(p.answers, now)
		return
	}
	// paceAlpha requests a second more every second; after paceQuiet
	// without a decrease, also paceGrowth of the rate every second.
	inc := paceAlpha
	if now.Sub(p.lastCut) >= paceQuiet {
		inc += paceGrowth * p.rate
	}
	p.rate += inc / p.rate
}

// recent drops the accepted answers older than paceWindow and returns how
// many are left.
func (p *pacer) recent(now time.Time) int {
	cut := 0
	for cut < len(p.answers) && now.Sub(p.answers[cut]) > paceWindow {
		cut++
	}
	p.answers = p.answers[cut:]
	return len(p.answers)
}

// Rate returns the current pace of the management service in requests per
// second, 0 while it is not paced.
func (c *Client) Rate() float64 {
	p := &c.mgmt.pace
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rate
}
