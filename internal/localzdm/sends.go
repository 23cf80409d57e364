package localzdm

import (
	"encoding/json"
	"fmt"
)

// Send is one job or firmware update the service sent to a device (single
// or fleet-wide), in the order sent. The service itself keeps only each
// device's current job per name and current FOTA; Sends keeps every one,
// so a test can tell a resend from a record rewritten in place.
type Send struct {
	// Kind is "job" or "fota".
	Kind     string `json:"kind"`
	DeviceID string `json:"device_id"`
	// Name is the job's name or the firmware ID; Value the job's value as
	// stored (JSON) or the firmware version.
	Name  string `json:"name"`
	Value string `json:"value"`
	At    string `json:"at"`
}

// Sends returns every job and firmware update sent to a device since the
// server started (not persisted; Reset keeps it).
func (s *Server) Sends() []Send {
	s.st.Mu.RLock()
	defer s.st.Mu.RUnlock()
	return append([]Send(nil), s.sends...)
}

// recordSendsLocked appends the sends among events (c2d job and fota
// events); s.st.Mu must be held.
func (s *Server) recordSendsLocked(events []event) {
	for _, ev := range events {
		p, ok := ev.Payload.(map[string]any)
		if ev.Direction != directionC2D || !ok {
			continue
		}
		at := fmt.Sprint(p["scheduled_at"])
		switch ev.Type {
		case "job":
			v, _ := json.Marshal(p["value"])
			s.sends = append(s.sends, Send{Kind: "job", DeviceID: ev.DeviceID, Name: fmt.Sprint(p["job"]), Value: string(v), At: at})
		case "fota":
			s.sends = append(s.sends, Send{Kind: "fota", DeviceID: ev.DeviceID, Name: fmt.Sprint(p["firmware_id"]),
				Value: fmt.Sprint(p["firmware_version"]), At: at})
		}
	}
}
