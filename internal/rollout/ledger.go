package rollout

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
)

// This file holds what a run knows of who has its command before each
// send. The service is the ledger: a device is read right before the wave
// that sends to it (and again before a paced send that comes long after
// that read), and a device found with the command is not sent it. What a
// read cannot see, a send of the same command to the same device by
// another run of this process that is in flight or lands after the read
// (two rollouts of one job and value in one configuration run at once), the
// process's send log (sends) tells: such a send is waited for, and the
// device counts as having the command.

// freshFor is how long a read of a device decides its send: a send that
// comes later (paced by max_devices_per_minute) reads the device again.
const freshFor = 30 * time.Second

// sendKey names one command on one device of one service.
type sendKey [16]byte

func keyOf(c *client.Client, workspaceID, deviceID string, cmd Command) sendKey {
	parts := append([]string{c.BaseURL(), workspaceID, deviceID}, cmd.identity()...)
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	var k sendKey
	copy(k[:], sum[:])
	return k
}

// sendLog is the process's log of the sends of the runs in progress: each
// send that may have reached the service, by the order in which it ended,
// and the sends in flight. A send one run may start is serialized with any
// other of the same key; a device read at mark m and sent the command by
// another run after m (or while the read ran) is not sent it again. The log
// empties when no run is in progress: a send before a run's reads is what
// they show.
type sendLog struct {
	mu     sync.Mutex
	seq    uint64
	active int
	done   map[sendKey]uint64
	flight map[sendKey]chan struct{}
}

var sends = &sendLog{}

// enter and leave bracket a run.
func (l *sendLog) enter() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active++
	if l.done == nil {
		l.done, l.flight = map[sendKey]uint64{}, map[sendKey]chan struct{}{}
	}
}

func (l *sendLog) leave() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active--
	if l.active == 0 {
		l.done = map[sendKey]uint64{}
	}
}

// mark is taken right before a read: sends that end after it may be unseen
// by the read.
func (l *sendLog) mark() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	return l.seq
}

// claim returns once no other send of k is in flight: seen is true when one
// that may have reached the service ended after mark (the device has the
// command; nothing to send), else release must be called once the send
// ends, saying whether it may have reached the service.
func (l *sendLog) claim(k sendKey, mark uint64) (seen bool, release func(sent bool)) {
	for {
		l.mu.Lock()
		if s, ok := l.done[k]; ok && s > mark {
			l.mu.Unlock()
			return true, nil
		}
		if ch, ok := l.flight[k]; ok {
			l.mu.Unlock()
			<-ch
			continue
		}
		ch := make(chan struct{})
		l.flight[k] = ch
		l.mu.Unlock()
		return false, func(sent bool) {
			l.mu.Lock()
			defer l.mu.Unlock()
			delete(l.flight, k)
			if sent {
				l.seq++
				l.done[k] = l.seq
			}
			close(ch)
		}
	}
}

// mayHaveSent tells whether a send that ended with err may have reached
// the service.
func mayHaveSent(err error) bool {
	return err == nil || (errors.Is(err, client.ErrAmbiguous) && !errors.Is(err, client.ErrNotSent))
}

// reads is what a run last read of the command on its devices: who has it,
// when each device was read (the spec's clock), and the send log's mark
// taken before that read.
type reads struct {
	mu    sync.Mutex
	has   map[string]bool
	at    map[string]time.Time
	marks map[string]uint64
	clock Clock
}

func newReads(clock Clock) *reads {
	return &reads{has: map[string]bool{}, at: map[string]time.Time{}, marks: map[string]uint64{}, clock: clock}
}

// set records the devices read after mark.
func (r *reads) set(devices []fleetstatus.Device, cmd Command, mark uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock.Now()
	for _, d := range devices {
		r.has[d.ID] = cmd.has(d)
		r.at[d.ID] = now
		r.marks[d.ID] = mark
	}
}

// hasIt reports whether the device was found with the command.
func (r *reads) hasIt(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.has[id]
}

// old reports whether the device's read no longer decides its send.
func (r *reads) old(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	at, ok := r.at[id]
	return !ok || r.clock.Now().Sub(at) > freshFor
}

// expire makes every read old: after a wave's wait, each device is read
// again before its wave's sends.
func (r *reads) expire() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.at)
}

func (r *reads) markOf(id string) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.marks[id]
}

// read reads ids again (parallel at a time) and records them.
func (r *reads) read(ctx context.Context, c *client.Client, spec Spec, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	mark := sends.mark()
	got, err := fleetstatus.ReadIDs(ctx, c, ids, spec.Command.Kind(), spec.Parallel)
	if err != nil {
		return err
	}
	r.set(got, spec.Command, mark)
	return nil
}
