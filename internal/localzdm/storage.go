package localzdm

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

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
type DataPoint = store.DataPoint

// Publish stores data points of devices of a workspace, as if the devices had
// sent them, and forwards them (and a "data" event each) to the workspace's
// webhook. It returns how many points were stored: a point with the
// (device_id, tag, timestamp_device) of a stored one is discarded. The batch
// is validated as a whole first: on error nothing is stored.
func (s *Server) Publish(workspaceID string, points []DataPoint) (int, error) {
	// s.st.Mu stays read-locked until the points are stored: the workspace
	// cannot be deleted in between.
	s.st.Mu.RLock()
	defer s.st.Mu.RUnlock()
	w := s.st.Workspaces[workspaceID]
	if w == nil {
		return 0, notFound("workspace %q not found", workspaceID)
	}
	return s.publishLocked(w, points, time.Now())
}

// publishLocked stores and forwards data points of devices of w (see
// Publish), ingested at now; s.st.Mu is held (for reading or writing).
func (s *Server) publishLocked(w *workspace, points []DataPoint, now time.Time) (int, error) {
	workspaceID := w.ID
	prepared := make([]*point, len(points))
	var items []webhook.DataItem
	var events []event
	hook := w.Webhook
	err := func() error {
		for i, in := range points {
			d := s.st.Devices[in.DeviceID]
			if d == nil || d.WorkspaceID != w.ID {
				return invalidArgument("points[%d].device_id: device %q not found in workspace %q", i, in.DeviceID, w.ID)
			}
			p, err := store.PreparePoint(i, in, d.FleetID, now)
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
	s.st.DataMu.Lock()
	sr := s.st.Series[workspaceID]
	if sr == nil {
		sr = store.NewSeries()
		s.st.Series[workspaceID] = sr
	}
	accepted := sr.Insert(prepared)
	if accepted > 0 {
		s.st.Changed(store.PointBatch(workspaceID, prepared))
	}
	s.st.DataMu.Unlock()
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
type dataQuery = store.Query

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
	if dq.Start, err = parseTimeParam(q, "start"); err != nil {
		return nil, err
	}
	if dq.End, err = parseTimeParam(q, "end"); err != nil {
		return nil, err
	}
	if dq.From, err = parseIntParam(q, "from", 0, -1); err != nil {
		return nil, err
	}
	if dq.Size, err = parseIntParam(q, "size", DefaultPageSize, MaxPageSize); err != nil {
		return nil, err
	}
	order, present, err := httpio.SingleQuery(q, "sort")
	if err != nil {
		return nil, err
	}
	switch {
	case !present || order == SortDescending:
		dq.Descending = true
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
		dq.Devices = make(map[string]bool, len(devices))
		for _, d := range devices {
			dq.Devices[d] = true
		}
	}
	if len(tags) > 0 {
		dq.Tags = make(map[string]bool, len(tags))
		for _, t := range tags {
			dq.Tags[t] = true
		}
	}
	return &dq, nil
}

func (c *call) getData() (any, error) {
	s := c.s
	var enabled bool
	var wsID string
	if err := func() error {
		s.st.Mu.RLock()
		defer s.st.Mu.RUnlock()
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
	s.st.DataMu.RLock()
	var result [][]byte
	if sr := s.st.Series[wsID]; sr != nil {
		result = dq.Page(sr.Points)
	}
	s.st.DataMu.RUnlock()
	return httpio.RawList{Key: "result", Items: result}, nil
}

// SetStorage enables or disables the storage service for a workspace.
func (s *Server) SetStorage(workspaceID string, enabled bool) error {
	s.st.Mu.Lock()
	defer s.st.Mu.Unlock()
	w := s.st.Workspaces[workspaceID]
	if w == nil {
		return notFound("workspace %q not found", workspaceID)
	}
	w.StorageEnabled = enabled
	s.st.Changed(w)
	return nil
}
