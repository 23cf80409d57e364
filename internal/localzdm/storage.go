package localzdm

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/httpio"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/webhook"
)

// Storage query limits and defaults.
const (
	MaxPageSize     = 175000
	DefaultPageSize = 100
	SortAscending   = "timestamp_device"
	SortDescending  = "-timestamp_device"
)

// DataPoint is a data point published by a device (the input of Publish and
// of POST /admin/workspaces/{workspace_id}/data).
type DataPoint struct {
	// DeviceID must name a device of the workspace; the point takes the
	// device's current fleet.
	DeviceID string `json:"device_id"`
	// Tag is required (not blank).
	Tag string `json:"tag"`
	// TimestampDevice is an RFC 3339 time; it is stored in UTC.
	TimestampDevice string `json:"timestamp_device"`
	// TimestampIn is the optional ingestion time (RFC 3339); default now.
	TimestampIn string `json:"timestamp_in,omitempty"`
	// Payload is any JSON value; absent means null.
	Payload json.RawMessage `json:"payload,omitempty"`
}

// storedPoint is the storage service's shape of a data point.
type storedPoint struct {
	TimestampDevice string          `json:"timestamp_device"`
	TimestampIn     string          `json:"timestamp_in"`
	FleetID         string          `json:"fleet_id"`
	DeviceID        string          `json:"device_id"`
	Tag             string          `json:"tag"`
	Payload         json.RawMessage `json:"payload"`
}

// point is a stored data point: its sort key and its pre-encoded JSON.
type point struct {
	sec      int64
	nsec     int64
	deviceID string
	tag      string
	enc      []byte
}

type pointKey struct {
	deviceID string
	tag      string
	sec      int64
	nsec     int64
}

func (p *point) key() pointKey {
	return pointKey{deviceID: p.deviceID, tag: p.tag, sec: p.sec, nsec: p.nsec}
}

// comparePoints orders by instant, then device ID, then tag: a total order,
// since (device_id, tag, timestamp_device) is unique.
func comparePoints(a, b *point) int {
	if c := cmp.Compare(a.sec, b.sec); c != 0 {
		return c
	}
	if c := cmp.Compare(a.nsec, b.nsec); c != 0 {
		return c
	}
	if c := strings.Compare(a.deviceID, b.deviceID); c != 0 {
		return c
	}
	return strings.Compare(a.tag, b.tag)
}

// series holds the data points of one workspace, sorted by comparePoints.
type series struct {
	points []*point
	seen   map[pointKey]struct{}
}

func newSeries() *series {
	return &series{seen: map[pointKey]struct{}{}}
}

// insert adds the points not seen yet and returns how many it added.
func (sr *series) insert(batch []*point) int {
	fresh := make([]*point, 0, len(batch))
	for _, p := range batch {
		k := p.key()
		if _, dup := sr.seen[k]; dup {
			continue
		}
		sr.seen[k] = struct{}{}
		fresh = append(fresh, p)
	}
	if len(fresh) == 0 {
		return 0
	}
	slices.SortFunc(fresh, comparePoints)
	n := len(sr.points)
	if n == 0 || comparePoints(sr.points[n-1], fresh[0]) < 0 {
		sr.points = append(sr.points, fresh...)
		return len(fresh)
	}
	merged := make([]*point, 0, n+len(fresh))
	i, j := 0, 0
	for i < n && j < len(fresh) {
		if comparePoints(sr.points[i], fresh[j]) <= 0 {
			merged = append(merged, sr.points[i])
			i++
		} else {
			merged = append(merged, fresh[j])
			j++
		}
	}
	merged = append(merged, sr.points[i:]...)
	merged = append(merged, fresh[j:]...)
	sr.points = merged
	return len(fresh)
}

// parseTimestamp parses an RFC 3339 time, with or without fractional seconds.
func parseTimestamp(v string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, v)
	return t, err == nil
}

