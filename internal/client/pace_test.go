package client

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// The pacing tests drive pacers against a scripted limiter on a virtual
// clock, as close to a real apply against the local server as the figures
// of the real CLI showed it needs to be:
//
//   - the limiter is the local server's: one token bucket per API key
//     holding one second of requests, answering 429 with Retry-After in
//     whole seconds (almost always 1);
//   - each process starts after Terraform's start-up and plan (1.5 s, later
//     for the later ones: several Terraform processes share the CPUs),
//     creates its fleet, then sends its creates from 16 callers (the
//     default parallelism of zdm_fleet_devices) and ends half a second
//     after its last answer;
//   - round trips take 1 to 6 ms, at random, so that the answers of
//     several callers interleave as they do over a real connection;
//   - a refused request waits as the client's retry loop does (the longer
//     of its Retry-After and the backoff of its attempt), then is paced
//     again;
//   - a waiting request asks the pacer for its turn as the client does, at
//     least every paceTick.
//
// The random draws come from a seeded generator: a run is deterministic,
// and nothing sleeps.

// simLimiter is the service's rate limit: take consumes a request at now,
// or returns the Retry-After of its refusal; either way it says what is
// left of the quota as the quota headers would.
type simLimiter interface {
	take(now time.Time) (time.Duration, bool, quota)
}

// simBucket is a token bucket of rate requests a second holding one second
// of them.
type simBucket struct {
	rate, tokens float64
	last         time.Time
}

