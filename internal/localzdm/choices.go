package localzdm

import (
	"encoding/json"
	"slices"
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

// SetChoices replaces the choices (see Choices); the zero Choices restore
// the defaults. Invalid choices are refused and change nothing.
func (s *Server) SetChoices(c Choices) error {
	if err := c.Validate(); err != nil {
		return err
	}
	s.choices.Set(c)
	return nil
}

// CurrentChoices returns the choices in effect, defaults spelled out.
func (s *Server) CurrentChoices() Choices {
	return s.choices.Get()
}

// visibleWorkspaces applies WorkspaceListLimit and HiddenWorkspaces to the
// workspace IDs of an account, in order.
func (s *Server) visibleWorkspaces(ids []string) []string {
	c := s.choices.Get()
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
	switch s.choices.Get().JobValue {
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
	switch s.choices.Get().MissingFOTA {
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
	on, at, n := s.choices.NextPublish()
	if !on {
		return
	}
	deviceID, tag := firstKey(dq.Devices), firstKey(dq.Tags)
	var newest *point
	s.st.DataMu.RLock()
	if sr := s.st.Series[wsID]; sr != nil && len(sr.Points) > 0 {
		newest = sr.Points[len(sr.Points)-1]
	}
	s.st.DataMu.RUnlock()
	s.st.Mu.RLock()
	w := s.st.Workspaces[wsID]
	if w != nil && deviceID == "" {
		if newest != nil && s.st.Devices[newest.DeviceID] != nil {
			deviceID = newest.DeviceID
		} else if len(w.Devices) > 0 {
			deviceID = w.Devices[0]
		}
	}
	s.st.Mu.RUnlock()
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
