package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// timeseriesResult compares reading the data points with the client, with a
// bare decoder, and through the zdm_timeseries data source.
type timeseriesResult struct {
	Points    int   `json:"points"`
	JSONBytes int64 `json:"json_bytes"`

	// Decode times over the same bytes in memory (medians), and the bytes
	// each allocates.
	BareDecode    time.Duration `json:"bare_decode_ns"`
	StreamDecode  time.Duration `json:"stream_decode_ns"`
	BareAlloc     uint64        `json:"bare_alloc_bytes"`
	StreamAlloc   uint64        `json:"stream_alloc_bytes"`
	DecodeRepeats int           `json:"decode_repeats"`

	// Peak RSS of a process that reads every point over HTTP from the local
	// server and keeps them, and of one that only starts.
	IdleRSS   int64 `json:"idle_rss"`
	BareRSS   int64 `json:"bare_rss"`
	StreamRSS int64 `json:"stream_rss"`

	// terraform plan reading every point with the data source, and reading
	// one point (the provider's own footprint).
	DataSource    *measurement `json:"data_source,omitempty"`
	DataSourceMin *measurement `json:"data_source_one_point,omitempty"`
	// terraform plan reading every point with as_json = true (points_json).
	DataSourceJSON *measurement `json:"data_source_as_json,omitempty"`
}

func (b *bench) runTimeseries(ctx context.Context, points int) (*timeseriesResult, error) {
	ws, err := b.workspace("timeseries")
	if err != nil {
		return nil, err
	}
	if err := b.publish(ws, points); err != nil {
		return nil, err
	}
	res := &timeseriesResult{Points: points}

	query := fmt.Sprintf("%s/v3/timeseries/%s/data?size=%d&sort=timestamp_device", b.srv.StorageURL(), url.PathEscape(ws.WorkspaceID), points)
	body, err := fetch(ctx, query, ws.APIKey)
	if err != nil {
		return nil, err
	}
	res.JSONBytes = int64(len(body))
	logf("time series: %d points, %d bytes of JSON", points, len(body))

	if err := measureDecode(ctx, res, body, ws.WorkspaceID, points); err != nil {
		return nil, err
	}
	for _, mode := range []string{"idle", "bare", "stream"} {
		rss, err := b.measureChild(ctx, mode, ws, points)
		if err != nil {
			return nil, fmt.Errorf("%s reader: %w", mode, err)
		}
		switch mode {
		case "idle":
			res.IdleRSS = rss
		case "bare":
			res.BareRSS = rss
		case "stream":
			res.StreamRSS = rss
		}
	}
	logf("time series: peak RSS idle %s, bare decoder %s, StreamData %s", mib(res.IdleRSS), mib(res.BareRSS), mib(res.StreamRSS))

	if err := b.measureDataSource(ctx, res, ws, points); err != nil {
		return nil, err
	}
	return res, nil
}

// publish stores points data points of 10 devices in ws.
func (b *bench) publish(ws localzdm.Bootstrap, points int) error {
	if err := b.srv.SetStorage(ws.WorkspaceID, true); err != nil {
		return err
	}
	names := make([]string, 10)
	for i := range names {
		names[i] = "sensor-" + strconv.Itoa(i)
	}
	ids, err := b.srv.CreateDevices(ws.WorkspaceID, "", names)
	if err != nil {
		return err
	}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tags := []string{"temperature", "humidity"}
	const batch = 10000
	for from := 0; from < points; from += batch {
		pts := make([]localzdm.DataPoint, 0, batch)
		for i := from; i < min(from+batch, points); i++ {
			pts = append(pts, localzdm.DataPoint{
				DeviceID:        ids[i%len(ids)],
				Tag:             tags[(i/len(ids))%len(tags)],
				TimestampDevice: start.Add(time.Duration(i) * time.Second).Format(time.RFC3339),
				Payload:         json.RawMessage(fmt.Sprintf(`{"value":%d.%d,"ok":true}`, 15+i%20, i%10)),
			})
		}
		n, err := b.srv.Publish(ws.WorkspaceID, pts)
		if err != nil {
			return err
		}
		if n != len(pts) {
			return fmt.Errorf("published %d points, %d stored", len(pts), n)
		}
	}
	return nil
}