// take consumes a token at now, or returns the Retry-After the local server
// would send (whole seconds, at least one). The quota is the local
// server's headers: the whole tokens left, and the whole seconds until the
// bucket is full.
func (b *simBucket) take(now time.Time) (time.Duration, bool, quota) {
	capacity := max(b.rate, 1)
	if b.last.IsZero() {
		b.tokens, b.last = capacity, now
	}
	b.tokens = min(capacity, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	ok := b.tokens >= 1
	if ok {
		b.tokens--
	}
	q := quota{remaining: math.Floor(b.tokens), limit: capacity, window: time.Second,
		reset: time.Duration(math.Ceil((capacity-b.tokens)/b.rate)) * time.Second}
	if ok {
		return 0, true, q
	}
	secs := math.Ceil((1 - b.tokens) / b.rate)
	return time.Duration(max(secs, 1)) * time.Second, false, q
}

// simWindow is a fixed window limit: limit requests in each window from the
// start of the clock, the reset said in whole seconds rounded up.
type simWindow struct {
	limit  int
	window time.Duration
	start  time.Time
	n      int // requests of the current window
	at     time.Time
}

func (w *simWindow) take(now time.Time) (time.Duration, bool, quota) {
	if w.start.IsZero() {
		w.start = now
	}
	from := w.start.Add(now.Sub(w.start) / w.window * w.window)
	if !from.Equal(w.at) {
		w.at, w.n = from, 0
	}
	left := from.Add(w.window).Sub(now)
	reset := time.Duration(math.Ceil(left.Seconds())) * time.Second
	ok := w.n < w.limit
	if ok {
		w.n++
	}
	q := quota{remaining: float64(w.limit - w.n), reset: reset, limit: float64(w.limit), window: w.window}
	if ok {
		return 0, true, q
	}
	return reset, false, q
}

// Figures of a simulated apply.
const (
	simWorkers    = 16                      // callers of a process
	simStartup    = 1500 * time.Millisecond // Terraform's start-up and plan
	simStagger    = 250 * time.Millisecond  // up to this much later per process
	simEnd        = 500 * time.Millisecond  // from the last answer to the end of the apply
	simLatencyMin = time.Millisecond
	simLatencyMax = 6 * time.Millisecond
	simWaitMin    = 500 * time.Millisecond // the client's default RetryWaitMin
)

// simEvent is a caller of a process that is ready to send at time at.
type simEvent struct {
	at      time.Time
	proc    int
	seq     int  // ties in order of scheduling, for a deterministic run
	waiting bool // the caller holds its request and waits for its turn
	ticket  float64
	attempt int  // 0: a new request; n: the retry after attempt n
	setup   bool // the fleet's create, before the devices'
	round   paceTurn
}

type simQueue []simEvent

func (q simQueue) Len() int { return len(q) }
func (q simQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q simQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *simQueue) Push(x any) {
	e, _ := x.(simEvent)
	*q = append(*q, e)
}
func (q *simQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

var simTrace func(time.Duration, int, *pacer, bool)

type simProcess struct {
	pace     pacer
	left     int // new requests not yet sent
	accepted int // device creates accepted
	start    time.Time
	done     time.Time   // the end of the apply
	sent     []time.Time // the start of each request
}

type simResult struct {
	procs          []*simProcess
	elapsed        time.Duration // from the first start to the last end
	accepted       int           // device creates
	requests       int           // every answer
	refused        int
	refusedUnpaced int // of requests sent before pacing
}

// useful is the share of the limit spent on device creates.
func (r simResult) useful(rate float64) float64 { //nolint:unparam // the limit the simulation ran at, 20 in every simulation today
	return float64(r.accepted) / r.elapsed.Seconds() / rate
}

// refusedShare is the share of the requests refused.
func (r simResult) refusedShare() float64 {
	return float64(r.refused) / float64(max(r.requests, 1))
}

// simulate runs procs applies of units device creates each against a limit
// of rate requests a second on one key. Unpaced (the control), the callers
// send whenever they are ready.
func simulate(t *testing.T, paced bool, procs, units int, rate float64, seed uint64) simResult {
	t.Helper()
	return simulateWith(t, simOptions{paced: paced, procs: procs, units: units, limiter: &simBucket{rate: rate}, seed: seed})
}

// simOptions are the cases of a simulation.
type simOptions struct {
	paced        bool
	procs, units int
	limiter      simLimiter
	seed         uint64
	// quota: the service sends its quota headers and the pacers read
	// them.
	quota bool
	// most is each process's configured most requests a second; 0: none.
	most float64
}

func simulateWith(t *testing.T, o simOptions) simResult {
	t.Helper()
	paced, procs, units, seed := o.paced, o.procs, o.units, o.seed
	rnd := rand.New(rand.NewPCG(seed, 1)) //nolint:gosec // G404: a seeded, repeatable simulation, not a secret.
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	bucket := o.limiter
	ps := make([]*simProcess, procs)
	var q simQueue
	seq := 0
	push := func(e simEvent) {
		e.seq = seq
		seq++
		heap.Push(&q, e)
	}
	for i := range ps {
		at := start.Add(simStartup + time.Duration(rnd.Float64()*float64(simStagger)*float64(i)))
		ps[i] = &simProcess{left: units, start: at}
		ps[i].pace.now = func() time.Time { return now }
		ps[i].pace.most = newPaceMost(o.most)
		push(simEvent{at: at, proc: i, setup: true})
	}
	// answers are the answers on their way: the service decides halfway
	// through the round trip, the caller learns at its end.
	type answer struct {
		at, sent   time.Time
		proc       int
		ok         bool
		retryAfter time.Duration
		attempt    int
		setup      bool
		round      paceTurn
		quota      quota
	}
	var answers []answer
	res := simResult{procs: ps}
	for steps := 0; ; steps++ {
		if steps > 10_000_000 {
			t.Fatal("simulation did not end")
		}
		// The earliest of the next caller and the next answer.
		ai := -1
		for i, a := range answers {
			if ai < 0 || a.at.Before(answers[ai].at) {
				ai = i
			}
		}
		if ai >= 0 && (q.Len() == 0 || !q[0].at.Before(answers[ai].at)) {
			a := answers[ai]
			answers = append(answers[:ai], answers[ai+1:]...)
			now = a.at
			p := ps[a.proc]
			res.requests++
			if paced && o.quota {
				p.pace.quota(a.round, a.quota)
			}
			if a.ok {
				if paced {
					p.pace.accepted(a.round)
				}
				switch {
				case a.setup:
					for range simWorkers {
						push(simEvent{at: now, proc: a.proc})
					}
				default:
					p.accepted++
					if p.accepted == units {
						p.done = now.Add(simEnd)
					}
					push(simEvent{at: now, proc: a.proc})
				}
			} else {
				if paced {
					p.pace.refused(a.round, a.retryAfter, true)
				}
				res.refused++
				if a.round.round == 0 && !o.quota {
					res.refusedUnpaced++
				}
				push(simEvent{at: now.Add(max(a.retryAfter, simBackoff(rnd, a.attempt))), proc: a.proc,
					attempt: a.attempt, setup: a.setup})
			}
			if simTrace != nil {
				simTrace(now.Sub(start), a.proc, &p.pace, a.ok)
			}
			continue
		}
		if q.Len() == 0 {
			break
		}
		e, _ := heap.Pop(&q).(simEvent)
		now = e.at
		p := ps[e.proc]
		if !e.waiting {
			if e.attempt == 0 && !e.setup {
				if p.left == 0 {
					continue // this caller has nothing more to do
				}
				p.left--
			}
			e.attempt++
			if paced {
				e.ticket = p.pace.reserve()
			}
		}
		if paced {
			d, round, _ := p.pace.turn(e.ticket)
			if d > 0 {
				e.at, e.waiting = now.Add(min(d, paceTick)), true
				push(e)
				continue
			}
			e.round = round
		}
		latency := simLatencyMin + time.Duration(rnd.Float64()*float64(simLatencyMax-simLatencyMin))
		p.sent = append(p.sent, now)
		ra, ok, q := bucket.take(now.Add(latency / 2))
		answers = append(answers, answer{at: now.Add(latency), sent: now, proc: e.proc, ok: ok, retryAfter: ra,
			attempt: e.attempt, setup: e.setup, round: e.round, quota: q})
	}
	for _, p := range ps {
		res.accepted += p.accepted
		res.elapsed = max(res.elapsed, p.done.Sub(start))
	}
	return res
}

// simBackoff is the client's backoff before the retry after attempt
// (transport.go), drawn from rnd.
func simBackoff(rnd *rand.Rand, attempt int) time.Duration {
	ceiling := simWaitMin << min(attempt-1, 6)
	return simWaitMin + time.Duration(rnd.Float64()*float64(ceiling-simWaitMin))
}

// simSeeds are the runs of each simulated case.
var simSeeds = []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}

// The targets are useful work of at least 95% of the limit and at
// most 5% of the requests refused, in each run, for 1, 2, 4 and 8 applies
// at once. The simulation holds the pacing to them on average over its
// runs, and to these bounds in every run: two applies sometimes end apart
// (the one left alone takes some seconds to find the limit again), and
// eight are refused more than 5% (each refusal slows down one of them).
var (
	simUsefulEach  = map[int]float64{1: 0.95, 2: 0.93, 4: 0.95, 8: 0.95}
	simRefusedEach = map[int]float64{1: 0.05, 2: 0.05, 4: 0.05, 8: 0.08}
)

func TestPacingSpendsTheLimitOnUsefulWork(t *testing.T) {
	const rate = 20.0
	for _, procs := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprintf("%d applies", procs), func(t *testing.T) {
			t.Parallel()
			var useful, refused float64
			for _, seed := range simSeeds {
				res := simulate(t, true, procs, 1000, rate, seed)
				u, r := res.useful(rate), res.refusedShare()
				useful += u / float64(len(simSeeds))
				refused += r / float64(len(simSeeds))
				t.Logf("%d applies, run %d: %d requests, %d refused (%.1f%%; %d before pacing), %.1f s, useful %.1f%% of the limit",
					procs, seed, res.requests, res.refused, 100*r, res.refusedUnpaced, res.elapsed.Seconds(), 100*u)
				if res.accepted != procs*1000 {
					t.Fatalf("accepted %d creates, want %d", res.accepted, procs*1000)
				}
				if u < simUsefulEach[procs] {
					t.Errorf("run %d: useful work is %.1f%% of the limit, want at least %.0f%%", seed, 100*u, 100*simUsefulEach[procs])
				}
				if r > simRefusedEach[procs] {
					t.Errorf("run %d: %.1f%% of the requests were refused, want at most %.0f%%", seed, 100*r, 100*simRefusedEach[procs])
				}
			}
			t.Logf("%d applies, mean of %d runs: useful %.1f%%, refused %.1f%%", procs, len(simSeeds), 100*useful, 100*refused)
			if useful < 0.95 {
				t.Errorf("useful work is %.1f%% of the limit on average, want at least 95%%", 100*useful)
			}
			if procs <= 4 && refused > 0.05 {
				t.Errorf("%.1f%% of the requests were refused on average, want at most 5%%", 100*refused)
			}
		})
	}
}

