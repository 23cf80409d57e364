package main

import (
	"bytes"
	"image/png"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

func TestParseFlags(t *testing.T) {
	t.Parallel()
	o, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.sizes, []int{100, 1000, 2000}) || o.querySize != 10000 || o.points != 175000 ||
		o.latency != 20*time.Millisecond || o.parallelism != 10 || o.out != "bench/RESULTS.md" || o.plot != "bench/performance.png" ||
		o.guide != "templates/guides/performance.md.tmpl" || !o.floor {
		t.Errorf("defaults: %+v", o)
	}
	o, err = parseFlags([]string{"-quick"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.sizes, []int{100, 500}) || o.querySize != 1000 || o.points != 20000 || o.out != "" || o.plot != "" || o.guide != "" {
		t.Errorf("-quick: %+v", o)
	}
	// Explicit flags win over -quick.
	o, err = parseFlags([]string{"-quick", "-sizes", "50", "-out", "x.md"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.sizes, []int{50}) || o.out != "x.md" {
		t.Errorf("-quick with flags: %+v", o)
	}
	for _, bad := range [][]string{{"-sizes", "0"}, {"-sizes", "a"}, {"-points", "175001"}, {"-parallelism", "0"}, {"extra"}} {
		if _, err := parseFlags(bad); err == nil {
			t.Errorf("parseFlags(%q) accepted", bad)
		}
	}
}

func TestNum(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 175000: "175,000", 1234567: "1,234,567"} {
		if got := num(n); got != want {
			t.Errorf("num(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestRequestsText(t *testing.T) {
	t.Parallel()
	got := requestsText(map[string]int64{
		"GET /v3/workspaces/{workspace_id}/devices":             1,
		"PUT /v3/workspaces/{workspace_id}/devices/{device_id}": 2000,
	})
	want := "2,000 `PUT …/devices/{id}`, 1 `GET …/devices`"
	if got != want {
		t.Errorf("requestsText = %q, want %q", got, want)
	}
	if got := requestsText(nil); got != "none" {
		t.Errorf("requestsText(nil) = %q", got)
	}
}

func TestCountQueryResults(t *testing.T) {
	t.Parallel()
	out := strings.Join([]string{
		`{"@level":"info","type":"version"}`,
		`{"@level":"info","type":"list_resource_found","list_resource_found":{"address":"list.zdm_device.all"}}`,
		`{"@level":"info","type":"list_resource_found","list_resource_found":{"address":"list.zdm_device.all"}}`,
		`{"@level":"info","type":"list_complete"}`,
	}, "\n")
	if got := countQueryResults(out); got != 2 {
		t.Errorf("countQueryResults = %d, want 2", got)
	}
}

func TestReadOwnProc(t *testing.T) {
	t.Parallel()
	comm, ticks, ok := readStat(os.Getpid())
	if !ok || comm == "" || ticks < 0 {
		t.Errorf("readStat(self) = %q, %d, %v", comm, ticks, ok)
	}
	if hwm := readVmHWM(os.Getpid()); hwm <= 0 {
		t.Errorf("readVmHWM(self) = %d", hwm)
	}
	if got := commName("terraform-provider-zdm"); got != "terraform-provi" {
		t.Errorf("commName = %q", got)
	}
}

func TestParseFlagsOnly(t *testing.T) {
	t.Parallel()
	selected := func(o options) []string {
		var names []string
		for _, sc := range scenarios {
			if o.selected(sc) {
				names = append(names, sc.name)
			}
		}
		return names
	}
	o, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := selected(o); !slices.Equal(got, []string{"sizes", "query", "timeseries", "fleetstatus", "fleetdevices", "faults", "share", "scale", "healthread"}) {
		t.Errorf("default run selects %q", got)
	}
	if got := selected(options{sizes: []int{1}, points: 0, querySize: 5}); !slices.Equal(got, []string{"sizes", "query"}) {
		t.Errorf("-points 0 selects %q", got)
	}
	o, err = parseFlags([]string{"-only", "timeseries"})
	if err != nil {
		t.Fatal(err)
	}
	if got := selected(o); !slices.Equal(got, []string{"timeseries"}) || o.out != "" || o.plot != "" || o.guide != "" {
		t.Errorf("-only timeseries selects %q; files %q %q %q", got, o.out, o.plot, o.guide)
	}
	o, err = parseFlags([]string{"-only", "query", "-out", "x.md"})
	if err != nil {
		t.Fatal(err)
	}
	if got := selected(o); !slices.Equal(got, []string{"query"}) || o.out != "x.md" || o.plot != "" {
		t.Errorf("-only query -out x.md selects %q; files %q %q", got, o.out, o.plot)
	}
	if _, err := parseFlags([]string{"-only", "devices"}); err == nil {
		t.Error("-only devices accepted")
	}
}

func TestMergeResults(t *testing.T) {
	t.Parallel()
	full := &results{
		Machine:    machine{CPUs: 2},
		Options:    map[string]string{"sizes": "100", "points": "175000"},
		Sizes:      []sizeResult{{N: 100}},
		Query:      &queryResult{N: 10},
		Timeseries: &timeseriesResult{Points: 175000, JSONBytes: 1},
	}
	part := &results{
		Machine:    machine{CPUs: 8},
		Options:    map[string]string{"sizes": "", "points": "20000"},
		Timeseries: &timeseriesResult{Points: 20000, JSONBytes: 2},
	}
	got := mergeResults(mergeResults(nil, full), part)
	if got.Machine.CPUs != 2 || len(got.Sizes) != 1 || got.Query != full.Query || got.Timeseries != part.Timeseries {
		t.Errorf("merged: %+v", got)
	}
	if got.Options["sizes"] != "100" || got.Options["points"] != "20000" || full.Options["points"] != "175000" {
		t.Errorf("merged options %v, full's %v", got.Options, full.Options)
	}
}

func TestTimeseriesReport(t *testing.T) {
	t.Parallel()
	const json = 10 << 20
	res := &results{Options: map[string]string{}, Timeseries: &timeseriesResult{
		Points: 1000, JSONBytes: json, BareDecode: time.Second, StreamDecode: time.Second,
		DataSource:     &measurement{RSS: 20 * json, Wall: 2 * time.Second},
		DataSourceJSON: &measurement{RSS: 2 * json, Wall: time.Second},
	}}
	table := renderTables(res)
	for _, want := range []string{
		"| provider peak RSS, plan reading every point with `as_json = true` | 20.0 MiB | 2.00x the JSON |",
		"| 1,000 points through the data source (`points` list): provider peak RSS at most 3x the JSON | 20.00x (200.0 MiB for 10.0 MiB) | **missed** |",
		"| 1,000 points through the data source (`as_json = true`): provider peak RSS at most 3x the JSON | 2.00x (20.0 MiB for 10.0 MiB) | met |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("report lacks %q:\n%s", want, table)
		}
	}
	// Results from before as_json: no row, no target.
	res.Timeseries.DataSourceJSON = nil
	if table := renderTables(res); strings.Contains(table, "with `as_json = true` |") || strings.Contains(table, "(`as_json = true`)") {
		t.Errorf("report without as_json results mentions it:\n%s", table)
	}
	if got := timeseriesConfig(5, true); !strings.Contains(got, "as_json = true") || !strings.Contains(got, "point_count") {
		t.Errorf("timeseriesConfig(5, true) = %s", got)
	}
}

// sampleResults is a run of two sizes with every scenario measured.
func sampleResults() *results {
	m := func(wall time.Duration, requests int64) measurement {
		return measurement{Wall: wall, TotalCPU: wall, CPU: wall / 2, RSS: 40 << 20,
			Requests: map[string]int64{"GET /v3/workspaces/{workspace_id}/devices": requests}}
	}
	res := &results{
		Machine: machine{CPUs: 2, Terraform: "1.15.0"},
		Options: map[string]string{"parallelism": "10", "plan_repeat": "1", "latency": "20ms"},
		Query:   &queryResult{N: 10, Results: 10, M: m(time.Second, 1)},
		Timeseries: &timeseriesResult{Points: 1000, JSONBytes: 10 << 20, BareDecode: time.Second, StreamDecode: time.Second,
			DataSource: &measurement{RSS: 200 << 20, Wall: 2 * time.Second}, DataSourceMin: &measurement{RSS: 20 << 20},
			DataSourceJSON: &measurement{RSS: 20 << 20, Wall: time.Second}},
	}
	for _, n := range []int{100, 1000} {
		d := time.Duration(n) * time.Millisecond
		s := sizeResult{N: n, Latency: &latencyResult{Latency: 20 * time.Millisecond, Floor: d, Create: m(3*d, int64(n)), Plan: m(d, 2)}}
		for _, name := range []string{stepCreate, stepPlan, stepUpdate} {
			floor := m(d, 0)
			s.Steps = append(s.Steps, stepPair{Name: name, Baseline: m(d, 0), Floor: &floor, ZDM: m(2*d, 2)})
		}
		res.Sizes = append(res.Sizes, s)
	}
	return res
}

func TestRenderPlot(t *testing.T) {
	t.Parallel()
	b, err := renderPlot(sampleResults())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the plot is not a PNG image: %v", err)
	}
	// Four panels of 3.6 x 3 inches at 110 dpi, two a row: create, plan,
	// rename, create with latency.
	if r := img.Bounds(); r.Dx() != 792 || r.Dy() != 660 {
		t.Errorf("plot is %dx%d, want 792x660 (2 x 2 panels)", r.Dx(), r.Dy())
	}

	// With the fleet devices, a fifth panel starts a third row.
	res := sampleResults()
	ms := func(d time.Duration) measurement { return measurement{Wall: d} }
	res.FleetDevices = &fleetDevicesResult{Devices: 10000, Latency: 20 * time.Millisecond, BaselineDevices: 2000,
		Create: ms(16 * time.Second), Plan: ms(2 * time.Second), Rename: ms(17 * time.Second),
		BaselineCreate: ms(300 * time.Second), BaselinePlan: ms(40 * time.Second), BaselineRename: ms(900 * time.Second)}
	b, err = renderPlot(res)
	if err != nil {
		t.Fatal(err)
	}
	if img, err = png.Decode(bytes.NewReader(b)); err != nil {
		t.Fatalf("the plot is not a PNG image: %v", err)
	}
	if r := img.Bounds(); r.Dx() != 792 || r.Dy() != 990 {
		t.Errorf("plot with fleet devices is %dx%d, want 792x990 (3 rows)", r.Dx(), r.Dy())
	}
	if out := os.Getenv("ZDM_BENCH_SAMPLE_PLOT"); out != "" {
		if err := os.WriteFile(out, b, 0o600); err != nil { //nolint:gosec // G703: a path the developer gives.
			t.Fatal(err)
		}
	}
}

func TestRenderResults(t *testing.T) {
	t.Parallel()
	res := sampleResults()
	page := string(renderResults(res, renderTables(res), "performance.png"))
	for _, want := range []string{
		"![Wall time of each step against N](performance.png)",
		"## Provider against terraform_data",
		"| 1,000 | plan: refresh N, no changes | 1.00 s | 1.00 s | 2.00 s | 2.00x | 2.00x | 2 `GET …/devices` |",
		"## With 20ms of latency per request",
		"## terraform query",
		"## Time series",
		"| no-op plan of 1,000 devices: at most 5 API requests | 2 | met |",
		"| no-op plan of 1,000 devices: at most 1.3x terraform_data | 2.00x | **missed** |",
		"| CPUs | 2 () |",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, page)
		}
	}
}