// preparePoint validates a published point and encodes its stored shape.
func preparePoint(i int, in DataPoint, fleetID string, now time.Time) (*point, error) {
	if strings.TrimSpace(in.Tag) == "" {
		return nil, invalidArgument("points[%d].tag is required (not blank)", i)
	}
	if utf8.RuneCountInString(in.Tag) > httpio.MaxNameLen {
		return nil, invalidArgument("points[%d].tag is longer than %d characters", i, httpio.MaxNameLen)
	}
	td, ok := parseTimestamp(in.TimestampDevice)
	if !ok {
		return nil, invalidArgument("points[%d].timestamp_device must be an RFC 3339 time, not %q", i, in.TimestampDevice)
	}
	tin := now
	if in.TimestampIn != "" {
		if tin, ok = parseTimestamp(in.TimestampIn); !ok {
			return nil, invalidArgument("points[%d].timestamp_in must be an RFC 3339 time, not %q", i, in.TimestampIn)
		}
	}
	payload := json.RawMessage("null")
	if t := bytes.TrimSpace(in.Payload); len(t) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, t); err != nil {
			return nil, invalidArgument("points[%d].payload is not valid JSON: %v", i, err)
		}
		payload = buf.Bytes()
	}
	td = td.UTC()
	enc := encodePoint(timestamp(td), timestamp(tin), fleetID, in.DeviceID, in.Tag, payload)
	return &point{sec: td.Unix(), nsec: int64(td.Nanosecond()), deviceID: in.DeviceID, tag: in.Tag, enc: enc}, nil
}

// encodePoint renders the stored shape of a point (as json.Marshal of
// storedPoint would, without reflection: publishing is a hot path).
func encodePoint(tsDevice, tsIn, fleetID, deviceID, tag string, payload []byte) []byte {
	buf := make([]byte, 0, 112+len(tsDevice)+len(tsIn)+len(fleetID)+len(deviceID)+len(tag)+len(payload))
	buf = append(buf, `{"timestamp_device":`...)
	buf = appendJSONString(buf, tsDevice)
	buf = append(buf, `,"timestamp_in":`...)
	buf = appendJSONString(buf, tsIn)
	buf = append(buf, `,"fleet_id":`...)
	buf = appendJSONString(buf, fleetID)
	buf = append(buf, `,"device_id":`...)
	buf = appendJSONString(buf, deviceID)
	buf = append(buf, `,"tag":`...)
	buf = appendJSONString(buf, tag)
	buf = append(buf, `,"payload":`...)
	buf = append(buf, payload...)
	return append(buf, '}')
}