// Without pacing (the control), the same callers spend much of the limit on
// refusals: the test above would see it.
func TestPacingControlWithoutPacing(t *testing.T) {
	res := simulate(t, false, 4, 1000, 20, 1)
	t.Logf("unpaced, 4 applies: %d requests, %d refused (%.1f%%)", res.requests, res.refused, 100*res.refusedShare())
	if res.refusedShare() <= 0.05 {
		t.Fatalf("unpaced callers had %.1f%% refused requests; the pacing test could not tell pacing from none", 100*res.refusedShare())
	}
}

// Four and eight applies at once all finish, and none starves: the slowest
// gets at least half the share of the fastest (its creates a second from
// its start to its end; equal applies that share the limit equally end
// together).
func TestPacingSharesTheLimitFairly(t *testing.T) {
	for _, procs := range []int{4, 8} {
		t.Run(fmt.Sprintf("%d applies", procs), func(t *testing.T) {
			t.Parallel()
			testPacingShares(t, procs)
		})
	}
}

func testPacingShares(t *testing.T, procs int) {
	for _, seed := range simSeeds {
		res := simulate(t, true, procs, 1000, 20, seed)
		lo, hi := math.Inf(1), 0.0
		for i, p := range res.procs {
			if p.accepted != 1000 {
				t.Fatalf("apply %d finished %d of 1000 creates", i, p.accepted)
			}
			share := float64(p.accepted) / p.done.Sub(p.start).Seconds()
			lo, hi = min(lo, share), max(hi, share)
		}
		t.Logf("%d applies, run %d: from %.2f to %.2f creates a second", procs, seed, lo, hi)
		if lo < hi/2 {
			t.Errorf("%d applies, run %d: the slowest apply had %.2f creates a second, less than half the fastest's %.2f",
				procs, seed, lo, hi)
		}
	}
}