// fetch GETs u with the API key and returns the body.
func fetch(ctx context.Context, u, key string) ([]byte, error) {
	rq, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil) //nolint:gosec // G704: the local server the benchmark started.
	if err != nil {
		return nil, err
	}
	rq.Header.Set("X-API-KEY", key)
	resp, err := http.DefaultClient.Do(rq) //nolint:gosec // G704: the local server the benchmark started.
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %s", u, resp.Status, tail(string(body), 5))
	}
	return body, nil
}

// memTransport answers every request with the same JSON body, so that
// StreamData decodes exactly the bytes the bare decoder decodes.
type memTransport struct{ body []byte }

func (t memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(t.body)),
		ContentLength: int64(len(t.body)),
		Request:       r,
	}, nil
}

// bareResult is what the bare decoder decodes into: the client's type of a
// data point, as StreamData hands them out.
type bareResult struct {
	Result []client.DataPoint `json:"result"`
}

// measureDecode times the bare decoder and StreamData (keeping every point,
// as the data source does) over body, alternating them, and records the
// medians and allocations.
func measureDecode(ctx context.Context, res *timeseriesResult, body []byte, workspaceID string, points int) error {
	c, err := client.New(client.Config{
		BaseURL: "http://127.0.0.1:1", StorageURL: "http://127.0.0.1:1", APIKey: "bench",
		HTTPClient: &http.Client{Transport: memTransport{body: body}},
	})
	if err != nil {
		return err
	}
	bare := func() (int, error) {
		var v bareResult
		err := json.NewDecoder(bytes.NewReader(body)).Decode(&v)
		return len(v.Result), err
	}
	stream := func() (int, error) {
		kept := make([]client.DataPoint, 0, points)
		_, err := c.StreamData(ctx, workspaceID, client.DataQuery{}, func(p client.DataPoint) error {
			kept = append(kept, p)
			return nil
		})
		return len(kept), err
	}
	const repeats = 5
	res.DecodeRepeats = repeats
	var bareTimes, streamTimes []time.Duration
	for i := range repeats {
		for _, f := range []struct {
			fn    func() (int, error)
			times *[]time.Duration
			alloc *uint64
		}{{bare, &bareTimes, &res.BareAlloc}, {stream, &streamTimes, &res.StreamAlloc}} {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			n, err := f.fn()
			d := time.Since(start)
			runtime.ReadMemStats(&after)
			if err != nil {
				return err
			}
			if n != points {
				return fmt.Errorf("decoded %d points, want %d", n, points)
			}
			*f.times = append(*f.times, d)
			if i == 0 {
				*f.alloc = after.TotalAlloc - before.TotalAlloc
			}
		}
	}
	res.BareDecode, res.StreamDecode = median(bareTimes), median(streamTimes)
	logf("time series: decode bare %s, StreamData %s (medians of %d)", res.BareDecode.Round(time.Millisecond),
		res.StreamDecode.Round(time.Millisecond), repeats)
	return nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// measureCommand is the hidden first argument that runs one reader in a
// child process, which reports its own peak RSS.
const measureCommand = "__measure"

// measureChild runs a reader (idle, bare or stream) in a child process and
// returns its peak RSS.
func (b *bench) measureChild(ctx context.Context, mode string, ws localzdm.Bootstrap, points int) (int64, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	args := []string{measureCommand, "-mode", mode, "-storage", b.srv.StorageURL(), "-workspace", ws.WorkspaceID, "-points", strconv.Itoa(points)}
	cmd := exec.CommandContext(ctx, self, args...) //nolint:gosec // G204: this program, as a child.
	cmd.Env = append(os.Environ(), "ZDM_BENCH_KEY="+ws.APIKey)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("%w: %s", err, stderr.Bytes())
	}
	// The child reports its own VmHWM: its rusage would also count this
	// process's memory at the time of the (v)fork.
	rss, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("unexpected output %q", out)
	}
	return rss, nil
}