// appendJSONString appends s as a JSON string.
func appendJSONString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(buf, q...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

// decodePoint rebuilds a stored point from its JSON (state file).
func decodePoint(enc json.RawMessage) (*point, error) {
	var sp storedPoint
	if err := json.Unmarshal(enc, &sp); err != nil {
		return nil, err
	}
	td, ok := parseTimestamp(sp.TimestampDevice)
	if !ok {
		return nil, invalidArgument("bad timestamp_device %q", sp.TimestampDevice)
	}
	return &point{sec: td.Unix(), nsec: int64(td.Nanosecond()), deviceID: sp.DeviceID, tag: sp.Tag, enc: enc}, nil
}

// Publish stores data points of devices of a workspace, as if the devices had
// sent them, and forwards them (and a "data" event each) to the workspace's
// webhook. It returns how many points were stored: a point with the
// (device_id, tag, timestamp_device) of a stored one is discarded. The batch
// is validated as a whole first: on error nothing is stored.
func (s *Server) Publish(workspaceID string, points []DataPoint) (int, error) {
	now := time.Now()
	prepared := make([]*point, len(points))
	var items []webhook.DataItem
	var events []event
	var hook string
	// s.mu stays read-locked until the points are stored: the workspace
	// cannot be deleted in between.
	s.mu.RLock()
	defer s.mu.RUnlock()
	err := func() error {
		w := s.workspaces[workspaceID]
		if w == nil {
			return notFound("workspace %q not found", workspaceID)
		}
		hook = w.Webhook
		for i, in := range points {
			d := s.devices[in.DeviceID]
			if d == nil || d.WorkspaceID != w.ID {
				return invalidArgument("points[%d].device_id: device %q not found in workspace %q", i, in.DeviceID, w.ID)
			}
			p, err := preparePoint(i, in, d.FleetID, now)
			if err != nil {
				return err
			}
			prepared[i] = p
			if hook != "" {
				var sp storedPoint
				if err := json.Unmarshal(p.enc, &sp); err != nil {
					return err
				}
				items = append(items, webhook.DataItem{
					ID: strconv.Itoa(i), TimestampDevice: sp.TimestampDevice, TimestampIn: sp.TimestampIn,
					WorkspaceID: w.ID, FleetID: d.FleetID, DeviceID: d.ID, DeviceName: d.Name,
					Tag: sp.Tag, Payload: sp.Payload,
				})
				ev := deviceEvent(d, "data", directionD2C, now, map[string]any{
					"tag": sp.Tag, "timestamp_device": sp.TimestampDevice,
				})
				ev.ID = strconv.Itoa(i)
				events = append(events, ev)
			}
		}
		return nil
	}()
	if err != nil {
		return 0, err
	}
	s.dataMu.Lock()
	sr := s.series[workspaceID]
	if sr == nil {
		sr = newSeries()
		s.series[workspaceID] = sr
	}
	accepted := sr.insert(prepared)
	if accepted > 0 {
		s.changed(pointBatch{workspaceID, prepared})
	}
	s.dataMu.Unlock()
	if hook != "" && len(items) > 0 {
		s.hooks.Enqueue(hook, BatchTypeData, items)
		s.hooks.Enqueue(hook, BatchTypeEvents, events)
	}
	return accepted, nil
}

func (s *Server) newStorageRouter() *router {
	return httpio.NewRouter(
		&route{Method: http.MethodGet, Pattern: "/v3/timeseries/{workspace_id}/data", Handle: (*call).getData},
	)
}

// dataQuery is a parsed storage query.
type dataQuery struct {
	start, end    *time.Time
	from, size    int
	descending    bool
	devices, tags map[string]bool
}

func parseIntParam(q map[string][]string, name string, def, maxVal int) (int, error) {
	v, present, err := httpio.SingleQuery(q, name)
	if err != nil || !present {
		return def, err
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, invalidArgument("query parameter %q must be an integer, not %q", name, v)
	}
	if n < 0 {
		return 0, invalidArgument("query parameter %q must not be negative, got %d", name, n)
	}
	if maxVal >= 0 && n > maxVal {
		return 0, invalidArgument("query parameter %q must be at most %d, got %d", name, maxVal, n)
	}
	return n, nil
}

func parseTimeParam(q map[string][]string, name string) (*time.Time, error) {
	v, present, err := httpio.SingleQuery(q, name)
	if err != nil || !present {
		return nil, err
	}
	t, ok := parseTimestamp(v)
	if !ok {
		return nil, invalidArgument("query parameter %q must be an RFC 3339 time (e.g. 2024-01-02T15:04:05Z), not %q", name, v)
	}
	return &t, nil
}

func parseDataQuery(q map[string][]string) (*dataQuery, error) {
	var dq dataQuery
	var err error
	if dq.start, err = parseTimeParam(q, "start"); err != nil {
		return nil, err
	}
	if dq.end, err = parseTimeParam(q, "end"); err != nil {
		return nil, err
	}
	if dq.from, err = parseIntParam(q, "from", 0, -1); err != nil {
		return nil, err
	}
	if dq.size, err = parseIntParam(q, "size", DefaultPageSize, MaxPageSize); err != nil {
		return nil, err
	}
	order, present, err := httpio.SingleQuery(q, "sort")
	if err != nil {
		return nil, err
	}
	switch {
	case !present || order == SortDescending:
		dq.descending = true
	case order == SortAscending:
	default:
		return nil, invalidArgument("query parameter \"sort\" must be %q or %q, not %q", SortAscending, SortDescending, order)
	}
	devices, err := httpio.RepeatedQuery(q, "device")
	if err != nil {
		return nil, err
	}
	tags, err := httpio.RepeatedQuery(q, "tag")
	if err != nil {
		return nil, err
	}
	if len(devices) > 0 {
		dq.devices = make(map[string]bool, len(devices))
		for _, d := range devices {
			dq.devices[d] = true
		}
	}
	if len(tags) > 0 {
		dq.tags = make(map[string]bool, len(tags))
		for _, t := range tags {
			dq.tags[t] = true
		}
	}
	return &dq, nil
}

// searchInstant returns the index of the first point at or after t.
func searchInstant(pts []*point, t time.Time) int {
	sec, nsec := t.Unix(), int64(t.Nanosecond())
	return sort.Search(len(pts), func(i int) bool {
		p := pts[i]
		return p.sec > sec || (p.sec == sec && p.nsec >= nsec)
	})
}

// page selects the points of the query, in order, from the sorted points.
func (dq *dataQuery) page(pts []*point) [][]byte {
	lo, hi := 0, len(pts)
	if dq.start != nil {
		lo = searchInstant(pts, *dq.start)
	}
	if dq.end != nil {
		hi = searchInstant(pts, *dq.end)
	}
	if lo >= hi || dq.size == 0 || dq.from > math.MaxInt/dq.size {
		return nil
	}
	offset := dq.from * dq.size
	if offset >= hi-lo {
		return nil
	}
	out := make([][]byte, 0, min(dq.size, hi-lo-offset))
	if dq.devices == nil && dq.tags == nil {
		n := min(dq.size, hi-lo-offset)
		for k := range n {
			if dq.descending {
				out = append(out, pts[hi-1-offset-k].enc)
			} else {
				out = append(out, pts[lo+offset+k].enc)
			}
		}
		return out
	}
	skipped := 0
	for k := range hi - lo {
		var p *point
		if dq.descending {
			p = pts[hi-1-k]
		} else {
			p = pts[lo+k]
		}
		if (dq.devices != nil && !dq.devices[p.deviceID]) || (dq.tags != nil && !dq.tags[p.tag]) {
			continue
		}
		if skipped < offset {
			skipped++
			continue
		}
		out = append(out, p.enc)
		if len(out) == dq.size {
			break
		}
	}
	return out
}

func (c *call) getData() (any, error) {
	s := c.s
	var enabled bool
	var wsID string
	if err := func() error {
		s.mu.RLock()
		defer s.mu.RUnlock()
		w, err := c.pathWorkspaceLocked()
		if err != nil {
			return err
		}
		enabled, wsID = w.StorageEnabled, w.ID
		return nil
	}(); err != nil {
		return nil, err
	}
	if !enabled {
		return nil, newError(http.StatusForbidden, CodeStorageDisabled, "the storage service is not enabled for workspace %q", wsID)
	}
	dq, err := parseDataQuery(c.r.URL.Query())
	if err != nil {
		return nil, err
	}
	s.publishBeforeRead(wsID, dq)
	s.dataMu.RLock()
	var result [][]byte
	if sr := s.series[wsID]; sr != nil {
		result = dq.page(sr.points)
	}
	s.dataMu.RUnlock()
	return rawList{key: "result", items: result}, nil
}

// rawList is a streamed `{"<key>": [...]}` body of pre-encoded items.
type rawList struct {
	key   string
	items [][]byte
}

func (l rawList) WriteJSON(w *bufio.Writer) error {
	if _, err := w.WriteString(`{"` + l.key + `":[`); err != nil {
		return err
	}
	for i, it := range l.items {
		if i > 0 {
			if err := w.WriteByte(','); err != nil {
				return err
			}
		}
		if _, err := w.Write(it); err != nil {
			return err
		}
	}
	_, err := w.WriteString("]}\n")
	return err
}

// SetStorage enables or disables the storage service for a workspace.
func (s *Server) SetStorage(workspaceID string, enabled bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.workspaces[workspaceID]
	if w == nil {
		return notFound("workspace %q not found", workspaceID)
	}
	w.StorageEnabled = enabled
	s.changed(w)
	return nil
}