func TestUpdateGuide(t *testing.T) {
	t.Parallel()
	res := sampleResults()
	guide := "intro\n<!-- bench:sizes:begin -->\nold table\n<!-- bench:sizes:end -->\nmiddle\n" +
		"<!-- bench:timeseries:begin -->\nold numbers\n<!-- bench:timeseries:end -->\nend\n"
	got, err := updateGuide([]byte(guide), res)
	if err != nil {
		t.Fatal(err)
	}
	text := string(got)
	for _, want := range []string{
		"intro\n<!-- bench:sizes:begin -->\n| N devices | step | zdm_device | terraform_data | API requests |",
		"| 1,000 | apply: rename all N | 2.00 s | 1.00 s | 2 |",
		"Measured with Terraform 1.15.0 on 2 shared CPUs, `-parallelism=10`",
		"<!-- bench:sizes:end -->\nmiddle\n<!-- bench:timeseries:begin -->\nReading 1,000 points (10.0 MiB of JSON)",
		"with `as_json = true`, 20.0 MiB and 1.00 s.\n<!-- bench:timeseries:end -->\nend\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("updated guide lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "old") {
		t.Errorf("updated guide keeps the old regions:\n%s", text)
	}
	if _, err := updateGuide([]byte("no regions\n"), res); err == nil {
		t.Error("a guide without the regions was accepted")
	}
}

