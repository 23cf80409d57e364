package webhook

import (
	"encoding/json"
	"fmt"
)

// Send is one job or firmware update sent to a device (single or
// fleet-wide). The service keeps only each device's current job per name
// and current FOTA; a log of Sends keeps every one, so a test can tell a
// resend from a record rewritten in place.
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

// SendsOf returns the sends among events: their c2d job and fota events.
func SendsOf(events []Event) []Send {
	var out []Send
	for _, ev := range events {
		p, ok := ev.Payload.(map[string]any)
		if ev.Direction != DirectionC2D || !ok {
			continue
		}
		at := fmt.Sprint(p["scheduled_at"])
		switch ev.Type {
		case "job":
			v, _ := json.Marshal(p["value"])
			out = append(out, Send{Kind: "job", DeviceID: ev.DeviceID, Name: fmt.Sprint(p["job"]), Value: string(v), At: at})
		case "fota":
			out = append(out, Send{Kind: "fota", DeviceID: ev.DeviceID, Name: fmt.Sprint(p["firmware_id"]),
				Value: fmt.Sprint(p["firmware_version"]), At: at})
		}
	}
	return out
}
