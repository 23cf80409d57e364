package localzdm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/httpio"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/store"
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

// preparePoint validates a published point and encodes its stored shape.
func preparePoint(i int, in DataPoint, fleetID string, now time.Time) (*point, error) {
	if strings.TrimSpace(in.Tag) == "" {
		return nil, invalidArgument("points[%d].tag is required (not blank)", i)
	}
	if utf8.RuneCountInString(in.Tag) > httpio.MaxNameLen {
		return nil, invalidArgument("points[%d].tag is longer than %d characters", i, httpio.MaxNameLen)
	}
	td, ok := store.ParseTimestamp(in.TimestampDevice)
	if !ok {
		return nil, invalidArgument("points[%d].timestamp_device must be an RFC 3339 time, not %q", i, in.TimestampDevice)
	}
	tin := now
	if in.TimestampIn != "" {
		if tin, ok = store.ParseTimestamp(in.TimestampIn); !ok {
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
	enc := encodePoint(store.Timestamp(td), store.Timestamp(tin), fleetID, in.DeviceID, in.Tag, payload)
	return &point{Sec: td.Unix(), Nsec: int64(td.Nanosecond()), DeviceID: in.DeviceID, Tag: in.Tag, Enc: enc}, nil
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
	// s.Mu stays read-locked until the points are stored: the workspace
	// cannot be deleted in between.
	s.Mu.RLock()
	defer s.Mu.RUnlock()
	err := func() error {
		w := s.Workspaces[workspaceID]
		if w == nil {
			return notFound("workspace %q not found", workspaceID)
		}
		hook = w.Webhook
		for i, in := range points {
			d := s.Devices[in.DeviceID]
			if d == nil || d.WorkspaceID != w.ID {
				return invalidArgument("points[%d].device_id: device %q not found in workspace %q", i, in.DeviceID, w.ID)
			}
			p, err := preparePoint(i, in, d.FleetID, now)
			if err != nil {
				return err
			}
			prepared[i] = p
			if hook != "" {
				var sp store.StoredPoint
				if err := json.Unmarshal(p.Enc, &sp); err != nil {
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
	s.DataMu.Lock()
	sr := s.Series[workspaceID]
	if sr == nil {
		sr = store.NewSeries()
		s.Series[workspaceID] = sr
	}
	accepted := sr.Insert(prepared)
	if accepted > 0 {
		s.Changed(store.PointBatch(workspaceID, prepared))
	}
	s.DataMu.Unlock()
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
	t, ok := store.ParseTimestamp(v)
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
		return p.Sec > sec || (p.Sec == sec && p.Nsec >= nsec)
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
				out = append(out, pts[hi-1-offset-k].Enc)
			} else {
				out = append(out, pts[lo+offset+k].Enc)
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
		if (dq.devices != nil && !dq.devices[p.DeviceID]) || (dq.tags != nil && !dq.tags[p.Tag]) {
			continue
		}
		if skipped < offset {
			skipped++
			continue
		}
		out = append(out, p.Enc)
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
		s.Mu.RLock()
		defer s.Mu.RUnlock()
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
	s.DataMu.RLock()
	var result [][]byte
	if sr := s.Series[wsID]; sr != nil {
		result = dq.page(sr.Points)
	}
	s.DataMu.RUnlock()
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
	s.Mu.Lock()
	defer s.Mu.Unlock()
	w := s.Workspaces[workspaceID]
	if w == nil {
		return notFound("workspace %q not found", workspaceID)
	}
	w.StorageEnabled = enabled
	s.Changed(w)
	return nil
}