func TestParseScale(t *testing.T) {
	got, err := parseScale("1x100000, 100x10000")
	if err != nil || !slices.Equal(got, []scaleSpec{{1, 100000}, {100, 10000}}) {
		t.Fatalf("parseScale = %v, %v", got, err)
	}
	if scaleText(got) != "1x100000,100x10000" {
		t.Errorf("scaleText = %q", scaleText(got))
	}
	if got, err := parseScale("0"); err != nil || got != nil {
		t.Errorf("parseScale(0) = %v, %v; want none", got, err)
	}
	for _, bad := range []string{"100", "0x5", "x5", "3x", "ax1", "1x-2"} {
		if _, err := parseScale(bad); err == nil || !strings.Contains(err.Error(), "-scale") {
			t.Errorf("parseScale(%q) = %v, want an error naming -scale", bad, err)
		}
	}
}

// TestScaleNetworkFloor: the requests of a create wait the latency,
// fleetDevicesParallelism at a time per resource, with at most Terraform's
// -parallelism resources at once.
func TestScaleNetworkFloor(t *testing.T) {
	for _, tc := range []struct {
		spec        scaleSpec
		parallelism int
		want        time.Duration
	}{
		{scaleSpec{Resources: 1, Devices: 100000}, 10, 125 * time.Second},     // 100,000 x 20ms / 16
		{scaleSpec{Resources: 100, Devices: 10000}, 10, 125 * time.Second},    // 1,000,000 x 20ms / (16 x 10)
		{scaleSpec{Resources: 4, Devices: 1000}, 10, 1250 * time.Millisecond}, // 4,000 x 20ms / (16 x 4)
	} {
		r := scaleRun{Spec: tc.spec, Latency: 20 * time.Millisecond, Parallelism: tc.parallelism}
		if got := r.networkFloor(); got != tc.want {
			t.Errorf("%s at -parallelism=%d: network floor %s, want %s", tc.spec, tc.parallelism, got, tc.want)
		}
	}
}

