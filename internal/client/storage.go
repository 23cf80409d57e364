package client

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// DataQuery selects the stored data points of GetData and StreamData. Empty
// fields (and nil pointers) leave the parameter out, so the service's default
// applies.
type DataQuery struct {
	// Start is the inclusive start of the device-timestamp range (RFC 3339,
	// sent in UTC).
	Start string
	// End is the exclusive end of the device-timestamp range (RFC 3339, sent
	// in UTC).
	End string
	// From is the page index (default 0).
	From *int
	// Size is the page size (default 100, at most MaxPageSize).
	Size *int
	// Sort is SortAscending or SortDescending (the default).
	Sort string
	// Devices filters by device ID (any of them).
	Devices []string
	// Tags filters by tag (any of them).
	Tags []string
}

func (q DataQuery) values() url.Values {
	v := url.Values{}
	if q.Start != "" {
		v.Set("start", utcTime(q.Start))
	}
	if q.End != "" {
		v.Set("end", utcTime(q.End))
	}
	if q.From != nil {
		v.Set("from", strconv.Itoa(*q.From))
	}
	if q.Size != nil {
		v.Set("size", strconv.Itoa(*q.Size))
	}
	if q.Sort != "" {
		v.Set("sort", q.Sort)
	}
	for _, d := range q.Devices {
		v.Add("device", d)
	}
	for _, t := range q.Tags {
		v.Add("tag", t)
	}
	return v
}

// utcTime returns an RFC 3339 time in UTC ("Z"), the form every service
// accepts, with the same instant and precision; a string that is not RFC
// 3339 is returned unchanged (the service then names it in its 400).
func utcTime(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// GetData returns one page of stored data points of a workspace
// (GET {storage_url}/v3/timeseries/{workspace_id}/data).
func (c *Client) GetData(ctx context.Context, workspaceID string, q DataQuery) ([]DataPoint, error) {
	points := []DataPoint{}
	if q.Size != nil && *q.Size > 0 {
		// Grow from a modest start: a large page may hold few points.
		points = make([]DataPoint, 0, min(*q.Size, 1024))
	}
	_, err := c.StreamData(ctx, workspaceID, q, func(p DataPoint) error {
		points = append(points, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return points, nil
}

// StreamData is GetData calling fn with each data point, in the order of the
// answer, as it is decoded from the network: the answer (up to 175,000
// points) is never held in memory whole. It returns the number of points fn
// accepted. An error of fn stops the stream and is returned unchanged; fn may
// be nil to only count. Failures while the answer is read are not retried
// (429, 503 and connection failures before it are, as for any GET).
func (c *Client) StreamData(ctx context.Context, workspaceID string, q DataQuery, fn func(DataPoint) error) (int, error) {
	if err := requireIDs("workspace ID", workspaceID); err != nil {
		return 0, err
	}
	rq := &request{method: http.MethodGet, base: c.storage, segments: []string{"timeseries", workspaceID, "data"}, query: q.values()}
	n := 0
	_, err := c.do(ctx, rq, func(r io.Reader) error {
		var err error
		n, err = streamResult(r, fn)
		return err
	})
	return n, err
}
