package client

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"
)

// checkDeviceListAsJSON decodes data with decodeDeviceList (whole, and one
// byte per read, so that every value crosses the buffer's end) and with
// encoding/json, and fails unless both accept it with the same devices or
// both refuse it. It returns whether they accepted it.
func checkDeviceListAsJSON(t *testing.T, data []byte) bool {
	t.Helper()
	want, wantErr := decodeEnvelopeList[Device](data, "devices", nil)
	for _, r := range []struct {
		name string
		r    io.Reader
	}{
		{"whole", bytes.NewReader(data)},
		{"one byte a read", iotest.OneByteReader(bytes.NewReader(data))},
	} {
		got, err := decodeDeviceList(r.r, int64(len(data)), ownPlace)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("%s: scanner error %v, encoding/json error %v, for %q", r.name, err, wantErr, data)
		}
		if err == nil && (len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want)) {
			t.Fatalf("%s: scanner %+v, encoding/json %+v, for %q", r.name, got, want, data)
		}
	}
	return wantErr == nil
}

// checkDeviceAnswerAsJSON decodes data as the answer about one device with
// decodeDeviceAnswer and with encoding/json, and fails unless both accept
// it with the same device (or none, for null) or both refuse it. It
// returns whether they accepted it.
func checkDeviceAnswerAsJSON(t *testing.T, data []byte) bool {
	t.Helper()
	var want *Device
	wantErr := decodeEnvelope(data, "device", &want)
	got, err := decodeDeviceAnswer(data)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("scanner error %v, encoding/json error %v, for %q", err, wantErr, data)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("scanner %+v, encoding/json %+v, for %q", got, want, data)
	}
	return wantErr == nil
}

