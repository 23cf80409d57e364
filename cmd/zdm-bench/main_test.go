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
