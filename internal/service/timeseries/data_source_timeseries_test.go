package timeseries

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// tsAt is the device time of the i-th published point of the tests.
func tsAt(i int) string {
	return time.Date(2025, 1, 1, 0, i, 0, 0, time.UTC).Format(time.RFC3339)
}

// timestamps checks the device times of the points, in order.
func timestamps(idx ...int) knownvalue.Check {
	checks := make([]knownvalue.Check, len(idx))
	for k, i := range idx {
		checks[k] = knownvalue.ObjectPartial(map[string]knownvalue.Check{"timestamp_device": knownvalue.StringExact(tsAt(i))})
	}
	return knownvalue.ListExact(checks)
}

func TestAccTimeseriesDataSource(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	devs := acctest.NewDevices(t, e, "even", "odd")
	fleets, err := acctest.APIClient(t, e).ListFleets(context.Background(), ws)
	if err != nil || len(fleets) != 1 {
		t.Fatalf("fleets: %v, %v", fleets, err)
	}
	if err := e.Server.SetStorage(ws, true); err != nil {
		t.Fatal(err)
	}
	// Ten points, one a minute: even minutes from devs[0], odd ones from
	// devs[1]; every third point (0, 3, 6, 9) is tagged "hum", others "temp".
	var points []localzdm.DataPoint
	for i := range 10 {
		tag := "temp"
		if i%3 == 0 {
			tag = "hum"
		}
		points = append(points, localzdm.DataPoint{
			DeviceID: devs[i%2], Tag: tag, TimestampDevice: tsAt(i),
			Payload: json.RawMessage(fmt.Sprintf(`{ "i": %d, "note": "x y" }`, i)),
		})
	}
	if n, err := e.Server.Publish(ws, points); err != nil || n != 10 {
		t.Fatalf("publish: %d, %v", n, err)
	}

	config := e.Config(fmt.Sprintf(`
data "zdm_timeseries" "all" {}

data "zdm_timeseries" "page" {
  sort = "timestamp_device"
  from = 1
  size = 3
}

data "zdm_timeseries" "range" {
  start = %[1]q
  end   = %[2]q
  sort  = "timestamp_device"
}

data "zdm_timeseries" "odd" {
  devices = [%[3]q]
}

data "zdm_timeseries" "hum" {
  tags = ["hum"]
}

data "zdm_timeseries" "odd_hum" {
  devices = [%[3]q]
  tags    = ["hum"]
}

data "zdm_timeseries" "capped" {
  size       = 3
  max_points = 7
}

data "zdm_timeseries" "pages" {
  size       = 3
  max_points = 100
}

data "zdm_timeseries" "exact" {
  size       = 3
  max_points = 6
}

data "zdm_timeseries" "small_cap" {
  max_points = 2
  sort       = "timestamp_device"
}

data "zdm_timeseries" "json" {
  as_json = true
}

data "zdm_timeseries" "json_capped" {
  as_json    = true
  sort       = "timestamp_device"
  size       = 3
  max_points = 7
}
`, tsAt(2), tsAt(5), devs[1]))

	// checkPointsJSON checks points_json of name: the points of idx, in order,
	// the first one in full.
	checkPointsJSON := func(name string, first map[string]any, idx ...int) resource.TestCheckFunc {
		return resource.TestCheckResourceAttrWith(name, "points_json", func(v string) error {
			var items []map[string]any
			if err := json.Unmarshal([]byte(v), &items); err != nil {
				return fmt.Errorf("points_json is not a JSON array of objects: %w", err)
			}
			if len(items) != len(idx) {
				return fmt.Errorf("points_json has %d points, want %d", len(items), len(idx))
			}
			for k, i := range idx {
				if items[k]["timestamp_device"] != tsAt(i) || len(items[k]) != len(pointFields) {
					return fmt.Errorf("point %d is %v, want the one at %s", k, items[k], tsAt(i))
				}
			}
			if first != nil {
				delete(items[0], "timestamp_in")
				if !reflect.DeepEqual(items[0], first) {
					return fmt.Errorf("first point is %v, want %v", items[0], first)
				}
			}
			return nil
		})
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					// Default: newest first, the service's page of 100.
					statecheck.ExpectKnownValue("data.zdm_timeseries.all", tfjsonpath.New("points"), timestamps(9, 8, 7, 6, 5, 4, 3, 2, 1, 0)),
					statecheck.ExpectKnownValue("data.zdm_timeseries.all", tfjsonpath.New("workspace_id"), knownvalue.StringExact(ws)),
					statecheck.ExpectKnownValue("data.zdm_timeseries.all", tfjsonpath.New("points").AtSliceIndex(0), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"timestamp_device": knownvalue.StringExact(tsAt(9)),
						"timestamp_in":     knownvalue.NotNull(),
						"fleet_id":         knownvalue.StringExact(fleets[0].ID),
						"device_id":        knownvalue.StringExact(devs[1]),
						"tag":              knownvalue.StringExact("hum"),
						"payload":          knownvalue.StringExact(`{"i":9,"note":"x y"}`),
					})),
					// Page 1 of pages of 3, oldest first: points 3 to 5.
					statecheck.ExpectKnownValue("data.zdm_timeseries.page", tfjsonpath.New("points"), timestamps(3, 4, 5)),
					// start inclusive, end exclusive.
					statecheck.ExpectKnownValue("data.zdm_timeseries.range", tfjsonpath.New("points"), timestamps(2, 3, 4)),
					statecheck.ExpectKnownValue("data.zdm_timeseries.odd", tfjsonpath.New("points"), timestamps(9, 7, 5, 3, 1)),
					statecheck.ExpectKnownValue("data.zdm_timeseries.hum", tfjsonpath.New("points"), timestamps(9, 6, 3, 0)),
					statecheck.ExpectKnownValue("data.zdm_timeseries.odd_hum", tfjsonpath.New("points"), timestamps(9, 3)),
					// Every page up to the cap.
					statecheck.ExpectKnownValue("data.zdm_timeseries.capped", tfjsonpath.New("points"), timestamps(9, 8, 7, 6, 5, 4, 3)),
					statecheck.ExpectKnownValue("data.zdm_timeseries.pages", tfjsonpath.New("points"), timestamps(9, 8, 7, 6, 5, 4, 3, 2, 1, 0)),
					statecheck.ExpectKnownValue("data.zdm_timeseries.exact", tfjsonpath.New("points"), timestamps(9, 8, 7, 6, 5, 4)),
					statecheck.ExpectKnownValue("data.zdm_timeseries.small_cap", tfjsonpath.New("points"), timestamps(0, 1)),
					statecheck.ExpectKnownValue("data.zdm_timeseries.all", tfjsonpath.New("points_json"), knownvalue.Null()),
					statecheck.ExpectKnownValue("data.zdm_timeseries.all", tfjsonpath.New("point_count"), knownvalue.Int64Exact(10)),
					// as_json: points_json instead of points.
					statecheck.ExpectKnownValue("data.zdm_timeseries.json", tfjsonpath.New("points"), knownvalue.Null()),
					statecheck.ExpectKnownValue("data.zdm_timeseries.json", tfjsonpath.New("point_count"), knownvalue.Int64Exact(10)),
					statecheck.ExpectKnownValue("data.zdm_timeseries.json_capped", tfjsonpath.New("points"), knownvalue.Null()),
					statecheck.ExpectKnownValue("data.zdm_timeseries.json_capped", tfjsonpath.New("point_count"), knownvalue.Int64Exact(7)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkPointsJSON("data.zdm_timeseries.json", map[string]any{
						"timestamp_device": tsAt(9),
						"fleet_id":         fleets[0].ID,
						"device_id":        devs[1],
						"tag":              "hum",
						"payload":          map[string]any{"i": float64(9), "note": "x y"},
					}, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
					checkPointsJSON("data.zdm_timeseries.json_capped", nil, 0, 1, 2, 3, 4, 5, 6),
				),
			},
			{
				PreConfig: func() {
					if err := e.Server.SetStorage(ws, false); err != nil {
						t.Fatal(err)
					}
				},
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)Storage is not enabled for workspace ` + ws + `.*enable it in the console`),
			},
			{
				PreConfig: func() {
					if err := e.Server.SetStorage(ws, true); err != nil {
						t.Fatal(err)
					}
				},
				Config: fmt.Sprintf(`