// A refusal turns pacing on for the client; a POST whose connection drops
// is still never sent again while the client paces.
func TestPacingStartsAtARefusalAndNeverResendsADroppedPOST(t *testing.T) {
	seq := &sequence{steps: []step{{429, "0", ""}, {200, "", okWorkspace}, {0, "", ""}, {200, "", okWorkspace}}}
	c, _ := newTestClient(t, seq, nil)
	if r := c.Rate(); r != 0 {
		t.Fatalf("a client that was never refused paces at %g requests a second", r)
	}
	if _, err := c.CreateWorkspace(t.Context(), "n", ""); err != nil {
		t.Fatalf("CreateWorkspace after a 429: %v", err)
	}
	if c.Rate() <= 0 {
		t.Fatal("a 429 did not turn pacing on")
	}
	_, err := c.CreateWorkspace(t.Context(), "m", "")
	if !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("err = %v, want ErrAmbiguous", err)
	}
	if seq.count() != 3 {
		t.Fatalf("%d requests reached the server, want 3 (the refused POST twice, the dropped one once)", seq.count())
	}
}

// A request waiting for its turn starts sooner when the rate grows
// meanwhile: its turn is not a slot booked at the rate of the moment it
// came.
func TestPacingServesWaitingRequestsAtTheNewRate(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &pacer{now: func() time.Time { return now }}
	p.refused(paceTurn{}, time.Second, true) // pacing starts, at paceMin
	if p.rate != paceMin {
		t.Fatalf("rate %g after a refusal with nothing accepted, want %g", p.rate, paceMin)
	}
	tickets := make([]float64, 5)
	for i := range tickets {
		tickets[i] = p.reserve()
	}
	if d, _, _ := p.turn(tickets[4]); d < 10*time.Second {
		t.Fatalf("the fifth request waits %s at %g requests a second", d, p.rate)
	}
	p.rate = 10 // as the slow start does, answer by answer
	if d, _, _ := p.turn(tickets[4]); d > time.Second {
		t.Errorf("the fifth request still waits %s at %g requests a second", d, p.rate)
	}
}

