package client

import (
	"math"
	"sync"
	"time"
)

// Pacing: spending a rate limit on useful work.
//
// A client sends as fast as its callers ask until the service refuses a
// request for its rate (429). From then on it paces every request of that
// service: all resources of one provider configuration share the client, so
// they share the pace. The limits this is made for are token buckets (the
// local server's holds one second of its rate): a rate a little over the
// limit still gets the whole limit, and only the excess is refused; a rate
// under it loses what it leaves, beyond what the bucket saves up.
//
// The requests wait in a queue and start one every 1/rate seconds. A
// waiting request asks again at least every paceTick, so that a rate that
// grows serves the queue sooner: slots booked at an older, lower rate would
// hold the callers back long after the rate has grown.
//
// The rate follows the accepted rate and a cubic curve, much as TCP's CUBIC
// does for a link:
//
//   - the first refusal sets the rate to the answers the service accepted
//     in the last paceWindow (later answers to requests sent before the
//     refusal raise it), then the rate grows fast (slow start: each accepted
//     answer adds paceSlowStep requests a second, so that the rate grows by
//     half of itself every second) until a request started since is
//     refused. The first answers only show what was free when the client
//     came, which for a client that joins others on a key is next to
//     nothing;
//   - a refusal of a request started since the last decrease is a decrease
//     (the refusals of requests started before were sent at a rate already
//     decreased), and the rate drops to (1-paceBeta) wmax. At the end of
//     the slow start wmax is the rate; later it is the answers accepted per
//     second since then, over paceAnchorWindow at most: while refused, that
//     is this client's share of the limit, so refusals in a row do not
//     cascade below it;
//   - from a decrease the rate follows wmax (1 + paceCubic (t-K)^3), with
//     t the time since the decrease and K = cbrt(paceBeta/paceCubic), about
//     4 s: back to wmax fast, flat around it, then faster and faster, which
//     finds a limit that rose or a share that others left. The curve is
//     relative to wmax, so that several clients on one key probe together
//     about as much as one does; but it grows as for at least paceFloor
//     requests a second, so that a client that joined late with a tiny
//     share catches up with the others;
//   - once paced for paceAnchorWindow, the rate grows no higher than
//     paceCap times the answers accepted over it, or wmax: the callers do
//     not use more;
//   - a Retry-After longer than paceHoldAfter holds every request of the
//     service until it has passed: the service is closed for a while, not
//     merely full, and sending before only spends its limit on refusals (a
//     rate limiter's Retry-After counts whole seconds, so one second says
//     little more than "not now").
//
// Several processes on one key each pace themselves the same way; the
// decreases and the curve's floor move them towards equal shares. Each
// refusal decreases one client only, so their refusals still grow with
// their number: see pace_test.go for the figures under a simulated limiter.
//
// The refused request itself is retried by the retry rules: a 429 means the
// service did not act, so even a POST is sent again; a dropped connection
// never resends a POST.
//
// A service that says what is left of its quota (quota headers, quota.go)
// is paced by what it says, from its first such answer, before any
// refusal: the requests left until the reset are spread evenly until it
// (over paceQuotaHorizon at most), none start once they are spent, and from the reset the quota of a window
// is spread over the window. An answer counts the requests the service
// had accepted when it answered, so the requests started after the one
// answered are taken off what it says is left (those it counted already
// are then taken off twice, which errs on the side of fewer). The latest
// answer wins: an older request's answer that comes late is not used.
// Others on the key spend the same quota, and each client learns only what
// is left: once a client has paced for paceAnchorWindow under a quota of a
// known window, it takes off what is left the requests the others were
// likely to start since the answer (the window's quota a second, less this
// client's accepted rate), and it spends no more than twice its seen share
// of the quota (plus paceShareAdd, to grow into what the others leave).
// Without these two, eight applies on one key were refused 8.9% of their
// requests in the simulation of pace_test.go; with them 0.9%. A 429
// meanwhile only holds the requests for a long Retry-After; without the
// headers the pacing above is unchanged.
//
// A configured most requests a second (Config.MaxRequestsPerSecond) holds,
// paced or not, for the services of the client together: requests start at
// least 1/most seconds apart (paceMost).
const (
	// paceWindow is the window of the accepted answers at the first
	// refusal.
	paceWindow = time.Second
	// paceAnchorWindow is the window of the accepted rate at a decrease,
	// and of the cap.
	paceAnchorWindow = 5 * time.Second
	// paceBeta is the decrease after a refusal.
	paceBeta = 0.2
	// paceCubic is the curve's growth, relative to wmax, per second cubed.
	paceCubic = 0.0025
	// paceFloor is the least wmax the curve grows as, in requests per
	// second.
	paceFloor = 2
	// paceCap bounds the rate to this many times the accepted rate.
	paceCap = 1.5
	// paceSlowStep is the increase of the slow start per accepted answer,
	// in requests per second.
	paceSlowStep = 0.5
	// paceMin is the lowest rate, in requests per second.
	paceMin = 0.2
	// paceHoldAfter is the shortest Retry-After that holds every request.
	paceHoldAfter = time.Second
	// paceTick is the longest wait before a waiting request asks again
	// (the rate may have grown).
	paceTick = 500 * time.Millisecond
	// paceQuotaHorizon is the longest time what is left of a quota is
	// spread over: a quota of an hour is not spent at a request every
	// second while an apply waits.
	paceQuotaHorizon = 10 * time.Second
	// paceShareGrowth is the growth of the share of a quota, per second.
	paceShareGrowth = 0.02
	// paceShareMin is the least share of a quota.
	paceShareMin = 0.05
	// paceShareSeen and paceShareAdd bound the share of a quota by the
	// share this client was seen to spend (current).
	paceShareSeen = 2
	paceShareAdd  = 0.05
)