provider "zdm" {
  base_url     = %q
  api_key      = %q
  workspace_id = %q
}
data "zdm_timeseries" "all" {}
`, e.Server.BaseURL(), e.Bootstrap.APIKey, ws),
				ExpectError: regexp.MustCompile(`(?s)Missing storage_url.*ZDM_STORAGE_URL`),
			},
			{
				// The destroy at the end of the test runs with the last configuration.
				Config: config,
			},
		},
	})
}

func TestAccTimeseriesDataSourceInvalid(t *testing.T) {
	e := acctest.NewEnv(t)
	before := e.Server.TotalRequests()
	step := func(body, want string) resource.TestStep {
		return resource.TestStep{
			Config:      e.Config("data \"zdm_timeseries\" \"x\" {\n" + body + "\n}\n"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			step(`start = "2025-01-01 00:00:00"`, `(?s)Invalid start.*RFC 3339`),
			step(`end = "yesterday"`, `(?s)Invalid end.*RFC 3339`),
			step(`
start = "2025-01-02T00:00:00Z"
end   = "2025-01-01T00:00:00Z"`, `(?s)Invalid time range.*end \(2025-01-01T00:00:00Z\) must be after start`),
			step(`
start = "2025-01-01T00:00:00Z"
end   = "2025-01-01T00:00:00Z"`, `(?s)Invalid time range`),
			step(`size = 175001`, `(?s)Attribute size value must be between 0 and 175000`),
			step(`size = -1`, `(?s)Attribute size value must be between 0 and 175000`),
			step(`from = -1`, `(?s)Attribute from value must be at least 0`),
			step(`max_points = 0`, `(?s)Attribute max_points value must be between 1 and 10000000`),
			step(`max_points = 10000001`, `(?s)Attribute max_points value must be between 1 and 10000000`),
			step(`
