package store

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"

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