// Accepted answers are counted in paceBins bins of paceBin each, covering
// paceAnchorWindow.
const (
	paceBin  = 100 * time.Millisecond
	paceBins = int(paceAnchorWindow / paceBin)
)

// pacer paces the requests of one service of a client. Its zero value does
// not pace until the first refusal.
type pacer struct {
	mu  sync.Mutex
	now func() time.Time

	rate float64   // requests per second; 0: not paced
	hold time.Time // no request starts before

	// The queue: tickets issued to requests, and slots served, which
	// advance at the rate from servedAt.
	issued, served float64
	servedAt       time.Time

	// round counts the decreases (the first refusal is one); a request
	// carries the round it started in.
	round   uint64
	slow    bool      // slow start
	wmax    float64   // the rate the curve is relative to
	k       float64   // seconds from the last decrease back to wmax
	lastCut time.Time // the last decrease
	paced   time.Time // the first refusal
	steady  time.Time // the end of the slow start

	// bins counts the accepted answers by paceBin of their time; binAt is
	// the start of the newest bin.
	bins  [paceBins]int
	binAt time.Time

	// most spaces the starts of every service of the client; nil: no
	// configured most.
	most *paceMost
	// starts counts the requests started; a request carries its number.
	starts uint64

	// The quota the service says is left (quota.go), from the answer to
	// the request started qSeq-th, once qOn.
	qOn        bool
	qSeq       uint64
	qRemaining float64       // requests left until qReset
	qReset     time.Time     // when the quota is whole again
	qLimit     float64       // the quota of a window; 0: not known
	qWindow    time.Duration // its window
	// qShare is the share of what is left this client spends: others on
	// the key spend the same quota. A refusal of a request started since
	// the last decrease (the qCut-th start) takes paceBeta off it; it
	// grows back by paceShareGrowth a second.
	qShare   float64
	qCut     uint64
	qShareAt time.Time
	qOnAt    time.Time // the first answer with the quota
	qAt      time.Time // the answer qRemaining is from
	qSaid    string    // the header fields of that answer (quota.said)
}

// paceTurn is where a request started in the pace: the round of the pace
// and its number among the requests started.
type paceTurn struct {
	round, seq uint64
}

func (p *pacer) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// reserve queues a request: it returns its ticket, for turn.
func (p *pacer) reserve() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.advance(p.clock())
	t := p.issued
	p.issued++
	return t
}

// turn returns how long until ticket's turn at the current rate (0: now,
// and the request is counted as started where the returned paceTurn says)
// and the rate.
func (p *pacer) turn(ticket float64) (time.Duration, paceTurn, float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock()
	p.advance(now)
	rate := p.current(now)
	wait := time.Duration(0)
	if now.Before(p.hold) {
		wait = p.hold.Sub(now)
	}
	if rate > 0 && p.served < ticket {
		wait += time.Duration((ticket - p.served) / rate * float64(time.Second))
	}
	if p.qOn && p.qRemaining < 1 && now.Before(p.qReset) {
		wait = max(wait, p.qReset.Sub(now))
	}
	if wait <= 0 && p.most != nil {
		wait = p.most.take(now)
	}
	if wait > 0 {
		return wait, paceTurn{}, rate
	}
	return 0, p.startLocked(), rate
}