from       = 1
max_points = 10`, `(?s)Invalid Attribute Combination.*cannot be configured together: \[from,max_points\]`),
			step(`
size       = 0
max_points = 10`, `(?s)Invalid size.*at\s+least\s+1`),
			step(`sort = "timestamp"`, `(?s)Attribute sort value must be one of`),
			step(`devices = []`, `(?s)Attribute devices set must contain at least 1 elements`),
			step(`tags = [" "]`, `(?s)Blank value.*tags`),
			step(`workspace_id = ""`, `(?s)Attribute workspace_id string length must be at least 1`),
		},
	})
	acctest.ExpectNoRequests(t, e, before)
}

// fakeStream serves points 0..total-1 (as device times) in pages like the
// storage service, and records the pages asked for.
type fakeStream struct {
	total int
	asked [][2]int // from, size
}

func (f *fakeStream) stream(_ context.Context, _ string, q client.DataQuery, fn func(client.DataPoint) error) (int, error) {
	from, size := 0, 100
	if q.From != nil {
		from = *q.From
	}
	if q.Size != nil {
		size = *q.Size
	}
	f.asked = append(f.asked, [2]int{from, size})
	n := 0
	for i := from * size; i < f.total && i < (from+1)*size; i++ {
		if err := fn(client.DataPoint{TimestampDevice: tsAt(i)}); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func TestReadTimeseriesPaging(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		plan  timeseriesPlan
		total int
		want  int
		asked [][2]int
		first int // index of the first point
	}{
		{"default page", timeseriesPlan{maxPoints: -1}, 500, 100, [][2]int{{0, 100}}, 0},
		{"one page", timeseriesPlan{maxPoints: -1, from: 2, size: 3, fromSet: true, sizeSet: true}, 10, 3, [][2]int{{2, 3}}, 6},
		{"short last page", timeseriesPlan{maxPoints: 100, size: 3}, 10, 10, [][2]int{{0, 3}, {1, 3}, {2, 3}, {3, 3}}, 0},
		{"empty last page", timeseriesPlan{maxPoints: 100, size: 5}, 10, 10, [][2]int{{0, 5}, {1, 5}, {2, 5}}, 0},
		{"cap inside a page", timeseriesPlan{maxPoints: 7, size: 3}, 10, 7, [][2]int{{0, 3}, {1, 3}, {2, 3}}, 0},
		{"cap at a page end", timeseriesPlan{maxPoints: 6, size: 3}, 10, 6, [][2]int{{0, 3}, {1, 3}}, 0},
		{"cap below the page size", timeseriesPlan{maxPoints: 4, size: defaultTimeseriesPageSize}, 10, 4, [][2]int{{0, 4}}, 0},
		{"no points", timeseriesPlan{maxPoints: 50, size: 10}, 0, 0, [][2]int{{0, 10}}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeStream{total: tc.total}
			got := 0
			err := readTimeseries(context.Background(), f.stream, "wks", client.DataQuery{}, tc.plan, func(p client.DataPoint) error {
				if p.TimestampDevice != tsAt(tc.first+got) {
					return fmt.Errorf("point %d is %s", got, p.TimestampDevice)
				}
				got++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || !reflect.DeepEqual(f.asked, tc.asked) {
				t.Errorf("got %d points with pages %v, want %d with %v", got, f.asked, tc.want, tc.asked)
			}
		})
	}
}

func TestReadTimeseriesError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	stream := func(context.Context, string, client.DataQuery, func(client.DataPoint) error) (int, error) {
		return 0, boom
	}
	if err := readTimeseries(context.Background(), stream, "wks", client.DataQuery{}, timeseriesPlan{maxPoints: 10, size: 5}, nil); !errors.Is(err, boom) {
		t.Errorf("err = %v, want boom", err)
	}
}

func TestPointsBuilder(t *testing.T) {
	t.Parallel()
	b := newPointsBuilder(0)
	for _, p := range []client.DataPoint{
		{TimestampDevice: "t1", TimestampIn: "i1", FleetID: "f", DeviceID: "d", Tag: "x", Payload: json.RawMessage(`{ "b": 1,  "a": [1, 2] }`)},
		{TimestampDevice: "t2", TimestampIn: "i2", FleetID: "f", DeviceID: "d", Tag: "x", Payload: json.RawMessage(`{"s":"a b"}`)},
		{TimestampDevice: "t3", TimestampIn: "i3", FleetID: "f", DeviceID: "d", Tag: "x"},
	} {
		if err := b.add(p); err != nil {
			t.Fatal(err)
		}
	}
	l := b.list()
	if l.IsNull() || l.IsUnknown() || len(l.Elements()) != 3 {
		t.Fatalf("list = %v", l)
	}
	var payloads []string
	for _, el := range l.Elements() {
		p, ok := el.(pointValue)
		if !ok {
			t.Fatalf("element is %T", el)
		}
		payloads = append(payloads, p.fields[pointPayload])
	}
	if want := []string{`{"b":1,"a":[1,2]}`, `{"s":"a b"}`, "null"}; !reflect.DeepEqual(payloads, want) {
		t.Errorf("payloads = %q, want %q", payloads, want)
	}
	if len(b.shared) != 3 {
		t.Errorf("shared strings = %d, want 3 (fleet, device, tag)", len(b.shared))
	}
}

// TestPointsJSONBuilder checks that points_json decodes to the items of
// points for the same data, payloads decoded.
func TestPointsJSONBuilder(t *testing.T) {
	t.Parallel()
	points := []client.DataPoint{
		{TimestampDevice: "t1", TimestampIn: "i1", FleetID: "f", DeviceID: "d", Tag: "x", Payload: json.RawMessage(`{ "b": 1,  "a": [1, 2] }`)},
		{TimestampDevice: "t2", TimestampIn: "i2", FleetID: "f", DeviceID: "d", Tag: "x", Payload: json.RawMessage(`{"s":"a b","u":"\u00e9\n"}`)},
		{TimestampDevice: "t3", TimestampIn: "i3", FleetID: "f", DeviceID: "d", Tag: "x"},
		{TimestampDevice: "t4", TimestampIn: "i4", FleetID: "f", DeviceID: "d\"q\\", Tag: "é <&>\n\t", Payload: json.RawMessage(`[1,"x",null]`)},
		{TimestampDevice: "t5", TimestampIn: "i5", FleetID: "f", DeviceID: "d", Tag: "x", Payload: json.RawMessage(`"text"`)},
	}
	for _, n := range []int{0, 1, len(points), pointsJSONSample + 10} {
		lb := newPointsBuilder(0)
		jb := newPointsJSONBuilder(n)
		for i := range n {
			p := points[i%len(points)]
			if err := lb.add(p); err != nil {
				t.Fatal(err)
			}
			if err := jb.add(p); err != nil {
				t.Fatal(err)
			}
		}
		text := jb.finish()
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(text)); err != nil || compact.String() != text || jb.n != n {
			t.Errorf("%d points: n = %d, text %q is not compact JSON (%v)", n, jb.n, text, err)
		}
		var got []map[string]any
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatalf("%d points: %v in %s", n, err, text)
		}
		want := make([]map[string]any, 0, n)
		for _, el := range lb.list().Elements() {
			p, ok := el.(pointValue)
			if !ok {
				t.Fatalf("element is %T", el)
			}
			item := make(map[string]any, len(pointFields))
			for i, name := range pointFields {
				item[name] = p.fields[i]
			}
			var payload any
			if err := json.Unmarshal([]byte(p.fields[pointPayload]), &payload); err != nil {
				t.Fatal(err)
			}
			item["payload"] = payload
			want = append(want, item)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d points: points_json decodes to\n%v\nwant\n%v", n, got, want)
		}
	}
}

func TestPointValue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	known := pointValue{state: attr.ValueStateKnown, fields: [6]string{"t1", "i1", "f", "d", "x", `{"a":1}`}}
	for _, v := range []pointValue{known, {state: attr.ValueStateNull}, {state: attr.ValueStateUnknown}} {
		tf, err := v.ToTerraformValue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		back, err := pointObjectType.ValueFromTerraform(ctx, tf)
		if err != nil || !back.Equal(v) {
			t.Errorf("ValueFromTerraform(ToTerraformValue(%v)) = %v, %v", v, back, err)
		}
		obj, diags := v.ToObjectValue(ctx)
		acctest.MustOK(t, diags)
		again, diags := pointObjectType.ValueFromObject(ctx, obj)
		acctest.MustOK(t, diags)
		if !again.Equal(v) {
			t.Errorf("ValueFromObject(ToObjectValue(%v)) = %v", v, again)
		}
		// The Terraform value is the one a types.Object of the same attributes has.
		plainTF, err := obj.ToTerraformValue(ctx)
		if err != nil || !plainTF.Equal(tf) {
			t.Errorf("%v: Terraform value %v, want %v (%v)", v, tf, plainTF, err)
		}
	}
	if got := known.String(); !strings.Contains(got, `"device_id":"d"`) {
		t.Errorf("String() = %s", got)
	}
	if !pointObjectType.Equal(known.Type(ctx)) || pointObjectType.Equal(types.ObjectType{AttrTypes: pointAttrTypes}) {
		t.Error("pointType equality")
	}
}

// objectsBuilder is what pointsBuilder would be with types.Object points,
// for the comparison of BenchmarkTimeseriesFlatten.
type objectsBuilder struct {
	elems []attr.Value
}

func (b *objectsBuilder) add(p client.DataPoint) error {
	b.elems = append(b.elems, types.ObjectValueMust(pointAttrTypes, map[string]attr.Value{
		pointFields[pointTimestampDevice]: types.StringValue(p.TimestampDevice),
		pointFields[pointTimestampIn]:     types.StringValue(p.TimestampIn),
		pointFields[pointFleetID]:         types.StringValue(p.FleetID),
		pointFields[pointDeviceID]:        types.StringValue(p.DeviceID),
		pointFields[pointTag]:             types.StringValue(p.Tag),
		pointFields[pointPayload]:         types.StringValue(values.CompactJSON(p.Payload)),
	}))
	return nil
}

// benchPoints is the number of points of BenchmarkTimeseriesFlatten: the
// largest page the storage service serves.
const benchPoints = client.MaxPageSize

// benchTimeseriesBody renders an answer of the storage service with n points
// shaped like the local server's: 100 devices in 4 fleets, 3 tags, device
// times a second apart, ingestion times with nanoseconds and small objects
// as payloads.
func benchTimeseriesBody(n int) []byte {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tags := []string{"temperature", "humidity", "battery"}
	buf := make([]byte, 0, n*220)
	buf = append(buf, `{"result":[`...)
	for i := range n {
		if i > 0 {
			buf = append(buf, ',')
		}
		dev := i % 100
		buf = fmt.Appendf(buf, `{"timestamp_device":%q,"timestamp_in":%q,"fleet_id":"flt-%016x","device_id":"dev-%016x","tag":%q,"payload":{"value":%d.%02d,"seq":%d,"ok":true}}`,
			t0.Add(time.Duration(i)*time.Second).Format(time.RFC3339Nano),
			t0.Add(time.Duration(i)*time.Second+time.Duration(i*7919%1e9)).Format(time.RFC3339Nano),
			dev%4, dev, tags[i%3], i%50, i%100, i)
	}
	return append(buf, "]}\n"...)
}

// heapObjects is the heap memory of live objects and of dead ones not
// freed yet.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// measureHeap runs fn once and returns the peak heap growth while it ran
// (sampled every 100µs) and the heap it left live (what its result holds).
func measureHeap(fn func() any) (peak, live uint64) {
	runtime.GC()
	base := heapObjects()
	var top atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if h := heapObjects(); h > top.Load() {
				top.Store(h)
			}
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	result := fn()
	close(stop)
	<-done
	if h := heapObjects(); h > top.Load() {
		top.Store(h)
	}
	runtime.GC()
	after := heapObjects()
	runtime.KeepAlive(result)
	return top.Load() - base, after - base
}

// BenchmarkTimeseriesFlatten measures reading one page of 175,000 points
// into the value of the points attribute (client.StreamData decoding from
// the network, the points builder making the framework values), against a
// bare json.Decoder decoding the same answer into []client.DataPoint. Each
// sub-benchmark also reports, for one run, its peak heap growth and the heap
// its result keeps, as multiples of the answer's size (peak/json, live/json).
// "state" adds the conversion the framework makes when the list is stored in
// the state (ToTerraformValue). "json" builds the points_json text of
// as_json instead, and "json_wire" adds its Terraform value and the msgpack
// encoding the framework sends to Terraform. The _objects variants build types.Object
// points instead of pointValue ones, for comparison.
func BenchmarkTimeseriesFlatten(b *testing.B) {
	body := benchTimeseriesBody(benchPoints)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	c, err := client.New(client.Config{BaseURL: srv.URL, StorageURL: srv.URL, APIKey: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	size := benchPoints
	q := client.DataQuery{Size: &size}
	hc := srv.Client()

	bare := func() any {
		resp, err := hc.Get(srv.URL + "/v3/timeseries/wks/data")
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Result []client.DataPoint `json:"result"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			b.Fatal(err)
		}
		if len(out.Result) != benchPoints {
			b.Fatalf("decoded %d points", len(out.Result))
		}
		return out.Result
	}
	flatten := func() any {
		pb := newPointsBuilder(timeseriesPlan{maxPoints: -1, size: size, sizeSet: true}.capacity())
		if _, err := c.StreamData(ctx, "wks", q, pb.add); err != nil {
			b.Fatal(err)
		}
		l := pb.list()
		if len(l.Elements()) != benchPoints {
			b.Fatalf("built %d points", len(l.Elements()))
		}
		return l
	}
	objects := func() any {
		ob := &objectsBuilder{elems: make([]attr.Value, 0, size)}
		if _, err := c.StreamData(ctx, "wks", q, ob.add); err != nil {
			b.Fatal(err)
		}
		return types.ListValueMust(types.ObjectType{AttrTypes: pointAttrTypes}, ob.elems)
	}
	asJSON := func() any {
		jb := newPointsJSONBuilder(timeseriesPlan{maxPoints: -1, size: size, sizeSet: true}.capacity())
		if _, err := c.StreamData(ctx, "wks", q, jb.add); err != nil {
			b.Fatal(err)
		}
		text := jb.finish()
		if jb.n != benchPoints {
			b.Fatalf("wrote %d points", jb.n)
		}
		return text
	}
	// jsonWire adds what the framework does with points_json: the
	// Terraform value, and its msgpack encoding for Terraform.
	jsonWire := func() any {
		text, _ := asJSON().(string)
		v, err := types.StringValue(text).ToTerraformValue(ctx)
		if err != nil {
			b.Fatal(err)
		}
		dv, err := tfprotov6.NewDynamicValue(tftypes.String, v)
		if err != nil {
			b.Fatal(err)
		}
		return dv
	}
	toState := func(build func() any) func() any {
		return func() any {
			l, ok := build().(types.List)
			if !ok {
				b.Fatal("not a list")
			}
			v, err := l.ToTerraformValue(ctx)
			if err != nil {
				b.Fatal(err)
			}
			return v
		}
	}

	for _, bm := range []struct {
		name string
		fn   func() any
	}{
		{"bare_decoder", bare},
		{"flatten", flatten},
		{"flatten_objects", objects},
		{"state", toState(flatten)},
		{"state_objects", toState(objects)},
		{"json", asJSON},
		{"json_wire", jsonWire},
	} {
		b.Run(bm.name, func(b *testing.B) {
			peak, live := measureHeap(bm.fn)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				bm.fn()
			}
			// After the loop: its first iteration resets reported metrics.
			b.ReportMetric(float64(peak)/float64(len(body)), "peak/json")
			b.ReportMetric(float64(live)/float64(len(body)), "live/json")
		})
	}
}

