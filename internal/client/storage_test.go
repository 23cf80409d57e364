package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writePoints writes a storage answer of n points whose tag is their index.
func writePoints(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(`{"took":3,"result":[`); err != nil {
		return err
	}
	for i := range n {
		if i > 0 {
			_ = bw.WriteByte(',')
		}
		_, err := fmt.Fprintf(bw, `{"timestamp_device":"2026-01-01T00:00:%02d.%06dZ","timestamp_in":"2026-01-01T00:00:01Z","fleet_id":"flt-1","device_id":"dev-%d","tag":"%d","payload":{"seq":%d,"v":[1,2,{"x":"y"}]},"unknown":null}`,
			i%60, i, i%7, i, i)
		if err != nil {
			return err
		}
	}
	if _, err := bw.WriteString(`],"total":12345}`); err != nil {
		return err
	}
	return bw.Flush()
}

func TestStreamDataLargeAnswerInOrder(t *testing.T) {
	const n = 50_000
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		size, err := strconv.Atoi(r.URL.Query().Get("size"))
		if err != nil {
			size = n
		}
		_ = writePoints(w, size)
	}), nil)
	next := 0
	got, err := c.StreamData(t.Context(), "wks-1", DataQuery{}, func(p DataPoint) error {
		seq := strconv.Itoa(next)
		if p.Tag != seq || p.DeviceID != "dev-"+strconv.Itoa(next%7) || string(p.Payload) != `{"seq":`+seq+`,"v":[1,2,{"x":"y"}]}` {
			return fmt.Errorf("point %d out of order or garbled: %+v", next, p)
		}
		next++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got != n || next != n {
		t.Fatalf("StreamData = %d points (callback saw %d), want %d", got, next, n)
	}

	size := 5000
	points, err := c.GetData(t.Context(), "wks-1", DataQuery{Size: &size})
	if err != nil || len(points) != size {
		t.Fatalf("GetData = %d points, %v", len(points), err)
	}
	// Payloads must not share memory: each point keeps its own.
	for i, p := range points {
		if want := fmt.Sprintf(`{"seq":%d,`, i); !strings.HasPrefix(string(p.Payload), want) {
			t.Fatalf("point %d payload = %s", i, p.Payload)
		}
	}
}

// TestStreamDataIsIncremental proves that points reach the callback while
// the server is still sending: the server waits for the first point to be
// seen before it sends the rest.
func TestStreamDataIsIncremental(t *testing.T) {
	seen := make(chan struct{})
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"result":[{"tag":"first","payload":1}`)
		flush(w)
		select {
		case <-seen:
		case <-time.After(5 * time.Second):
			return // the client buffered: the test fails on the count
		}
		_, _ = io.WriteString(w, `,{"tag":"second","payload":2}]}`)
	}), nil)
	var tags []string
	n, err := c.StreamData(t.Context(), "w", DataQuery{}, func(p DataPoint) error {
		if len(tags) == 0 {
			close(seen)
		}
		tags = append(tags, p.Tag)
		return nil
	})
	if err != nil || n != 2 || strings.Join(tags, ",") != "first,second" {
		t.Fatalf("n = %d, tags = %v, err = %v", n, tags, err)
	}
}

func TestStreamDataCallbackError(t *testing.T) {
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_ = writePoints(w, 1000)
	}), nil)
	stop := errors.New("enough")
	n, err := c.StreamData(t.Context(), "w", DataQuery{}, func(p DataPoint) error {
		if p.Tag == "10" {
			return stop
		}
		return nil
	})
	if err != stop || n != 10 {
		t.Fatalf("n = %d, err = %v; want 10 and the callback's error unchanged", n, err)
	}
	n, err = c.StreamData(t.Context(), "w", DataQuery{}, nil)
	if err != nil || n != 1000 {
		t.Fatalf("nil callback: n = %d, err = %v", n, err)
	}
}

func TestStreamDataBadAnswers(t *testing.T) {
	tests := map[string]string{
		"truncated":        `{"result":[{"tag":"a"},{"tag":`,
		"not an array":     `{"result":{"tag":"a"}}`,
		"bad element":      `{"result":[{"tag":"a"},42]}`,
		"missing result":   `{"results":[]}`,
		"trailing garbage": `{"result":[]} {"x":1}`,
		"html":             `<html>proxy login</html>`,
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			var n2 int
			c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				n2++
				_, _ = io.WriteString(w, body)
			}), nil)
			_, err := c.StreamData(t.Context(), "w", DataQuery{}, nil)
			if err == nil || !strings.HasPrefix(err.Error(), "GET /v3/timeseries/w/data: decoding the answer: ") {
				t.Fatalf("err = %v", err)
			}
			if n2 != 1 {
				t.Fatalf("a decoding error was retried (%d requests)", n2)
			}
		})
	}
}

func TestStreamDataRetriedBeforeAnswer(t *testing.T) {
	seq := &sequence{steps: []step{{503, "0", ""}, {429, "", ""}, {200, "", `{"result":[{"tag":"a"}]}`}}}
	c, _ := newTestClient(t, seq, nil)
	n, err := c.StreamData(t.Context(), "w", DataQuery{}, nil)
	if err != nil || n != 1 || seq.count() != 3 {
		t.Fatalf("n = %d, err = %v after %d requests", n, err, seq.count())
	}
}

func TestStreamDataTimeoutWhileReading(t *testing.T) {
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"result":[{"tag":"a"},`)
		flush(w)
		<-r.Context().Done()
	}), func(cfg *Config) { cfg.RequestTimeout = 100 * time.Millisecond })
	n, err := c.StreamData(t.Context(), "w", DataQuery{}, nil)
	if n != 1 || !errors.Is(err, context.DeadlineExceeded) ||
		!strings.HasPrefix(err.Error(), "GET /v3/timeseries/w/data: reading the answer timed out after 100ms (raise the provider setting request_timeout") {
		t.Fatalf("n = %d, err = %v", n, err)
	}
}