// spent returns, while the quota the service said is used up, when it is
// whole again and the header fields that said so.
func (p *pacer) spent() (time.Time, string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock()
	p.advance(now)
	if !p.qOn || p.qRemaining >= 1 || !now.Before(p.qReset) {
		return time.Time{}, "", false
	}
	return p.qReset, p.qSaid, true
}

// paceMost spaces the starts of requests at least gap apart: the configured
// most requests a second of a client, shared by its services.
type paceMost struct {
	mu   sync.Mutex
	gap  time.Duration
	next time.Time // the earliest next start
}

func newPaceMost(perSecond float64) *paceMost {
	if !(perSecond > 0) || math.IsInf(perSecond, 1) {
		return nil
	}
	return &paceMost{gap: time.Duration(min(float64(time.Second)/perSecond, float64(time.Hour)))}
}

// take starts a request at now and returns 0, or returns how long until one
// may start.
func (m *paceMost) take(now time.Time) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	if now.Before(m.next) {
		return m.next.Sub(now)
	}
	m.next = now.Add(m.gap)
	return 0
}

// start counts a request that starts without its turn (a wait that
// returned early).
func (p *pacer) start() paceTurn {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.startLocked()
}

func (p *pacer) startLocked() paceTurn {
	p.starts++
	if p.qOn {
		p.qRemaining--
	}
	return paceTurn{round: p.round, seq: p.starts}
}

// current returns the rate at now: the quota's while the service says it,
// else the curve's; 0: not paced.
func (p *pacer) current(now time.Time) float64 {
	if !p.qOn {
		return p.rate
	}
	if p.qRemaining < 1 {
		return paceMin // held until the reset
	}
	// Once the service said its quota of a window and this client's rate
	// under it is known: what is left, less what the others on the key
	// likely spent since the answer said it (the quota a second, less what
	// this client was accepted); and the share of it this client spends,
	// no more than paceShareSeen times its seen share of the quota plus
	// paceShareAdd: a client grows into what the others leave, but never
	// claims at once what they are spending.
	left, share := p.qRemaining, p.qShare
	if p.qLimit >= 1 && p.qWindow > 0 && now.Sub(p.qOnAt) >= paceAnchorWindow {
		quota := p.qLimit / p.qWindow.Seconds()
		mine := p.acceptedRate(now, paceAnchorWindow)
		left -= max(quota-mine, 0) * now.Sub(p.qAt).Seconds()
		if left < 1 {
			return paceMin
		}
		share = min(share, paceShareSeen*mine/quota+paceShareAdd)
	}
	return max(share*left/min(max(p.qReset.Sub(now).Seconds(), 0.001), paceQuotaHorizon.Seconds()), paceMin)
}

// advance follows the quota and the curve to now, and moves the served
// slots on at the rate until now; they never run ahead of the tickets
// issued (an idle pace saves nothing up).
func (p *pacer) advance(now time.Time) {
	p.renew(now)
	if p.qOn && now.After(p.qShareAt) {
		p.qShare = min(p.qShare+now.Sub(p.qShareAt).Seconds()*paceShareGrowth, 1)
		p.qShareAt = now
	}
	from := maxTime(p.servedAt, p.hold)
	switch rate := p.current(now); {
	case rate == 0:
		p.served = p.issued
	case now.After(from):
		p.served = min(p.issued, p.served+now.Sub(from).Seconds()*rate)
	}
	p.servedAt = maxTime(p.servedAt, now)
	if p.rate == 0 || p.slow {
		return
	}
	t := now.Sub(p.lastCut).Seconds() - p.k
	rate := p.wmax + paceCubic*max(p.wmax, paceFloor)*t*t*t
	if now.Sub(p.paced) >= paceAnchorWindow {
		rate = min(rate, max(p.wmax, paceCap*p.acceptedRate(now, paceAnchorWindow)))
	}
	p.rate = max(rate, paceMin)
}

// renew makes the quota whole at its reset: the quota of a window when the
// service said it, else the pacing by quota ends until the next answer.
func (p *pacer) renew(now time.Time) {
	if !p.qOn || now.Before(p.qReset) {
		return
	}
	if p.qLimit < 1 || p.qWindow <= 0 {
		p.qOn = false
		return
	}
	n := now.Sub(p.qReset)/p.qWindow + 1
	p.qReset = p.qReset.Add(n * p.qWindow)
	p.qRemaining = p.qLimit
}

