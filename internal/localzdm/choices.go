package localzdm

import (
	"bytes"
	crand "crypto/rand"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/store"
)

// Answers of GET /v3/devices/{device_id}/fota for a device that never had a
// FOTA (Choices.MissingFOTA).
const (
	MissingFOTA404   = "404"   // 404 not_found (the default)
	MissingFOTANull  = "null"  // 200 {"fota": null}
	MissingFOTAEmpty = "empty" // 200 {"fota": {}}
)

// Echoes of a job's value in job GETs and lists (Choices.JobValue).
const (
	JobValueEcho    = "echo"    // the value as stored (the default)
	JobValueOmit    = "omit"    // no "value" member
	JobValueNull    = "null"    // "value": null
	JobValueReorder = "reorder" // the keys of every object in reverse order
)

// Choices select how the server answers where the API specification is
// silent. The zero Choices are the server's defaults; the provider must work
// with every combination.
type Choices struct {
	// MissingFOTA is how GET .../fota answers for a device that never had a
	// FOTA: MissingFOTA404 (or ""), MissingFOTANull or MissingFOTAEmpty.
	MissingFOTA string `json:"missing_fota"`
	// ShuffleLists answers the lists of workspaces, fleets, devices and jobs
	// in a random order that differs from the previous answer of the same
	// list (when it has two items or more).
	ShuffleLists bool `json:"shuffle_lists"`
	// PublishBeforeRead publishes one data point before each storage read,
	// as a device would while a client reads page after page: the point
	// takes the first device and tag of the query (else those of the
	// workspace's newest point, else its first device and the tag
	// "published"), the current time, or just under the query's end when
	// that is earlier, and the payload {"published_before_read": n}.
	PublishBeforeRead bool `json:"publish_before_read"`
	// JobValue is how job GETs and job lists echo a job's value:
	// JobValueEcho (or ""), JobValueOmit, JobValueNull or JobValueReorder.
	// Scheduling answers always echo the value as stored.
	JobValue string `json:"job_value"`
	// WorkspaceListLimit, when above 0, makes GET /v3/workspaces show only
	// the first N workspaces of the account (as a service that pages its
	// lists would). GET /v3/workspaces/{id} still answers the others.
	WorkspaceListLimit int `json:"workspace_list_limit"`
	// HiddenWorkspaces are workspace IDs that GET /v3/workspaces never
	// shows. GET /v3/workspaces/{id} still answers them.
	HiddenWorkspaces []string `json:"hidden_workspaces"`
	// DeviceIDPrefix, when not empty, starts the IDs of new devices instead
	// of "dev-": "dev/" gives IDs containing "/", which IDs may hold.
	DeviceIDPrefix string `json:"device_id_prefix"`
	// Seed makes the shuffled orders repeatable: the same seed and the same
	// calls give the same orders. Zero picks a random seed.
	Seed uint64 `json:"seed"`
}

// validate reports the first invalid choice.
func (c Choices) validate() error {
	switch c.MissingFOTA {
	case "", MissingFOTA404, MissingFOTANull, MissingFOTAEmpty:
	default:
		return invalidArgument("\"missing_fota\" must be %q, %q or %q, not %q", MissingFOTA404, MissingFOTANull, MissingFOTAEmpty, c.MissingFOTA)
	}
	switch c.JobValue {
	case "", JobValueEcho, JobValueOmit, JobValueNull, JobValueReorder:
	default:
		return invalidArgument("\"job_value\" must be %q, %q, %q or %q, not %q", JobValueEcho, JobValueOmit, JobValueNull, JobValueReorder, c.JobValue)
	}
	if c.WorkspaceListLimit < 0 {
		return invalidArgument("\"workspace_list_limit\" must not be negative (0 shows every workspace), got %d", c.WorkspaceListLimit)
	}
	if !utf8.ValidString(c.DeviceIDPrefix) || len(c.DeviceIDPrefix) > 64 {
		return invalidArgument("\"device_id_prefix\" must be valid UTF-8 of at most 64 bytes")
	}
	for i, id := range c.HiddenWorkspaces {
		if id == "" {
			return invalidArgument("\"hidden_workspaces[%d]\" must not be empty", i)
		}
	}
	return nil
}

// normalized spells the defaults out, so CurrentChoices shows what applies.
func (c Choices) normalized() Choices {
	if c.MissingFOTA == "" {
		c.MissingFOTA = MissingFOTA404
	}
	if c.JobValue == "" {
		c.JobValue = JobValueEcho
	}
	if c.HiddenWorkspaces == nil {
		c.HiddenWorkspaces = []string{}
	} else {
		c.HiddenWorkspaces = slices.Clone(c.HiddenWorkspaces)
	}
	return c
}

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
	cs.c = c.normalized()
	// A repeatable order under a seed is the point; nothing here is secret.
	cs.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) //nolint:gosec // G404: seeded on purpose
	cs.last = map[string]uint64{}
	cs.mu.Unlock()
}

func (cs *choiceState) get() Choices {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.c.normalized()
}

// SetChoices replaces the choices (see Choices); the zero Choices restore
// the defaults. Invalid choices are refused and change nothing.
func (s *Server) SetChoices(c Choices) error {
	if err := c.validate(); err != nil {
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
		out.Value = reorderJSON(out.Value)
	}
	return out
}

// reorderJSON writes the keys of every object of v in reverse order; v is
// returned unchanged when it is not valid JSON.
func reorderJSON(v json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var buf bytes.Buffer
	if err := reorderValue(dec, &buf); err != nil {
		return v
	}
	return buf.Bytes()
}

func reorderValue(dec *json.Decoder, buf *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			buf.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					buf.WriteByte(',')
				}
				if err := reorderValue(dec, buf); err != nil {
					return err
				}
			}
			buf.WriteByte(']')
			_, err := dec.Token()
			return err
		}
		type member struct{ key, val []byte }
		var members []member
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			key, err := json.Marshal(k)
			if err != nil {
				return err
			}
			var vb bytes.Buffer
			if err := reorderValue(dec, &vb); err != nil {
				return err
			}
			members = append(members, member{key, vb.Bytes()})
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		buf.WriteByte('{')
		for i := len(members) - 1; i >= 0; i-- {
			buf.Write(members[i].key)
			buf.WriteByte(':')
			buf.Write(members[i].val)
			if i > 0 {
				buf.WriteByte(',')
			}
		}
		buf.WriteByte('}')
		return nil
	default:
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		buf.Write(b)
		return nil
	}
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
	deviceID, tag := firstKey(dq.devices), firstKey(dq.tags)
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
	if dq.end != nil && !at.Before(*dq.end) {
		at = dq.end.Add(-time.Duration(n) * time.Microsecond)
	}
	if dq.start != nil && at.Before(*dq.start) {
		at = *dq.start
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
