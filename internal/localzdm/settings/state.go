package settings

import (
	crand "crypto/rand"
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
	"sync"
	"time"
)

// State holds the choices in effect, the state of the shuffles and the
// count of the points published before reads.
type State struct {
	mu      sync.Mutex
	c       Choices
	rng     *rand.Rand
	last    map[string]uint64 // list key -> hash of the previous order
	publish int               // points published before reads
	lastAt  time.Time         // time of the last of them
}

// Set puts c in effect; a zero Seed picks a random one.
func (cs *State) Set(c Choices) {
	seed := c.Seed
	if seed == 0 {
		seed = randomSeed()
	}
	cs.mu.Lock()
	cs.c = c.Normalized()
	// A repeatable order under a seed is the point; nothing here is secret.
	cs.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) //nolint:gosec // G404: seeded on purpose
	cs.last = map[string]uint64{}
	cs.mu.Unlock()
}

// Get returns the choices in effect, defaults spelled out.
func (cs *State) Get() Choices {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.c.Normalized()
}

// NextPublish reports whether a point is to be published before a read
// and, if so, its time, strictly later than the previous one so that it is
// never a duplicate, and how many such points were published with it.
func (cs *State) NextPublish() (on bool, at time.Time, n int) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	on = cs.c.PublishBeforeRead
	if on {
		// Strictly later than the previous one, so it is never a duplicate.
		cs.publish++
		at = time.Now().UTC()
		if !at.After(cs.lastAt) {
			at = cs.lastAt.Add(time.Microsecond)
		}
		cs.lastAt = at
	}
	return on, at, cs.publish
}

// Shuffled returns items in the order the choices ask for: unchanged, or
// shuffled so that the order differs from the previous answer of the list
// named key. id names an item.
func Shuffled[T any](cs *State, key string, items []T, id func(*T) string) []T {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if !cs.c.ShuffleLists || len(items) < 2 {
		return items
	}
	prev, ok := cs.last[key]
	if !ok {
		// The first shuffled answer differs from the order answered before
		// shuffling: the order given.
		prev = orderHash(items, id)
	}
	cs.rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	h := orderHash(items, id)
	if h == prev {
		// Same order as last time: rotate by one, which changes any order
		// of two or more distinct items.
		items = append(items[1:], items[0])
		h = orderHash(items, id)
	}
	cs.last[key] = h
	return items
}

func orderHash[T any](items []T, id func(*T) string) uint64 {
	h := fnv.New64a()
	for i := range items {
		_, _ = h.Write([]byte(id(&items[i])))
		_, _ = h.Write([]byte{0})
	}
	return h.Sum64()
}

// randomSeed returns a random seed for the seeded shuffles.
func randomSeed() uint64 {
	var b [8]byte
	_, _ = crand.Read(b[:]) // crypto/rand.Read never fails.
	return binary.LittleEndian.Uint64(b[:])
}