// quota records the quota an answer to the request started at t says is
// left.
func (p *pacer) quota(t paceTurn, q quota) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.seq < p.qSeq {
		return // a later request's answer said more recent news
	}
	now := p.clock()
	p.advance(now)
	left := q.remaining - float64(p.starts-t.seq)
	reset := now.Add(q.reset)
	// A reset is said in whole seconds, rounded up: an answer that leaves
	// no more than was known is of the same window, whose reset is the
	// earliest said.
	if !p.qOn || !p.qReset.After(now) || left > p.qRemaining || reset.Before(p.qReset) {
		p.qReset = reset
	}
	if !p.qOn && p.qShare == 0 {
		p.qShare, p.qShareAt, p.qOnAt = 1, now, now
	}
	p.qOn, p.qSeq, p.qAt, p.qSaid = true, t.seq, now, q.said
	p.qRemaining = left
	p.qLimit, p.qWindow = 0, 0
	if q.limit >= 1 {
		p.qLimit, p.qWindow = q.limit, q.window
		if p.qWindow <= 0 {
			p.qWindow = max(q.reset, time.Second)
		}
	}
	p.advance(now)
}

// refused records a 429 answer to a request started at t, and its
// Retry-After (when has).
func (p *pacer) refused(t paceTurn, retryAfter time.Duration, has bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock()
	p.advance(now)
	round := t.round
	switch {
	case p.qOn:
		// The quota paces, and others spend it too.
		if t.seq > p.qCut {
			p.qShare = max(p.qShare*(1-paceBeta), paceShareMin)
			p.qCut = p.starts
		}
	case p.rate == 0:
		p.rate = max(p.acceptedRate(now, paceWindow), paceMin)
		p.wmax, p.slow = p.rate, true
		p.paced, p.lastCut = now, now
		p.round++
	case round == p.round:
		w := p.rate
		if win := min(now.Sub(p.steady).Truncate(paceBin), paceAnchorWindow); win >= paceWindow && !p.slow {
			w = p.acceptedRate(now, win)
		}
		if p.slow {
			p.steady = now
		}
		p.wmax = max(w, paceMin)
		p.k = math.Cbrt(p.wmax * paceBeta / (paceCubic * max(p.wmax, paceFloor)))
		p.slow = false
		p.lastCut = now
		p.round++
		p.advance(now)
	}
	if has && retryAfter > paceHoldAfter {
		p.hold = maxTime(p.hold, now.Add(retryAfter))
	}
}

// accepted records an answer other than 429 to a request started at t.
func (p *pacer) accepted(t paceTurn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock()
	p.advance(now)
	p.shift(now)
	p.bins[0]++
	switch {
	case p.rate == 0:
	case t.round == 0:
		// An answer to a request sent before the first refusal: the rate
		// is the accepted answers of the last window.
		p.wmax = max(p.wmax, p.acceptedRate(now, paceWindow))
		p.rate = max(p.rate, p.wmax)
	case p.slow:
		p.rate += paceSlowStep
		p.wmax = p.rate
	}
}

// shift moves the bins on to now: bins[0] counts from binAt.
func (p *pacer) shift(now time.Time) {
	if p.binAt.IsZero() {
		p.binAt = now
		return
	}
	n := int(now.Sub(p.binAt) / paceBin)
	if n <= 0 {
		return
	}
	p.binAt = p.binAt.Add(time.Duration(n) * paceBin)
	n = min(n, paceBins)
	copy(p.bins[n:], p.bins[:paceBins-n])
	clear(p.bins[:n])
}

// acceptedRate returns the answers accepted in the last window (a multiple
// of paceBin up to paceAnchorWindow, the newest bin being partial) per
// second.
func (p *pacer) acceptedRate(now time.Time, window time.Duration) float64 {
	p.shift(now)
	n := 0
	for _, c := range p.bins[:int(window/paceBin)] {
		n += c
	}
	return float64(n) / window.Seconds()
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Rate returns the current pace of the management service in requests per
// second, 0 while it is not paced.
func (c *Client) Rate() float64 {
	p := &c.mgmt.pace
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.clock()
	p.advance(now)
	return p.current(now)
}