// Refusals in a row each decrease the rate, but not below (1-paceBeta) of
// the rate the service accepted: a burst of refusals does not cascade.
func TestPacingDecreasesDoNotCascade(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &pacer{now: func() time.Time { return now }}
	p.refused(paceTurn{}, time.Second, true)
	step := 50 * time.Millisecond // 20 accepted answers a second
	for i := 0; i < 160; i++ {
		if i == 20 {
			p.refused(paceTurn{round: p.round}, time.Second, true) // ends the slow start
		}
		now = now.Add(step)
		p.accepted(paceTurn{round: p.round})
	}
	for range 5 {
		now = now.Add(time.Millisecond)
		p.refused(paceTurn{round: p.round}, time.Second, true)
	}
	if low := (1 - paceBeta) * 20 * 0.95; p.rate < low {
		t.Errorf("rate %.2f after five refusals in a row at 20 accepted a second, want at least %.2f", p.rate, low)
	}
	if p.rate > 20 {
		t.Errorf("rate %.2f after five refusals in a row at 20 accepted a second, want a decrease", p.rate)
	}
}

// simQuotaLimiters are the limits that send quota headers: the local
// server's token bucket, and a fixed window whose reset is said in whole
// seconds rounded up.
func simQuotaLimiters() map[string]func() simLimiter {
	return map[string]func() simLimiter{
		"token bucket": func() simLimiter { return &simBucket{rate: 20} },
		"fixed window": func() simLimiter { return &simWindow{limit: 20, window: time.Second} },
	}
}

// Paced by the quota the service says is left, an apply is never refused:
// it spreads what is left until the reset, and starts nothing once it is
// spent. Without reading the headers (the control), the same apply is
// refused before it paces.
func TestPacingToQuotaHeadersNeverExceedsThem(t *testing.T) {
	for name, limiter := range simQuotaLimiters() {
		t.Run(name, func(t *testing.T) {
			for _, seed := range simSeeds {
				res := simulateWith(t, simOptions{paced: true, quota: true, procs: 1, units: 1000, limiter: limiter(), seed: seed})
				t.Logf("run %d: %d requests, %d refused, %.1f s, useful %.1f%% of the limit",
					seed, res.requests, res.refused, res.elapsed.Seconds(), 100*res.useful(20))
				if res.accepted != 1000 {
					t.Fatalf("accepted %d creates, want 1000", res.accepted)
				}
				if res.refused != 0 {
					t.Errorf("run %d: %d requests refused under quota headers, want none", seed, res.refused)
				}
				if u := res.useful(20); u < 0.9 {
					t.Errorf("run %d: useful work is %.1f%% of the limit, want at least 90%%", seed, 100*u)
				}
			}
			control := simulateWith(t, simOptions{paced: true, procs: 1, units: 1000, limiter: limiter(), seed: 1})
			if control.refused == 0 {
				t.Fatal("the apply that does not read the headers was never refused: the test could not see a refusal")
			}
		})
	}
}

// Several applies on one key, each paced by the quota headers, share the
// limit: the figures of DESIGN.md, and bounds on every run.
func TestPacingToQuotaHeadersShared(t *testing.T) {
	for _, procs := range []int{2, 4, 8} {
		t.Run(fmt.Sprintf("%d applies", procs), func(t *testing.T) {
			var useful, refused float64
			for _, seed := range simSeeds {
				res := simulateWith(t, simOptions{paced: true, quota: true, procs: procs, units: 1000, limiter: &simBucket{rate: 20}, seed: seed})
				if res.accepted != procs*1000 {
					t.Fatalf("accepted %d creates, want %d", res.accepted, procs*1000)
				}
				useful += res.useful(20) / float64(len(simSeeds))
				refused += res.refusedShare() / float64(len(simSeeds))
			}
			t.Logf("%d applies, mean of %d runs: useful %.1f%%, refused %.1f%%", procs, len(simSeeds), 100*useful, 100*refused)
			if useful < 0.95 {
				t.Errorf("useful work is %.1f%% of the limit on average, want at least 95%%", 100*useful)
			}
			if want := map[int]float64{2: 0.01, 4: 0.01, 8: 0.02}[procs]; refused > want {
				t.Errorf("%.1f%% of the requests were refused on average, want at most %.0f%%", 100*refused, 100*want)
			}
		})
	}
}