// runMeasureChild is the child side of measureChild.
func runMeasureChild(args []string) error {
	fs := flag.NewFlagSet(measureCommand, flag.ContinueOnError)
	mode := fs.String("mode", "idle", "idle, bare or stream")
	storage := fs.String("storage", "", "storage service URL")
	ws := fs.String("workspace", "", "workspace ID")
	points := fs.Int("points", 0, "points to read")
	if err := fs.Parse(args); err != nil {
		return err
	}
	key := os.Getenv("ZDM_BENCH_KEY")
	ctx := context.Background()
	var n int
	switch *mode {
	case "idle":
		return printVmHWM()
	case "bare":
		u := fmt.Sprintf("%s/v3/timeseries/%s/data?size=%d&sort=timestamp_device", *storage, url.PathEscape(*ws), *points)
		rq, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return err
		}
		rq.Header.Set("X-API-KEY", key)
		resp, err := http.DefaultClient.Do(rq)
		if err != nil {
			return err
		}
		defer func() { _ = resp.Body.Close() }()
		var v bareResult
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
			return err
		}
		n = len(v.Result)
	case "stream":
		c, err := client.New(client.Config{BaseURL: *storage, StorageURL: *storage, APIKey: key})
		if err != nil {
			return err
		}
		size := *points
		kept := make([]client.DataPoint, 0, size) // as the data source sizes it
		_, err = c.StreamData(ctx, *ws, client.DataQuery{Size: &size, Sort: client.SortAscending}, func(p client.DataPoint) error {
			kept = append(kept, p)
			return nil
		})
		if err != nil {
			return err
		}
		n = len(kept)
	default:
		return fmt.Errorf("unknown mode %q", *mode)
	}
	if n != *points {
		return fmt.Errorf("read %d points, want %d", n, *points)
	}
	return printVmHWM()
}

// printVmHWM prints the peak RSS of this process in bytes.
func printVmHWM() error {
	hwm := readVmHWM(os.Getpid())
	if hwm == 0 {
		return errors.New("no VmHWM in /proc/self/status")
	}
	_, err := fmt.Println(hwm)
	return err
}

// measureDataSource plans a configuration that reads every point with the
// zdm_timeseries data source, one that reads a single point, and one that
// reads every point with as_json = true.
func (b *bench) measureDataSource(ctx context.Context, res *timeseriesResult, ws localzdm.Bootstrap, points int) error {
	cfg, err := b.newConfig("timeseries", ws, false)
	if err != nil {
		return err
	}
	for _, run := range []struct {
		size   int
		asJSON bool
		m      **measurement
	}{{1, false, &res.DataSourceMin}, {points, false, &res.DataSource}, {points, true, &res.DataSourceJSON}} {
		if err := cfg.write("main.tf", requiredProviders+timeseriesConfig(run.size, run.asJSON)); err != nil {
			return err
		}
		r, err := b.terraform(ctx, cfg, okCodes, "plan", "-no-color", "-input=false")
		if err != nil {
			return err
		}
		if !strings.Contains(r.Output, "points = "+strconv.Itoa(run.size)) {
			return fmt.Errorf("the plan does not read %d points:\n%s", run.size, tail(r.Output, 20))
		}
		m := &measurement{}
		m.add(r)
		*run.m = m
		logf("time series: plan reading %d points with zdm_timeseries (as_json = %t): %s, provider peak RSS %s", run.size,
			run.asJSON, r.Wall.Round(time.Millisecond), mib(r.Provider.RSS))
	}
	return nil
}

// timeseriesConfig is a configuration whose output "points" is the number of
// points zdm_timeseries reads, in the list points or, with asJSON, in
// points_json.
func timeseriesConfig(size int, asJSON bool) string {
	extra, count := "", "length(data.zdm_timeseries.all.points)"
	if asJSON {
		extra, count = "\n  as_json = true", "data.zdm_timeseries.all.point_count"
	}
	return fmt.Sprintf(`
provider "zdm" {}

data "zdm_timeseries" "all" {
  size = %d
  sort = "timestamp_device"%s
}

output "points" {
  value = %s
}
`, size, extra, count)
}

// mib formats bytes in MiB.
func mib[T int64 | uint64](n T) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
