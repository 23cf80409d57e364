package settings

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"math"
	"slices"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/store"
)

// Plan decides, under a DeviceBehavior, how the devices of one workspace
// answer the work scheduled on them: which fail or stay silent, after what
// delay, and which health point they publish (see DeviceBehavior).
type Plan struct {
	b          DeviceBehavior
	rank       map[string]int // device ID -> position in the seeded order
	healthRank map[string]int // device ID -> position in the health order
	n          int
}

// NewPlan returns the plan of b, normalized, over the devices of a
// workspace in creation order; nil when devices do not answer.
func NewPlan(b DeviceBehavior, devices []*store.Device) *Plan {
	if !b.Enabled {
		return nil
	}
	p := &Plan{b: b, n: len(devices)}
	if b.FailureFraction > 0 || b.SilentFraction > 0 {
		p.rank = rank(devices, b.Seed)
	}
	if b.PublishHealth && (b.HealthSilentFraction > 0 || b.HealthErrorFraction > 0) {
		p.healthRank = rank(devices, b.Seed, "health")
	}
	return p
}

// rank orders devices by a hash of seed, their name and salt (ties in
// creation order) and returns each one's position by ID.
func rank(devices []*store.Device, seed uint64, salt ...string) map[string]int {
	type ranked struct {
		id  string
		h   uint64
		pos int
	}
	rs := make([]ranked, 0, len(devices))
	for i, d := range devices {
		rs = append(rs, ranked{d.ID, seededHash(seed, append([]string{d.Name}, salt...)...), i})
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		switch {
		case a.h < b.h:
			return -1
		case a.h > b.h:
			return 1
		}
		return a.pos - b.pos
	})
	out := make(map[string]int, len(rs))
	for i, r := range rs {
		out[r.id] = i
	}
	return out
}

func seededHash(seed uint64, parts ...string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	_, _ = h.Write(b[:])
	for _, p := range parts {
		_, _ = h.Write([]byte(p))
		_, _ = h.Write([]byte{0})
	}
	return h.Sum64()
}

// Answer is a device's planned answer: its status after Delay, and the
// health point it publishes then (HealthTag "" for none).
type Answer struct {
	Status        string
	Delay         time.Duration
	HealthTag     string
	HealthPayload json.RawMessage
}

// Answer plans the answer of device d to a job (isJob) or a FOTA, known by
// key and named by extra in a health point; false when d does not answer.
func (p *Plan) Answer(d *store.Device, isJob bool, key string, extra map[string]string) (Answer, bool) {
	listed := func(l []string) bool { return slices.Contains(l, d.ID) || slices.Contains(l, d.Name) }
	silentN := int(math.Round(p.b.SilentFraction * float64(p.n)))
	failN := int(math.Round(p.b.FailureFraction * float64(p.n)))
	r, ranked := p.rank[d.ID]
	var a Answer
	switch {
	case listed(p.b.SilentDevices) || (ranked && r < silentN):
		return a, false
	case listed(p.b.FailDevices) || (ranked && r < silentN+failN):
		a.Status = p.b.FailureStatus
		if isJob {
			a.Status = p.b.JobFailureStatus // "": the job stays pending
		}
	default:
		a.Status = p.b.FOTASuccessStatus
		if isJob {
			a.Status = store.JobStatusDone
		}
		a.HealthTag, a.HealthPayload = p.health(d, extra)
	}
	if a.Status == "" {
		return a, false
	}
	a.Delay = p.b.Delay
	if p.b.Jitter > 0 {
		frac := float64(seededHash(p.b.Seed, d.Name, "jitter", key)>>11) / (1 << 53)
		a.Delay += time.Duration(frac * float64(p.b.Jitter))
	}
	return a, true
}

// health is the health point of a device that completed the work named by
// extra: "" when it publishes none.
func (p *Plan) health(d *store.Device, extra map[string]string) (string, json.RawMessage) {
	if !p.b.PublishHealth {
		return "", nil
	}
	silentN := int(math.Round(p.b.HealthSilentFraction * float64(p.n)))
	errorN := int(math.Round(p.b.HealthErrorFraction * float64(p.n)))
	r, ranked := p.healthRank[d.ID]
	if ranked && r < silentN {
		return "", nil
	}
	return p.b.HealthPoint(ranked && r < silentN+errorN, extra)
}