// TestAccTimeseriesShiftingPages reads every page while the device keeps
// publishing: the local server publishes a newer point before each storage
// read (publish_before_read), which shifts the pages of the default
// newest-first order by one, so the first point of each page repeats the
// last of the previous one. Every point stored before the read is returned
// exactly once, and no point twice.
func TestAccTimeseriesShiftingPages(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	dev := acctest.NewDevices(t, e, "meter")[0]
	if err := e.Server.SetStorage(ws, true); err != nil {
		t.Fatal(err)
	}
	const stored = 23
	points := make([]localzdm.DataPoint, stored)
	for i := range points {
		points[i] = localzdm.DataPoint{DeviceID: dev, Tag: "temp", TimestampDevice: tsAt(i), Payload: json.RawMessage(`{}`)}
	}
	if n, err := e.Server.Publish(ws, points); err != nil || n != stored {
		t.Fatalf("publish: %d, %v", n, err)
	}
	choices, err := acctest.EnvChoices()
	if err != nil {
		t.Fatal(err)
	}
	choices.PublishBeforeRead = true
	if err := e.Server.SetChoices(choices); err != nil {
		t.Fatal(err)
	}
	const addr = "data.zdm_timeseries.all"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{{
			Config: e.Config(fmt.Sprintf(`
data "zdm_timeseries" "all" {
  devices    = [%q]
  tags       = ["temp"]
  size       = 5
  max_points = 1000
}
`, dev)),
			Check: func(s *terraform.State) error {
				attrs := s.RootModule().Resources[addr].Primary.Attributes
				n, err := strconv.Atoi(attrs["points.#"])
				if err != nil {
					return err
				}
				if attrs["point_count"] != attrs["points.#"] {
					return fmt.Errorf("point_count %s, points %d", attrs["point_count"], n)
				}
				times := map[string]int{}
				for i := range n {
					times[attrs[fmt.Sprintf("points.%d.timestamp_device", i)]]++
				}
				for ts, c := range times {
					if c != 1 {
						return fmt.Errorf("point at %s returned %d times", ts, c)
					}
				}
				for i := range stored {
					if times[tsAt(i)] != 1 {
						return fmt.Errorf("stored point at %s returned %d times, want once", tsAt(i), times[tsAt(i)])
					}
				}
				if n <= stored {
					return fmt.Errorf("%d points: the points published during the read are missing, so the pages did not shift", n)
				}
				return nil
			},
		}},
	})
}