func TestStorageErrors(t *testing.T) {
	rec := &recorder{status: http.StatusForbidden, body: `{"error":{"code":"storage_disabled","message":"storage is not enabled for workspace wks-1"}}`}
	c, _ := newTestClient(t, rec, nil)
	_, err := c.GetData(t.Context(), "wks-1", DataQuery{})
	want := "GET /v3/timeseries/wks-1/data: 403 Forbidden: storage_disabled: storage is not enabled for workspace wks-1"
	if err == nil || err.Error() != want || !IsStatus(err, 403) {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

func BenchmarkStreamData(b *testing.B) {
	const n = 10_000
	var body strings.Builder
	if err := writePoints(&body, n); err != nil {
		b.Fatal(err)
	}
	data := body.String()
	c, err := New(Config{BaseURL: "http://zdm.invalid", StorageURL: "http://zdm.invalid", APIKey: testKey,
		HTTPClient: &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(data))}, nil
		})}})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		got, err := c.StreamData(b.Context(), "w", DataQuery{}, nil)
		if err != nil || got != n {
			b.Fatal(got, err)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestStreamDataCallerCancels(t *testing.T) {
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"result":[{"tag":"a"},`)
		flush(w)
		<-r.Context().Done()
	}), nil)
	ctx, cancel := context.WithCancel(t.Context())
	n, err := c.StreamData(ctx, "w", DataQuery{}, func(DataPoint) error {
		cancel()
		return nil
	})
	if n != 1 || !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "request_timeout") {
		t.Fatalf("n = %d, err = %v", n, err)
	}
}

// TestStreamDataSendsBoundsInUTC: start and end go out in UTC ("Z") with
// their instant and precision, whatever offset they were written with.
func TestStreamDataSendsBoundsInUTC(t *testing.T) {
	var start, end string
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start, end = r.URL.Query().Get("start"), r.URL.Query().Get("end")
		_ = writePoints(w, 0)
	}), nil)
	q := DataQuery{Start: "2026-03-01T08:30:00.250+05:30", End: "2026-03-01T00:00:00-02:00"}
	if _, err := c.StreamData(t.Context(), "wks-1", q, nil); err != nil {
		t.Fatal(err)
	}
	if start != "2026-03-01T03:00:00.25Z" || end != "2026-03-01T02:00:00Z" {
		t.Errorf("sent start=%q end=%q, want 2026-03-01T03:00:00.25Z and 2026-03-01T02:00:00Z", start, end)
	}
}
