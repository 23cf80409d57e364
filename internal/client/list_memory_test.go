package client

import (
	"bytes"
	"fmt"
	"net/http"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// TestListDevicesSharesRepeatedFields checks that the devices of a list
// share one copy of the fields they repeat (account, workspace, fleet), and
// keep their values.
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
	if len(devices) != 3 || devices[2].FleetID != "flt-2" || devices[2].FleetName != "west" || devices[1].Name != "b" {
		t.Fatalf("devices = %+v", devices)
	}
	same := func(a, b string) bool {
		return unsafe.StringData(a) == unsafe.StringData(b) //nolint:gosec // G103: compares where two strings' bytes are, no access.
	}
	a, b, other := devices[0], devices[1], devices[2]
	for field, pair := range map[string][2]string{
		"account_id":     {a.AccountID, b.AccountID},
		"workspace_id":   {a.WorkspaceID, other.WorkspaceID},
		"workspace_name": {a.WorkspaceName, other.WorkspaceName},
		"fleet_id":       {a.FleetID, b.FleetID},
		"fleet_name":     {a.FleetName, b.FleetName},
	} {
		if !same(pair[0], pair[1]) {
			t.Errorf("%s: two devices hold separate copies of %q", field, pair[0])
		}
	}
	// Positive control: different values stay apart, and unique fields are
	// the decoder's own.
	if same(a.FleetID, other.FleetID) || same(a.Name, b.Name) {
		t.Error("distinct values share memory")
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
	out, err := decodeListFrom(bytes.NewReader(data), int64(len(data)), member, each)
	return out, notJSON(err, data)
}
