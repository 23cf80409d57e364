package client

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeError checks that any error answer gives a bounded, clean,
// key-free APIError. Seeds are in testdata/fuzz/FuzzDecodeError.
func FuzzDecodeError(f *testing.F) {
	f.Add(404, "application/json", []byte(`{"error":{"code":"not_found","message":"workspace \"wks-1\" not found"}}`))
	f.Add(502, "text/html", []byte("<html><title>502</title><script>x</script></html>"))
	f.Add(400, "", []byte(`{"detail":[{"msg":"`+testKey+`"}]}`))
	scrub := keyScrubber(testKey)
	f.Fuzz(func(t *testing.T, status int, contentType string, body []byte) {
		e := newAPIError(status, "GET", "/v3/x", contentType, body, scrub)
		msg := e.Error()
		if !strings.HasPrefix(msg, "GET /v3/x: ") {
			t.Fatalf("message does not name the request: %q", msg)
		}
		if strings.Contains(msg, testKey) {
			t.Fatalf("the key leaked into %q", msg)
		}
		for _, s := range []string{e.Code, e.Message, e.Body} {
			if len(s) > maxExcerpt || !utf8.ValidString(s) {
				t.Fatalf("field of %d bytes or invalid UTF-8: %q", len(s), s)
			}
			for _, r := range s {
				if r < 0x20 || r == 0x7f {
					t.Fatalf("control character %U in %q", r, s)
				}
			}
		}
	})
}

// FuzzDecodeEnvelope checks that decoding any 2xx answer never panics and
// only succeeds on valid JSON, and that the device list's scanner reads it
// as encoding/json does. Seeds are in testdata/fuzz/FuzzDecodeEnvelope.
func FuzzDecodeEnvelope(f *testing.F) {
	f.Add([]byte(`{"workspace":{"id":"w"},"devices":[{"id":"d","identities":null}],"result":[{"tag":"t","payload":{"a":1}}]}`))
	f.Add([]byte(`{"devices":[{"ID":"\ud83d\ude00\ud83d","Name":null,"identities":[{"a":-1.5e3}]},null],"devices":1}`))
	f.Add([]byte("{\"x\":[true,false,{}],\"devices\":[{\"id\":\"\xff\",\"fleet_name\":\"\\u00e9\"}]}"))
	f.Add([]byte(`{"result":null}`))
	f.Add([]byte(`{"result":[1]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var w *Workspace
		if err := decodeEnvelope(data, "workspace", &w); err == nil && !json.Valid(data) {
			t.Fatalf("object envelope accepted invalid JSON %q", data)
		}
		var devices []Device
		wholeErr := decodeEnvelope(data, "devices", &devices)
		if wholeErr == nil && !json.Valid(data) {
			t.Fatalf("list envelope accepted invalid JSON %q", data)
		}
		// Decoding the list one element at a time accepts what decoding
		// it whole accepts, with the same devices.
		listed, err := decodeEnvelopeList[Device](data, "devices", nil)
		if (err == nil) != (wholeErr == nil) {
			t.Fatalf("element by element: error %v; whole: error %v; for %q", err, wholeErr, data)
		}
		if err == nil && (len(listed) != len(devices) || len(devices) > 0 && !reflect.DeepEqual(listed, devices)) {
			t.Fatalf("element by element: %+v; whole: %+v", listed, devices)
		}
		// The device list's scanner reads it as encoding/json does.
		checkDeviceListAsJSON(t, data)
		checkDeviceAnswerAsJSON(t, data)
		calls := 0
		n, err := streamResult(bytes.NewReader(data), func(DataPoint) error {
			calls++
			return nil
		})
		if n != calls {
			t.Fatalf("streamResult counted %d points, the callback saw %d", n, calls)
		}
		if err != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("stream accepted invalid JSON %q", data)
		}
		var whole struct {
			Result []json.RawMessage `json:"result"`
		}
		if json.Unmarshal(data, &whole) == nil && len(whole.Result) != n && bytes.Count(bytes.ToLower(data), []byte(`"result"`)) == 1 {
			t.Fatalf("stream decoded %d points, json.Unmarshal %d, from %q", n, len(whole.Result), data)
		}
	})
}
