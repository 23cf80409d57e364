package client

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"
)

// The pacing tests drive pacers against a scripted limiter on a virtual
// clock: the limiter is the token bucket of the local server (one bucket per
// API key holding one second of requests), the callers behave as the
// client's do (a refused request waits its Retry-After, then is sent
// again), and nothing sleeps.

// simBucket is a token bucket of rate requests a second holding one second
// of them.
type simBucket struct {
	rate, tokens float64
	last         time.Time
}

// take consumes a token at now, or returns the Retry-After the local server
// would send (whole seconds, at least one).
func (b *simBucket) take(now time.Time) (time.Duration, bool) {
	capacity := max(b.rate, 1)
	if b.last.IsZero() {
		b.tokens, b.last = capacity, now
	}
	b.tokens = min(capacity, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	secs := math.Ceil((1 - b.tokens) / b.rate)
	return time.Duration(max(secs, 1)) * time.Second, false
}

// simEvent is a worker of a process that is ready to send at time at.
type simEvent struct {
	at   time.Time
	proc int
	seq  int  // ties in order of scheduling, for a deterministic run
	sent bool // the worker booked this time with the pacer: it sends now
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

var simTrace func(time.Duration, *pacer, bool)

type simProcess struct {
	pace     pacer
	left     int // units of work not yet accepted or in flight
	accepted int
	refused  int
	done     time.Time
}

type simResult struct {
	procs    []*simProcess
	elapsed  time.Duration // until the last process is done
	accepted int
	refused  int
}

// simulate runs procs processes of workers callers each, every process with
// units requests of useful work, against a limit of rate requests a second
// on one key; latency is the round trip of a request.
// Unpaced (the control), the callers send whenever they are ready.
func simulate(t *testing.T, paced bool, procs, workers, units int, rate float64, latency time.Duration) simResult {
	t.Helper()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	bucket := &simBucket{rate: rate}
	ps := make([]*simProcess, procs)
	var q simQueue
	seq := 0
	for i := range ps {
		ps[i] = &simProcess{left: units}
		ps[i].pace.now = func() time.Time { return now }
		for range workers {
			heap.Push(&q, simEvent{at: start, proc: i, seq: seq})
			seq++
		}
	}
	// inFlight holds the answers on their way: a worker sends at its event,
	// the service decides at send+latency/2, the worker learns at
	// send+latency. Answers are events too: kind 1.
	type answer struct {
		at, sent   time.Time
		proc       int
		ok         bool
		retryAfter time.Duration
	}
	var answers []answer
	res := simResult{procs: ps}
	for steps := 0; ; steps++ {
		if steps > 10_000_000 {
			t.Fatal("simulation did not end")
		}
		// The earliest of the next worker and the next answer.
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
			if a.ok {
				if paced {
					p.pace.accepted()
				}
				p.accepted++
				if p.accepted == units {
					p.done = now
				}
				heap.Push(&q, simEvent{at: now, proc: a.proc, seq: seq})
			} else {
				if paced {
					p.pace.refused(a.sent, a.retryAfter, true)
				}
				p.refused++
				p.left++ // sent again, after its Retry-After
				heap.Push(&q, simEvent{at: now.Add(a.retryAfter), proc: a.proc, seq: seq})
			}
			seq++
			if simTrace != nil {
				simTrace(now.Sub(start), &p.pace, a.ok)
			}
			continue
		}
		if q.Len() == 0 {
			break
		}
		e, _ := heap.Pop(&q).(simEvent)
		now = e.at
		p := ps[e.proc]
		if !e.sent {
			if p.left == 0 {
				continue // this worker has nothing more to do
			}
			p.left--
			if paced {
				if d, _ := p.pace.reserve(); d > 0 {
					heap.Push(&q, simEvent{at: now.Add(d), proc: e.proc, seq: seq, sent: true})
					seq++
					continue
				}
			}
		}
		ra, ok := bucket.take(now.Add(latency / 2))
		answers = append(answers, answer{at: now.Add(latency), sent: now, proc: e.proc, ok: ok, retryAfter: ra})
	}
	for _, p := range ps {
		res.accepted += p.accepted
		res.refused += p.refused
		res.elapsed = max(res.elapsed, p.done.Sub(start))
	}
	return res
}

func TestPacingSpendsTheLimitOnUsefulWork(t *testing.T) {
	const rate = 20.0
	for _, procs := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprintf("%d applies", procs), func(t *testing.T) {
			res := simulate(t, true, procs, 10, 1000, rate, 20*time.Millisecond)
			useful := float64(res.accepted) / res.elapsed.Seconds() / rate
			refusedShare := float64(res.refused) / float64(res.accepted+res.refused)
			t.Logf("%d applies: %d accepted, %d refused (%.1f%%), %.1f s, useful %.1f%% of the limit",
				procs, res.accepted, res.refused, 100*refusedShare, res.elapsed.Seconds(), 100*useful)
			if res.accepted != procs*1000 {
				t.Fatalf("accepted %d requests, want %d", res.accepted, procs*1000)
			}
			if useful < 0.95 {
				t.Errorf("useful work is %.1f%% of the limit, want at least 95%%", 100*useful)
			}
			// Independent processes are refused more as they are more: at
			// most 5% up to 4 applies at once, 10% for 8.
			if limit := map[bool]float64{true: 0.05, false: 0.10}[procs <= 4]; refusedShare > limit {
				t.Errorf("%.1f%% of the requests were refused, want at most %.0f%%", 100*refusedShare, 100*limit)
			}
		})
	}
}

// Without pacing (the control), the same callers spend much of the limit on
// refusals: the test above would see it.
func TestPacingControlWithoutPacing(t *testing.T) {
	res := simulate(t, false, 4, 10, 1000, 20, 20*time.Millisecond)
	refusedShare := float64(res.refused) / float64(res.accepted+res.refused)
	t.Logf("unpaced, 4 applies: %d accepted, %d refused (%.1f%%)", res.accepted, res.refused, 100*refusedShare)
	if refusedShare <= 0.05 {
		t.Fatalf("unpaced callers had %.1f%% refused requests; the pacing test could not tell pacing from none", 100*refusedShare)
	}
}

// Four applies at once all finish, and none starves: the slowest gets at
// least half the share of the fastest (equal applies that share the limit
// equally end together).
func TestPacingSharesTheLimitFairly(t *testing.T) {
	res := simulate(t, true, 4, 10, 1000, 20, 20*time.Millisecond)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	first, last := res.procs[0].done, res.procs[0].done
	for i, p := range res.procs {
		if p.accepted != 1000 {
			t.Fatalf("apply %d finished %d of 1000 requests", i, p.accepted)
		}
		first, last = minTime(first, p.done), maxTime(last, p.done)
	}
	t.Logf("applies ended between %s and %s", first.Sub(start), last.Sub(start))
	if ratio := first.Sub(start).Seconds() / last.Sub(start).Seconds(); ratio < 0.5 {
		t.Errorf("the first apply ended at %s, the last at %s: the slowest had less than half the share of the fastest",
			first.Sub(start), last.Sub(start))
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
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