// A configured most requests a second holds under any pace: consecutive
// requests start at least 1/most apart, before any refusal, under the
// curve and under quota headers that allow more. Without it (the control)
// requests start closer.
func TestPacingHoldsTheConfiguredMost(t *testing.T) {
	const most = 5.0
	gap := time.Duration(float64(time.Second) / most)
	closest := func(res simResult) time.Duration {
		c := time.Duration(math.MaxInt64)
		for _, p := range res.procs {
			for i := 1; i < len(p.sent); i++ {
				c = min(c, p.sent[i].Sub(p.sent[i-1]))
			}
		}
		return c
	}
	for _, quota := range []bool{false, true} {
		res := simulateWith(t, simOptions{paced: true, quota: quota, procs: 1, units: 200, limiter: &simBucket{rate: 20}, seed: 1, most: most})
		if res.accepted != 200 {
			t.Fatalf("accepted %d creates, want 200", res.accepted)
		}
		if c := closest(res); c < gap {
			t.Errorf("quota headers %v: two requests started %s apart, want at least %s", quota, c, gap)
		}
		if r := float64(len(res.procs[0].sent)-1) / res.procs[0].sent[len(res.procs[0].sent)-1].Sub(res.procs[0].sent[0]).Seconds(); r < 0.95*most {
			t.Errorf("quota headers %v: %.2f requests a second, want close to %g", quota, r, most)
		}
	}
	control := simulateWith(t, simOptions{paced: true, procs: 1, units: 200, limiter: &simBucket{rate: 20}, seed: 1})
	if c := closest(control); c >= gap {
		t.Fatalf("without a most, requests started at least %s apart: the test could not see a closer start", c)
	}
}

// The most is shared by the services of a client.
func TestClientMostIsSharedByItsServices(t *testing.T) {
	c, err := New(Config{BaseURL: "https://api.example.com", StorageURL: "https://storage.example.com", APIKey: "k", MaxRequestsPerSecond: 4})
	if err != nil {
		t.Fatal(err)
	}
	if c.mgmt.pace.most == nil || c.mgmt.pace.most != c.storage.pace.most {
		t.Fatal("the services of a client do not share one most")
	}
	if c.mgmt.pace.most.gap != 250*time.Millisecond {
		t.Errorf("gap %s at 4 requests a second, want 250ms", c.mgmt.pace.most.gap)
	}
	for _, v := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if newPaceMost(v) != nil {
			t.Errorf("MaxRequestsPerSecond %g sets a most", v)
		}
	}
}

// A quota of a long window is spread over paceQuotaHorizon at most, and
// once it is spent nothing starts before its reset.
func TestPacingToALongQuota(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &pacer{now: func() time.Time { return now }}
	_, first, _ := p.turn(p.reserve())
	p.quota(first, quota{remaining: 4999, reset: time.Hour, limit: 5000, window: time.Hour})
	if r := p.current(now); r < 499 {
		t.Errorf("pace %g requests a second with 4,999 left for an hour, want at least 499", r)
	}
	_, second, _ := p.turn(p.reserve())
	p.quota(second, quota{remaining: 0, reset: time.Hour, limit: 5000, window: time.Hour})
	now = now.Add(time.Second)
	if d, _, _ := p.turn(p.reserve()); d < time.Hour-2*time.Second {
		t.Errorf("a request waits %s with nothing left for an hour, want about an hour", d)
	}
	now = now.Add(time.Hour)
	if d, _, _ := p.turn(p.reserve()); d > time.Second {
		t.Errorf("a request waits %s after the reset of the quota", d)
	}
}