// The answer about one device (a create's, an update's, a read's) reads as
// encoding/json reads it, with the same rules as the list.
func TestDecodeDeviceAnswerReadsAsEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"device":{"id":"d","name":"n\u00e9","Fleet_Name":"f","identities":[{"a":1}],"x":[null]}}`,
		`{"device":null}`, `{"device":{}}`, `{"other":1,"device":{"id":"a"},"device":{"id":"b"}}`,
		"{\"device\":{\"id\":\"\xff\",\"id\":null}}",
	} {
		if !checkDeviceAnswerAsJSON(t, []byte(in)) {
			t.Errorf("refused %q", in)
		}
	}
	for _, in := range []string{
		``, `{}`, `{"devices":{}}`, `{"device":[]}`, `{"device":"d"}`, `{"device":{"id":2}}`, `{"device":{},}`,
		`{"device":{}} x`, `{"device":{"id":"d"}`, `{"device":{"identities":[}}`,
	} {
		if checkDeviceAnswerAsJSON(t, []byte(in)) {
			t.Errorf("accepted %q", in)
		}
	}
	full := `{"device":{"id":"d","name":"\ud83d\ude00","identities":{"k":[1.5,true]}},"after":null}`
	for i := range len(full) {
		if checkDeviceAnswerAsJSON(t, []byte(full[:i])) {
			t.Errorf("accepted the first %d bytes %q", i, full[:i])
		}
	}
}

// The device's texts are its own: the answer's bytes go back to a pool of
// buffers and are written over.
func TestDecodeDeviceAnswerKeepsNoBytesOfTheAnswer(t *testing.T) {
	data := []byte(`{"device":{"id":"dev-1","name":"n","fleet_id":"f","created_at":"c","phys_id":"p","identities":[1]}}`)
	d, err := decodeDeviceAnswer(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 'x'
	}
	if d.ID != "dev-1" || d.Name != "n" || d.FleetID() != "f" || d.CreatedAt != "c" || d.PhysID != "p" || string(d.Identities) != "[1]" {
		t.Fatalf("the device changed with the answer's bytes: %+v, place %+v", d, d.Place)
	}
}

// The scanner reads what encoding/json reads, as encoding/json does: keys
// under case folding, the last of a repeated key, null fields and devices,
// escapes, surrogates, bytes that are not UTF-8, members and fields it does
// not know, white space anywhere.
func TestDecodeDeviceListReadsAsEncodingJSON(t *testing.T) {
	accepted := []string{
		`{"devices":[]}`,
		`{"devices":null}`,
		` { "devices" : [ { "id" : "d1" , "name" : "n" } , null , { } ] } ` + "\n\t\r",
		`{"devices":[{"id":"d1","ID":"d2","Id":null,"NAME":"x","Fleet_ID":"f"}]}`,
		`{"devices":[{"id":"a\"b\\c\/d\b\f\n\r\t\u00e9\u20ac\ud83d\ude00"}]}`,
		`{"devices":[{"id":"\ud83d","name":"\ude00x","phys_id":"\ud83d\u0041","created_at":"\ud83dabc"}]}`,
		"{\"devices\":[{\"id\":\"\xff\xfe\",\"name\":\"\xe2\x82\",\"phys_id\":\"é€😀\"}]}",
		`{"devices":[{"identities":[{"a":[1,-2.5e+3,true,false,null,{"b":"c"}]}]," identities":1}]}`,
		`{"devices":[{"identities":null},{"identities":"x"},{"identities":{ "k" : [ ] }},{"IDENTITIES":0.5E-7}]}`,
		`{"before":{"x":[1,{"y":null}]},"devices":[{"id":"d","extra":{"deep":[[[]]]},"n":-0}],"after":"s","devices":"ignored"}`,
		`{"workspace_id":"w","devices":[{"account_id":"a","workspace_id":"w","workspace_name":"wn","fleet_id":"f","fleet_name":"fn"}]}`,
		`{"devices":[{"\u0069d":"escaped key","ſ":"no field"}]}`,
		`{"devices":[{"id":"` + strings.Repeat("long ", 20000) + `"}]}`,
	}
	for _, in := range accepted {
		if !checkDeviceListAsJSON(t, []byte(in)) {
			t.Errorf("refused %q", in)
		}
	}
	refused := []string{
		``, `   `, `[]`, `null`, `"devices"`, `{}`, `{"other":[]}`,
		`{"devices":[]} {}`, `{"devices":[]}x`, `{"devices":{}}`, `{"devices":"x"}`, `{"devices":1}`,
		`{"devices":[1]}`, `{"devices":["d"]}`, `{"devices":[[]]}`, `{"devices":[true]}`,
		`{"devices":[{"id":1}]}`, `{"devices":[{"name":true}]}`, `{"devices":[{"id":{}}]}`, `{"devices":[{"fleet_id":[]}]}`,
		`{"devices":[],}`, `{"devices":[{},]}`, `{"devices":[{"id":"d",}]}`, `{,"devices":[]}`, `{"devices":[,{}]}`,
		`{"devices":[{"id" "d"}]}`, `{"devices":[{"id":"d" "name":"n"}]}`, `{"devices":[{} {}]}`, `{"devices" []}`,
		`{"devices":[{"id":"a\x"}]}`, `{"devices":[{"id":"\u12"}]}`, `{"devices":[{"id":"\u12g4"}]}`,
		"{\"devices\":[{\"id\":\"a\nb\"}]}", "{\"devices\":[{\"id\":\"\x00\"}]}",
		`{"devices":[{"identities":01}]}`, `{"devices":[{"identities":1.}]}`, `{"devices":[{"identities":.5}]}`,
		`{"devices":[{"identities":1e}]}`, `{"devices":[{"identities":-}]}`, `{"devices":[{"identities":+1}]}`,
		`{"devices":[{"identities":tru}]}`, `{"devices":[{"identities":nul}]}`, `{"devices":[{"identities":[1,]}]}`,
		`{"devices":[{"identities":{"a"}}]}`, `{"devices":[{"identities":{"a":}}]}`, `{"devices":[{"identities":{1:2}}]}`,
		`{"devices":[{"identities":[}]}`, `{"x":[1 2],"devices":[]}`, `{"x":{"a":1,},"devices":[]}`,
	}
	for _, in := range refused {
		if checkDeviceListAsJSON(t, []byte(in)) {
			t.Errorf("accepted %q", in)
		}
	}
}

// Every proper prefix of a valid answer is refused, wherever it ends.
func TestDecodeDeviceListRefusesEveryCutAnswer(t *testing.T) {
	full := `{"before":[1,-2.5e3,{"k":"v"}],"devices":[{"id":"d\u00e91","name":"é","identities":[{"a":null}]},null],"after":true}`
	if !checkDeviceListAsJSON(t, []byte(full)) {
		t.Fatal("the whole answer was refused")
	}
	for i := range len(full) {
		if checkDeviceListAsJSON(t, []byte(full[:i])) {
			t.Errorf("accepted the first %d bytes %q", i, full[:i])
		}
	}
}

// deviceListAnswer is the list of n devices in 10 fleets, as the service
// writes it.
func deviceListAnswer(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"devices":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"dev-%08d","name":"sensor-%d","account_id":"acc-1","fleet_id":"flt-%d","fleet_name":"fleet %d",`+
			`"workspace_id":"wks-1","workspace_name":"plant","created_at":"2026-11-26T10:%02d:%02dZ","phys_id":"phys-%d","identities":%s}`,
			i, i, i%10, i%10, i/60%60, i%60, i, map[bool]string{true: `[{"type":"serial","value":"s"}]`, false: "null"}[i%3 == 0])
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// A list many times the scanner's buffer reads as encoding/json reads it,
// and the devices of one fleet share the texts of their place.
func TestDecodeDeviceListReadsALongList(t *testing.T) {
	data := deviceListAnswer(20000)
	if len(data) < 20*scanBufferSize {
		t.Fatalf("the answer is %d bytes, want many buffers", len(data))
	}
	checkDeviceListAsJSON(t, data)
	got, err := decodeDeviceList(bytes.NewReader(data), int64(len(data)), ownPlace)
	if err != nil || len(got) != 20000 {
		t.Fatalf("decodeDeviceList: %d devices, %v", len(got), err)
	}
	if a, b := got[0].Place.FleetName, got[10].Place.FleetName; a != b || a == "" || !sameString(a, b) {
		t.Errorf("the fleet names of two devices of one fleet are two copies (%q, %q)", a, b)
	}
	if a, b := got[0].Place.FleetName, got[1].Place.FleetName; a == b {
		t.Errorf("devices of two fleets have the fleet name %q", a)
	}
}

// sameString reports whether a and b are one copy of their text.
func sameString(a, b string) bool {
	return a == b && unsafe.StringData(a) == unsafe.StringData(b) //nolint:gosec // G103: compares two pointers, reads nothing through them.
}

// An answer that breaks off while it is read gives the read's error, for
// the retry rules to see.
func TestDecodeDeviceListReturnsTheReadError(t *testing.T) {
	data := deviceListAnswer(1000)
	broken := errors.New("connection reset")
	r := io.MultiReader(bytes.NewReader(data[:len(data)/2]), iotest.ErrReader(broken))
	if _, err := decodeDeviceList(r, int64(len(data)), ownPlace); !errors.Is(err, broken) {
		t.Fatalf("err = %v, want the read error", err)
	}
	// The positive control: the whole answer reads.
	if got, err := decodeDeviceList(bytes.NewReader(data), int64(len(data)), ownPlace); err != nil || len(got) != 1000 {
		t.Fatalf("the whole answer: %d devices, %v", len(got), err)
	}
}

// BenchmarkDecodeDeviceList decodes the list of 100,000 devices with
// encoding/json (element by element, as the other lists are) and with the
// scanner, from memory.
func BenchmarkDecodeDeviceList(b *testing.B) {
	data := deviceListAnswer(100000)
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			ps := places{}
			if _, err := decodeListFrom(bytes.NewReader(data), int64(len(data)), "devices", func(w *deviceJSON) Device {
				p := w.place()
				return w.device(ps.share(&p))
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("scanner", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			ps := places{}
			if _, err := decodeDeviceList(bytes.NewReader(data), int64(len(data)), func(w *deviceJSON) Device {
				p := w.place()
				return w.device(ps.share(&p))
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// emptyReader answers every read with nothing and no error.
type emptyReader struct{ reads int }

func (r *emptyReader) Read([]byte) (int, error) {
	r.reads++
	return 0, nil
}

// A reader that gives nothing, without an error, ends the decoding with
// io.ErrNoProgress rather than spinning.
func TestDecodeDeviceListStopsOnAReaderThatGivesNothing(t *testing.T) {
	r := &emptyReader{}
	_, err := decodeDeviceList(io.MultiReader(strings.NewReader(`{"devices":[`), r), -1, ownPlace)
	if !errors.Is(err, io.ErrNoProgress) || r.reads == 0 {
		t.Fatalf("err = %v after %d empty reads, want io.ErrNoProgress", err, r.reads)
	}
}