// TestScaleLeastCreate: one resource cannot be created in less than
// Terraform's own create and the network floor one after the other; with
// several resources, or without the floor's create, the least is not known.
func TestScaleLeastCreate(t *testing.T) {
	one := scaleRun{Spec: scaleSpec{Resources: 1, Devices: 100000}, Latency: 20 * time.Millisecond, Parallelism: 10,
		FloorCreate: measurement{Wall: 52 * time.Second}}
	if got := one.leastCreate(); got != 177*time.Second {
		t.Errorf("least create of 1x100000 = %s, want 177s (125s of network and 52s of Terraform)", got)
	}
	// Bare requests of 20.8 ms: the requests alone take 130s.
	bare := one
	bare.BareRequest = 20800 * time.Microsecond
	if got, least := bare.requestFloor(), bare.leastCreate(); got != 130*time.Second || least != 182*time.Second {
		t.Errorf("with bare requests of 20.8ms: requests %s, least create %s; want 130s and 182s", got, least)
	}
	many := one
	many.Spec = scaleSpec{Resources: 100, Devices: 10000}
	noFloor := one
	noFloor.FloorCreate = measurement{}
	if many.leastCreate() != 0 || noFloor.leastCreate() != 0 {
		t.Errorf("least create = %s for 100 resources, %s without the floor; want 0 (not known) for both",
			many.leastCreate(), noFloor.leastCreate())
	}
}

// TestBareRequestWaitsTheLatency: a bare request takes at least the
// server's latency, and not much more on an idle loopback; a wrong key is
// an error, not a time.
func TestBareRequestWaitsTheLatency(t *testing.T) {
	srv := localzdm.StartTest(t)
	ws, err := srv.Bootstrap("bare")
	if err != nil {
		t.Fatal(err)
	}
	srv.SetFaults(localzdm.Faults{Latency: 5 * time.Millisecond})
	d, err := bareRequest(t.Context(), srv.BaseURL(), ws, 4)
	if err != nil || d < 5*time.Millisecond || d > 500*time.Millisecond {
		t.Fatalf("bare request at 5ms of latency: %s, %v", d, err)
	}
	ws.APIKey = "wrong"
	if d, err := bareRequest(t.Context(), srv.BaseURL(), ws, 2); err == nil {
		t.Errorf("a bare request with a wrong key took %s and no error", d)
	}
}
