package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// TestListDevicesSharesRepeatedFields checks that the devices of one fleet
// in a list share one Place (account, workspace and fleet), with its
// values, and that devices of another fleet have their own.
func TestListDevicesSharesRepeatedFields(t *testing.T) {
	t.Parallel()
	body := `{"devices":[` +
		`{"id":"dev-1","name":"a","account_id":"acc","fleet_id":"flt-1","fleet_name":"east","workspace_id":"wks-1","workspace_name":"prod"},` +
		`{"id":"dev-2","name":"b","account_id":"acc","fleet_id":"flt-1","fleet_name":"east","workspace_id":"wks-1","workspace_name":"prod"},` +
		`{"id":"dev-3","name":"c","account_id":"acc","fleet_id":"flt-2","fleet_name":"west","workspace_id":"wks-1","workspace_name":"prod"}]}`
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}), nil)
	devices, err := c.ListDevices(t.Context(), "wks-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(devices) != 3 || devices[1].Name != "b" {
		t.Fatalf("devices = %+v", devices)
	}
	a, b, other := &devices[0], &devices[1], &devices[2]
	if a.Place == nil || a.Place != b.Place {
		t.Errorf("the two devices of fleet flt-1 have places %p and %p, want one shared", a.Place, b.Place)
	}
	want := Place{AccountID: "acc", WorkspaceID: "wks-1", WorkspaceName: "prod", FleetID: "flt-1", FleetName: "east"}
	if *a.Place != want || a.AccountID() != "acc" || a.WorkspaceID() != "wks-1" || a.WorkspaceName() != "prod" ||
		a.FleetID() != "flt-1" || a.FleetName() != "east" {
		t.Errorf("place of dev-1 = %+v, want %+v", *a.Place, want)
	}
	// Positive control: another fleet is another place.
	if other.Place == a.Place || other.FleetID() != "flt-2" || other.FleetName() != "west" || other.WorkspaceID() != "wks-1" {
		t.Errorf("dev-3 of fleet flt-2 has place %+v (shared with flt-1: %v)", *other.Place, other.Place == a.Place)
	}
	// A device without a place reads as nowhere, and a device read alone
	// has a place of its own with its values.
	var none Device
	if none.FleetID() != "" || none.WorkspaceID() != "" {
		t.Error("a device without a place has a fleet or a workspace")
	}
	var one Device
	if err := json.Unmarshal([]byte(`{"id":"dev-9","fleet_id":"flt-9","identities":null}`), &one); err != nil ||
		one.FleetID() != "flt-9" || one.Identities != nil {
		t.Errorf("device read alone = %+v, %v; want fleet flt-9 and no identities", one, err)
	}
}

// TestDecodeEnvelopeListAllocatesLessThanWholeDecoding checks that a
// large list decoded one element at a time allocates well under what
// decoding the array as one value does (which copies the whole array into
// the decoder's buffer and grows the slice by doubling), with the same
// devices. Both are measured here, on the same body.
func TestDecodeEnvelopeListAllocatesLessThanWholeDecoding(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"devices":[`)
	const n = 20000
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"dev-%07d","name":"device-%d","account_id":"acc","fleet_id":"flt-1","fleet_name":"east",`+
			`"workspace_id":"wks-1","workspace_name":"prod","created_at":"2026-01-01T00:00:00Z","phys_id":"","identities":null}`, i, i)
	}
	b.WriteString(`]}`)
	body := []byte(b.String())
	allocated := func(decode func() int) uint64 {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if got := decode(); got != n {
			t.Fatalf("decoded %d devices, want %d", got, n)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	var whole, listed []Device
	wholeBytes := allocated(func() int {
		if err := decodeEnvelope(body, "devices", &whole); err != nil {
			t.Fatal(err)
		}
		return len(whole)
	})
	listedBytes := allocated(func() int {
		var err error
		if listed, err = decodeEnvelopeList[Device](body, "devices", nil); err != nil {
			t.Fatal(err)
		}
		return len(listed)
	})
	t.Logf("body %d bytes; decoded whole: %d bytes allocated; element by element: %d bytes", len(body), wholeBytes, listedBytes)
	if !reflect.DeepEqual(whole, listed) {
		t.Fatal("the two decodings give different devices")
	}
	if float64(listedBytes) > 0.8*float64(wholeBytes) {
		t.Errorf("element by element allocates %d bytes, want under 80%% of the %d of decoding whole", listedBytes, wholeBytes)
	}
}

// decodeEnvelopeList decodes the list member of a whole answer in data as
// the client decodes an answer as it arrives (decodeListFrom).
func decodeEnvelopeList[T any](data []byte, member string, each func(*T)) ([]T, error) {
	out, err := decodeListFrom(bytes.NewReader(data), int64(len(data)), member, func(x *T) T {
		if each != nil {
			each(x)
		}
		return *x
	})
	return out, notJSON(err, data)
}
