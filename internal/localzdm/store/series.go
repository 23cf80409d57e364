package store

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/apierr"
)

// StoredPoint is the storage service's shape of a data point.
type StoredPoint struct {
	TimestampDevice string          `json:"timestamp_device"`
	TimestampIn     string          `json:"timestamp_in"`
	FleetID         string          `json:"fleet_id"`
	DeviceID        string          `json:"device_id"`
	Tag             string          `json:"tag"`
	Payload         json.RawMessage `json:"payload"`
}

// Point is a stored data point: its sort key and its pre-encoded JSON.
type Point struct {
	Sec      int64
	Nsec     int64
	DeviceID string
	Tag      string
	Enc      []byte
}

type pointKey struct {
	deviceID string
	tag      string
	sec      int64
	nsec     int64
}

func (p *Point) key() pointKey {
	return pointKey{deviceID: p.DeviceID, tag: p.Tag, sec: p.Sec, nsec: p.Nsec}
}

// comparePoints orders by instant, then device ID, then tag: a total order,
// since (device_id, tag, timestamp_device) is unique.
func comparePoints(a, b *Point) int {
	if c := cmp.Compare(a.Sec, b.Sec); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Nsec, b.Nsec); c != 0 {
		return c
	}
	if c := strings.Compare(a.DeviceID, b.DeviceID); c != 0 {
		return c
	}
	return strings.Compare(a.Tag, b.Tag)
}

// Series holds the data points of one workspace, sorted by comparePoints.
type Series struct {
	Points []*Point
	seen   map[pointKey]struct{}
}

// NewSeries returns an empty series.
func NewSeries() *Series {
	return &Series{seen: map[pointKey]struct{}{}}
}

// Insert adds the points not seen yet and returns how many it added.
func (sr *Series) Insert(batch []*Point) int {
	fresh := make([]*Point, 0, len(batch))
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
	n := len(sr.Points)
	if n == 0 || comparePoints(sr.Points[n-1], fresh[0]) < 0 {
		sr.Points = append(sr.Points, fresh...)
		return len(fresh)
	}
	merged := make([]*Point, 0, n+len(fresh))
	i, j := 0, 0
	for i < n && j < len(fresh) {
		if comparePoints(sr.Points[i], fresh[j]) <= 0 {
			merged = append(merged, sr.Points[i])
			i++
		} else {
			merged = append(merged, fresh[j])
			j++
		}
	}
	merged = append(merged, sr.Points[i:]...)
	merged = append(merged, fresh[j:]...)
	sr.Points = merged
	return len(fresh)
}

// ParseTimestamp parses an RFC 3339 time, with or without fractional seconds.
func ParseTimestamp(v string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, v)
	return t, err == nil
}

// decodePoint rebuilds a stored point from its JSON (state file).
func decodePoint(enc json.RawMessage) (*Point, error) {
	var sp StoredPoint
	if err := json.Unmarshal(enc, &sp); err != nil {
		return nil, err
	}
	td, ok := ParseTimestamp(sp.TimestampDevice)
	if !ok {
		return nil, apierr.InvalidArgument("bad timestamp_device %q", sp.TimestampDevice)
	}
	return &Point{Sec: td.Unix(), Nsec: int64(td.Nanosecond()), DeviceID: sp.DeviceID, Tag: sp.Tag, Enc: enc}, nil
}

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

// CheckTag checks the tag of a data point, named what in the message: not
// blank and at most maxNameLen characters.
func CheckTag(what, tag string) error {
	if strings.TrimSpace(tag) == "" {
		return apierr.InvalidArgument("%s is required (not blank)", what)
	}
	if utf8.RuneCountInString(tag) > maxNameLen {
		return apierr.InvalidArgument("%s is longer than %d characters", what, maxNameLen)
	}
	return nil
}

// PreparePoint validates a published point and encodes its stored shape.
func PreparePoint(i int, in DataPoint, fleetID string, now time.Time) (*Point, error) {
	if err := CheckTag(fmt.Sprintf("points[%d].tag", i), in.Tag); err != nil {
		return nil, err
	}
	td, ok := ParseTimestamp(in.TimestampDevice)
	if !ok {
		return nil, apierr.InvalidArgument("points[%d].timestamp_device must be an RFC 3339 time, not %q", i, in.TimestampDevice)
	}
	tin := now
	if in.TimestampIn != "" {
		if tin, ok = ParseTimestamp(in.TimestampIn); !ok {
			return nil, apierr.InvalidArgument("points[%d].timestamp_in must be an RFC 3339 time, not %q", i, in.TimestampIn)
		}
	}
	payload := json.RawMessage("null")
	if t := bytes.TrimSpace(in.Payload); len(t) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, t); err != nil {
			return nil, apierr.InvalidArgument("points[%d].payload is not valid JSON: %v", i, err)
		}
		payload = buf.Bytes()
	}
	td = td.UTC()
	enc := encodePoint(Timestamp(td), Timestamp(tin), fleetID, in.DeviceID, in.Tag, payload)
	return &Point{Sec: td.Unix(), Nsec: int64(td.Nanosecond()), DeviceID: in.DeviceID, Tag: in.Tag, Enc: enc}, nil
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

// Query is a storage query: a time range, a page and filters.
type Query struct {
	Start, End    *time.Time
	From, Size    int
	Descending    bool
	Devices, Tags map[string]bool
}

// searchInstant returns the index of the first point at or after t.
func searchInstant(pts []*Point, t time.Time) int {
	sec, nsec := t.Unix(), int64(t.Nanosecond())
	return sort.Search(len(pts), func(i int) bool {
		p := pts[i]
		return p.Sec > sec || (p.Sec == sec && p.Nsec >= nsec)
	})
}

// Page selects the points of the query, in order, from the sorted points.
func (dq *Query) Page(pts []*Point) [][]byte {
	lo, hi := 0, len(pts)
	if dq.Start != nil {
		lo = searchInstant(pts, *dq.Start)
	}
	if dq.End != nil {
		hi = searchInstant(pts, *dq.End)
	}
	if lo >= hi || dq.Size == 0 || dq.From > math.MaxInt/dq.Size {
		return nil
	}
	offset := dq.From * dq.Size
	if offset >= hi-lo {
		return nil
	}
	out := make([][]byte, 0, min(dq.Size, hi-lo-offset))
	if dq.Devices == nil && dq.Tags == nil {
		n := min(dq.Size, hi-lo-offset)
		for k := range n {
			if dq.Descending {
				out = append(out, pts[hi-1-offset-k].Enc)
			} else {
				out = append(out, pts[lo+offset+k].Enc)
			}
		}
		return out
	}
	skipped := 0
	for k := range hi - lo {
		var p *Point
		if dq.Descending {
			p = pts[hi-1-k]
		} else {
			p = pts[lo+k]
		}
		if (dq.Devices != nil && !dq.Devices[p.DeviceID]) || (dq.Tags != nil && !dq.Tags[p.Tag]) {
			continue
		}
		if skipped < offset {
			skipped++
			continue
		}
		out = append(out, p.Enc)
		if len(out) == dq.Size {
			break
		}
	}
	return out
}
