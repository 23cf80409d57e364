package localzdm

import (
	crand "crypto/rand"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/httpio"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/settings"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/store"
)

// Answers of GET /v3/devices/{device_id}/fota for a device that never had a
// FOTA (Choices.MissingFOTA).
const (
	MissingFOTA404   = settings.MissingFOTA404   // 404 not_found (the default)
	MissingFOTANull  = settings.MissingFOTANull  // 200 {"fota": null}
	MissingFOTAEmpty = settings.MissingFOTAEmpty // 200 {"fota": {}}
)

// Echoes of a job's value in job GETs and lists (Choices.JobValue).
const (
	JobValueEcho    = settings.JobValueEcho    // the value as stored (the default)
	JobValueOmit    = settings.JobValueOmit    // no "value" member
	JobValueNull    = settings.JobValueNull    // "value": null
	JobValueReorder = settings.JobValueReorder // the keys of every object in reverse order
)

// Choices select how the server answers where the API specification is
// silent. The zero Choices are the server's defaults; the provider must work
// with every combination.
type Choices = settings.Choices

// choiceState holds the choices in effect and the state of the shuffles.
type choiceState struct {
	mu      sync.Mutex
	c       Choices
	rng     *rand.Rand
	last    map[string]uint64 // list key -> hash of the previous order
	publish int               // points published before reads
	lastAt  time.Time         // time of the last of them
}

func (cs *choiceState) set(c Choices) {
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

func (cs *choiceState) get() Choices {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.c.Normalized()
}

// SetChoices replaces the choices (see Choices); the zero Choices restore
// the defaults. Invalid choices are refused and change nothing.
func (s *Server) SetChoices(c Choices) error {
	if err := c.Validate(); err != nil {
		return err
	}
	s.choices.set(c)
	return nil
}

// CurrentChoices returns the choices in effect, defaults spelled out.
func (s *Server) CurrentChoices() Choices {
	return s.choices.get()
}

// shuffled returns items in the order the choices ask for: unchanged, or
// shuffled so that the order differs from the previous answer of the list
// named key. id names an item.
func shuffled[T any](s *Server, key string, items []T, id func(*T) string) []T {
	cs := &s.choices
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

// visibleWorkspaces applies WorkspaceListLimit and HiddenWorkspaces to the
// workspace IDs of an account, in order.
func (s *Server) visibleWorkspaces(ids []string) []string {
	c := s.choices.get()
	if c.WorkspaceListLimit == 0 && len(c.HiddenWorkspaces) == 0 {
		return ids
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if slices.Contains(c.HiddenWorkspaces, id) {
			continue
		}
		if c.WorkspaceListLimit > 0 && len(out) == c.WorkspaceListLimit {
			break
		}
		out = append(out, id)
	}
	return out
}

// jobAnswer renders a job for GETs and lists, echoing its value as the
// choices ask.
func (s *Server) jobAnswer(j *job) any {
	out := jobToJSON(j)
	switch s.choices.get().JobValue {
	case JobValueOmit:
		return struct {
			Name        string `json:"name"`
			Status      string `json:"status"`
			ScheduledAt string `json:"scheduled_at"`
		}{out.Name, out.Status, out.ScheduledAt}
	case JobValueNull:
		out.Value = json.RawMessage("null")
	case JobValueReorder:
		out.Value = httpio.ReorderJSON(out.Value)
	}
	return out
}

// missingFOTA answers GET .../fota for a device without a FOTA.
func (s *Server) missingFOTA(deviceID string) (any, error) {
	switch s.choices.get().MissingFOTA {
	case MissingFOTANull:
		return map[string]any{"fota": nil}, nil
	case MissingFOTAEmpty:
		return map[string]any{"fota": struct{}{}}, nil
	default:
		return nil, notFound("no FOTA scheduled on device %q", deviceID)
	}
}

// publishBeforeRead publishes one data point into workspace wsID before a
// storage read of query dq, when the choices ask for it.
func (s *Server) publishBeforeRead(wsID string, dq *dataQuery) {
	cs := &s.choices
	cs.mu.Lock()
	on := cs.c.PublishBeforeRead
	var at time.Time
	if on {
		// Strictly later than the previous one, so it is never a duplicate.
		cs.publish++
		at = time.Now().UTC()
		if !at.After(cs.lastAt) {
			at = cs.lastAt.Add(time.Microsecond)
		}
		cs.lastAt = at
	}
	n := cs.publish
	cs.mu.Unlock()
	if !on {
		return
	}
	deviceID, tag := firstKey(dq.Devices), firstKey(dq.Tags)
	var newest *point
	s.DataMu.RLock()
	if sr := s.Series[wsID]; sr != nil && len(sr.Points) > 0 {
		newest = sr.Points[len(sr.Points)-1]
	}
	s.DataMu.RUnlock()
	s.Mu.RLock()
	w := s.Workspaces[wsID]
	if w != nil && deviceID == "" {
		if newest != nil && s.Devices[newest.DeviceID] != nil {
			deviceID = newest.DeviceID
		} else if len(w.Devices) > 0 {
			deviceID = w.Devices[0]
		}
	}
	s.Mu.RUnlock()
	if deviceID == "" {
		return // no device to publish from
	}
	if tag == "" {
		tag = "published"
		if newest != nil {
			tag = newest.Tag
		}
	}
	if dq.End != nil && !at.Before(*dq.End) {
		at = dq.End.Add(-time.Duration(n) * time.Microsecond)
	}
	if dq.Start != nil && at.Before(*dq.Start) {
		at = *dq.Start
	}
	payload, _ := json.Marshal(map[string]int{"published_before_read": n})
	if _, err := s.Publish(wsID, []DataPoint{{DeviceID: deviceID, Tag: tag, TimestampDevice: store.Timestamp(at), Payload: payload}}); err != nil {
		s.log.Printf("localzdm: publishing a point before a storage read: %v", err)
	}
}

// firstKey returns the smallest key of a set, or "".
func firstKey(m map[string]bool) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys[0]
}

// randomSeed returns a random seed for the seeded shuffles.
func randomSeed() uint64 {
	var b [8]byte
	_, _ = crand.Read(b[:]) // crypto/rand.Read never fails.
	return binary.LittleEndian.Uint64(b[:])
}
