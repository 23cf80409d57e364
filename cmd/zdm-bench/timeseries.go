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

var timeseriesScenario = scenario{
	name:    "timeseries",
	option:  "points",
	enabled: func(o options) bool { return o.points > 0 },
	run: func(ctx context.Context, b *bench, res *results) error {
		ts, err := b.runTimeseries(ctx, b.o.points)
		if err != nil {
			return fmt.Errorf("time series of %d points: %w", b.o.points, err)
		}
		res.Timeseries = ts
		return nil
	},
	measured: func(res *results) bool { return res.Timeseries != nil },
	take:     func(dst, src *results) { dst.Timeseries = src.Timeseries },
	report:   timeseriesReport,
	targets:  timeseriesTargets,
	summary:  timeseriesSummary,
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

// ofJSON is n bytes over the size of the JSON page.
func (t *timeseriesResult) ofJSON(n int64) float64 {
	return float64(n) / float64(t.JSONBytes)
}

// timeseriesReport writes the decoding and memory table and what it says.
func timeseriesReport(w printf, res *results) {
	t := res.Timeseries
	w("## Time series\n\n")
	w("One page of %s data points, %s of JSON. Decoding: the same bytes in memory, decoded into the client's "+
		"`DataPoint` values by a bare `encoding/json` decoder and by the client's `StreamData` (which keeps every point, as "+
		"the data source does); medians of %d runs. Peak RSS: a process that reads the page from the local server and keeps "+
		"every point, and `terraform plan` reading it with the `zdm_timeseries` data source (the provider's process), "+
		"into the list `points` and, with `as_json = true`, into the string `points_json`.\n\n",
		num(t.Points), mib(t.JSONBytes), t.DecodeRepeats)
	ofJSON := func(n int64) string { return times(t.ofJSON(n)) + " the JSON" }
	writeHeader(w, []string{"measure", "value", "relative"})
	w("| decode, bare `json.Decoder` | %s | 1.00x |\n", ms(t.BareDecode))
	w("| decode, `StreamData` | %s | %s the bare decoder |\n", ms(t.StreamDecode), times(ratio(t.StreamDecode, t.BareDecode)))
	w("| allocated, bare decoder | %s | %s |\n", mib(t.BareAlloc), ofJSON(int64(t.BareAlloc)))     //nolint:gosec // G115: bytes allocated, far below 2^63.
	w("| allocated, `StreamData` | %s | %s |\n", mib(t.StreamAlloc), ofJSON(int64(t.StreamAlloc))) //nolint:gosec // G115: as above.
	w("| peak RSS, process that only starts | %s | |\n", mib(t.IdleRSS))
	w("| peak RSS, bare decoder over HTTP | %s | %s |\n", mib(t.BareRSS), ofJSON(t.BareRSS))
	w("| peak RSS, `StreamData` over HTTP | %s | %s |\n", mib(t.StreamRSS), ofJSON(t.StreamRSS))
	if t.DataSource != nil && t.DataSourceMin != nil {
		w("| provider peak RSS, plan reading 1 point | %s | |\n", mib(t.DataSourceMin.RSS))
		w("| provider peak RSS, plan reading every point into `points` (list) | %s | %s |\n", mib(t.DataSource.RSS), ofJSON(t.DataSource.RSS))
		w("| wall time of that plan | %s | |\n", secs(t.DataSource.Wall))
	}
	if j := t.DataSourceJSON; j != nil {
		w("| provider peak RSS, plan reading every point with `as_json = true` | %s | %s |\n", mib(j.RSS), ofJSON(j.RSS))
		w("| wall time of that plan | %s | |\n", secs(j.Wall))
	}
	w("\n")
}

// timeseriesTargets: decoding as fast as a bare decoder, and a provider peak
// RSS of at most maxRSSRatio times the JSON in each mode of the data source.
func timeseriesTargets(res *results) []target {
	t := res.Timeseries
	r := ratio(t.StreamDecode, t.BareDecode)
	out := []target{{fmt.Sprintf("%s points: decode at most 1.5x a bare decoder", num(t.Points)), times(r), r <= 1.5}}
	for _, m := range []struct {
		mode string
		m    *measurement
	}{{"`points` list", t.DataSource}, {"`as_json = true`", t.DataSourceJSON}} {
		if m.m != nil {
			r := t.ofJSON(m.m.RSS)
			out = append(out, target{fmt.Sprintf("%s points through the data source (%s): provider peak RSS at most %dx the JSON",
				num(t.Points), m.mode, maxRSSRatio), fmt.Sprintf("%s (%s for %s)", times(r), mib(m.m.RSS), mib(t.JSONBytes)), r <= maxRSSRatio})
		}
	}
	return out
}

// timeseriesSummary is what the performance guide says of the two modes.
func timeseriesSummary(res *results) string {
	t := res.Timeseries
	if t.DataSource == nil || t.DataSourceJSON == nil {
		return ""
	}
	return fmt.Sprintf("Reading %s points (%s of JSON) in one plan: with `points`, the provider peaked at %s and the\n"+
		"plan took %s; with `as_json = true`, %s and %s.\n",
		num(t.Points), mib(t.JSONBytes), mib(t.DataSource.RSS), secs(t.DataSource.Wall), mib(t.DataSourceJSON.RSS), secs(t.DataSourceJSON.Wall))
}

// maxRSSRatio is the target of the provider's peak RSS reading a page of
// data points, over the size of their JSON.
const maxRSSRatio = 3
