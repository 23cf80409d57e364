package main

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	t.Parallel()
	o, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.sizes, []int{100, 1000, 2000}) || o.querySize != 10000 || o.points != 175000 ||
		o.latency != 20*time.Millisecond || o.parallelism != 10 || o.out == "" || o.svg == "" || !o.floor {
		t.Errorf("defaults: %+v", o)
	}
	o, err = parseFlags([]string{"-quick"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.sizes, []int{100, 500}) || o.querySize != 1000 || o.points != 20000 || o.out != "" || o.svg != "" {
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

func TestNiceCeil(t *testing.T) {
	t.Parallel()
	for v, want := range map[float64]float64{0.07: 0.1, 0.3: 0.5, 1: 1, 1.2: 2, 2.2: 2.5, 3: 5, 9.5: 10, 41: 50, 160: 200} {
		if got := niceCeil(v); got != want {
			t.Errorf("niceCeil(%g) = %g, want %g", v, got, want)
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

func TestTrimFloat(t *testing.T) {
	t.Parallel()
	if got := trimFloat(0.1 * 3); got != "0.3" {
		t.Errorf("trimFloat(0.1*3) = %q", got)
	}
}

func TestPercent(t *testing.T) {
	t.Parallel()
	for r, want := range map[float64]string{0.9: "nothing measurable", 1.004: "nothing measurable", 1.04: "4%", 1.5: "50%"} {
		if got := percent(r); got != want {
			t.Errorf("percent(%g) = %q, want %q", r, got, want)
		}
	}
}

func TestParseFlagsOnly(t *testing.T) {
	t.Parallel()
	o, err := parseFlags([]string{"-only", "timeseries"})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.sizes) != 0 || o.querySize != 0 || o.points != 175000 || o.out != "" || o.svg != "" {
		t.Errorf("-only timeseries: %+v", o)
	}
	o, err = parseFlags([]string{"-only", "query", "-out", "x.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.sizes) != 0 || o.querySize != 10000 || o.points != 0 || o.out != "x.md" {
		t.Errorf("-only query: %+v", o)
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
	ts := func(list, asJSON int64) *results {
		return &results{Options: map[string]string{}, Timeseries: &timeseriesResult{
			Points: 1000, JSONBytes: json, BareDecode: time.Second, StreamDecode: time.Second,
			DataSource:     &measurement{RSS: list, Wall: 2 * time.Second},
			DataSourceJSON: &measurement{RSS: asJSON, Wall: time.Second},
		}}
	}
	for _, c := range []struct {
		list, asJSON int64
		want         string
	}{
		{20 * json, 2 * json, "Only `as_json = true` meets"},
		{2 * json, json, "Both modes meet"},
		{2 * json, 4 * json, "Only the `points` list meets"},
		{20 * json, 4 * json, "Neither mode meets the target of a provider peak RSS of at most 3x the JSON: `as_json = true` comes closest, at 4.00x against 20.00x"},
		{4 * json, 4 * json, "Neither mode meets"},
	} {
		if got := timeseriesVerdict(ts(c.list, c.asJSON).Timeseries); !strings.HasPrefix(got, c.want) {
			t.Errorf("timeseriesVerdict(%d, %d) = %q, want %q…", c.list, c.asJSON, got, c.want)
		}
	}
	res := ts(20*json, 2*json)
	table := renderReport(res).table
	for _, want := range []string{
		"| provider peak RSS, plan reading every point with `as_json = true` | 20.0 MiB | 2.00x the JSON |",
		"Large reads should use `as_json = true`",
		"| 1,000 points through the data source (`points` list): provider peak RSS at most 3x the JSON | 20.00x (200.0 MiB for 10.0 MiB) | **missed** |",
		"| 1,000 points through the data source (`as_json = true`): provider peak RSS at most 3x the JSON | 2.00x (20.0 MiB for 10.0 MiB) | met |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("report lacks %q:\n%s", want, table)
		}
	}
	// Results from before as_json: no row, no verdict.
	res.Timeseries.DataSourceJSON = nil
	if table := renderReport(res).table; strings.Contains(table, "with `as_json = true` |") || strings.Contains(table, "mode meets") {
		t.Errorf("report without as_json results mentions it:\n%s", table)
	}
	if got := timeseriesConfig(5, true); !strings.Contains(got, "as_json = true") || !strings.Contains(got, "point_count") {
		t.Errorf("timeseriesConfig(5, true) = %s", got)
	}
}
