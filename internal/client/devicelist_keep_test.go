package client

import (
	"bytes"
	"testing"
)

// A list read keeping some fleets holds exactly their devices, as the whole
// list has them; the whole list (the positive control) holds the others.
func TestDecodeDeviceListKeepsOnlyTheFleetsAsked(t *testing.T) {
	data := deviceListAnswer(20000) // fleets flt-0 to flt-9, 2,000 devices each
	whole, err := decodeDeviceList(bytes.NewReader(data), int64(len(data)), ownPlace)
	if err != nil || len(whole) != 20000 {
		t.Fatalf("whole list: %d devices, %v", len(whole), err)
	}
	keep := map[string]bool{"flt-3": true, "flt-7": true}
	got, err := decodeDeviceListKeeping(bytes.NewReader(data), int64(len(data)),
		func(w *deviceJSON) bool { return keep[w.FleetID] }, ownPlace)
	if err != nil {
		t.Fatal(err)
	}
	var want []Device
	others := 0
	for _, d := range whole {
		if keep[d.FleetID()] {
			want = append(want, d)
		} else {
			others++
		}
	}
	if len(want) != 4000 || others != 16000 {
		t.Fatalf("the whole list has %d devices of the fleets kept and %d others, want 4000 and 16000", len(want), others)
	}
	if len(got) != len(want) {
		t.Fatalf("kept %d devices, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Name != want[i].Name || got[i].FleetID() != want[i].FleetID() ||
			string(got[i].Identities) != string(want[i].Identities) {
			t.Fatalf("device %d is %+v, want %+v", i, got[i], want[i])
		}
	}
	// A list that keeps no fleet still reads the answer whole: a broken
	// answer is an error, not an empty list.
	if _, err := decodeDeviceListKeeping(bytes.NewReader(data[:len(data)-10]), -1,
		func(*deviceJSON) bool { return false }, ownPlace); err == nil {
		t.Error("a cut answer read keeping nothing decoded without error")
	}
}