// TestPointKeyComparesInstants: the unique key of a point compares device
// times as instants, whatever RFC 3339 form the service answers in.
func TestPointKeyComparesInstants(t *testing.T) {
	t.Parallel()
	p := func(ts string) pointKey {
		return keyOf(&client.DataPoint{DeviceID: "d", Tag: "t", TimestampDevice: ts})
	}
	same := []string{"2025-01-01T00:00:00Z", "2025-01-01T00:00:00.000Z", "2025-01-01T01:00:00+01:00", "2024-12-31T19:00:00.000000-05:00"}
	for _, ts := range same[1:] {
		if p(ts) != p(same[0]) {
			t.Errorf("%s and %s are different keys", ts, same[0])
		}
	}
	if p("2025-01-01T00:00:00.001Z") == p(same[0]) {
		t.Error("a millisecond apart: same key")
	}
	if keyOf(&client.DataPoint{DeviceID: "d", Tag: "u", TimestampDevice: same[0]}) == p(same[0]) {
		t.Error("another tag: same key")
	}
}

// TestReadTimeseriesDropsRepeats pages through a stream that shifts by one
// point before each page and answers the repeated point in another RFC 3339
// form: each point is passed on once.
func TestReadTimeseriesDropsRepeats(t *testing.T) {
	t.Parallel()
	var pages int
	stream := func(_ context.Context, _ string, q client.DataQuery, fn func(client.DataPoint) error) (int, error) {
		// Newest first: point i at position (9 - i) + shift, shift = pages read.
		shift := pages
		pages++
		n := 0
		for pos := *q.From * *q.Size; pos < (*q.From+1)**q.Size; pos++ {
			i := 9 + shift - pos
			if i < 0 || i > 9 {
				continue
			}
			ts := tsAt(i)
			if shift%2 == 1 {
				ts = strings.Replace(ts, "Z", ".000+00:00", 1)
			}
			if err := fn(client.DataPoint{DeviceID: "d", Tag: "t", TimestampDevice: ts}); err != nil {
				return n, err
			}
			n++
		}
		return n, nil
	}
	var got []string
	err := readTimeseries(context.Background(), stream, "wks", client.DataQuery{}, timeseriesPlan{maxPoints: 100, size: 4},
		func(p client.DataPoint) error {
			got = append(got, p.TimestampDevice)
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 10 {
		t.Errorf("got %d points %v, want the 10 stored once each", len(got), got)
	}
}
