package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
)

// The health read of a rollout wave: -health-size devices that each
// published one point of the health tag (and one other point), read as one
// poll of a rollout's health gate does, with -latency added to every
// request. The gate reads per wave, never per device: its storage requests
// are the chunks of device filters (each one page here), read one after the
// other, so the network floor is chunks x latency.

// Target of the health read, over its network floor.
const maxHealthReadRatio = 1.3

type healthReadResult struct {
	Devices  int           `json:"devices"`
	Latency  time.Duration `json:"latency_ns"`
	Chunks   int           `json:"chunks"`
	Requests int64         `json:"requests"`
	Points   int           `json:"points"`
	Wall     time.Duration `json:"wall_ns"` // median of the reads
}

func (r *healthReadResult) floor() time.Duration { return time.Duration(r.Chunks) * r.Latency }

func (r *healthReadResult) ratio() float64 { return ratio(r.Wall, r.floor()) }

func (b *bench) runHealthRead(ctx context.Context, n int) (*healthReadResult, error) {
	latency := b.o.latency
	if latency <= 0 {
		latency = 20 * time.Millisecond
	}
	ws, err := b.workspace("health-" + strconv.Itoa(n))
	if err != nil {
		return nil, err
	}
	if err := b.srv.SetStorage(ws.WorkspaceID, true); err != nil {
		return nil, err
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("unit-%05d", i)
	}
	ids, err := b.srv.CreateDevices(ws.WorkspaceID, "", names)
	if err != nil {
		return nil, err
	}
	start := time.Now().UTC().Add(-time.Hour)
	pts := make([]localzdm.DataPoint, 0, 2*n)
	for i, id := range ids {
		at := start.Add(time.Duration(i) * time.Millisecond).Format(time.RFC3339Nano)
		pts = append(pts,
			localzdm.DataPoint{DeviceID: id, Tag: "boot_ok", TimestampDevice: at, Payload: []byte(`{"ok":true}`)},
			localzdm.DataPoint{DeviceID: id, Tag: "temperature", TimestampDevice: at, Payload: []byte(`{"value":21}`)})
	}
	if stored, err := b.srv.Publish(ws.WorkspaceID, pts); err != nil || stored != len(pts) {
		return nil, fmt.Errorf("published %d points, %d stored (%v)", len(pts), stored, err)
	}
	c, err := client.New(client.Config{BaseURL: b.srv.BaseURL(), StorageURL: b.srv.StorageURL(), APIKey: ws.APIKey})
	if err != nil {
		return nil, err
	}
	res := &healthReadResult{Devices: n, Latency: latency, Chunks: rollout.DeviceChunks(ids)}
	b.srv.SetFaults(localzdm.Faults{Latency: latency})
	defer b.srv.SetFaults(localzdm.Faults{})
	var m measurement
	for range max(b.o.planRepeat, 1) {
		b.srv.ResetCounters()
		t0 := time.Now()
		got, err := rollout.ReadWavePoints(ctx, c, ws.WorkspaceID, "boot_ok", ids, start.Add(-time.Minute))
		if err != nil {
			return nil, err
		}
		m.add(cmdResult{Wall: time.Since(t0)})
		res.Requests, res.Points = b.srv.TotalRequests(), len(got)
	}
	res.Wall = m.Wall
	if res.Points != n {
		return nil, fmt.Errorf("the health read found %d points, want %d (one per device)", res.Points, n)
	}
	logf("health read of a wave of %d devices at %s: %d requests (%d chunks) in %s, floor %s (%.2fx)", n, latency,
		res.Requests, res.Chunks, secs(res.Wall), secs(res.floor()), res.ratio())
	return res, nil
}

var healthReadScenario = scenario{
	name:    "healthread",
	option:  "health_size",
	enabled: func(o options) bool { return o.healthSize > 0 },
	run: func(ctx context.Context, b *bench, res *results) error {
		r, err := b.runHealthRead(ctx, b.o.healthSize)
		if err != nil {
			return fmt.Errorf("health read: %w", err)
		}
		res.HealthRead = r
		return nil
	},
	measured: func(res *results) bool { return res.HealthRead != nil },
	take:     func(dst, src *results) { dst.HealthRead = src.HealthRead },
	report: func(w printf, res *results) {
		r := res.HealthRead
		w("## Health read of a rollout wave\n\n")
		w("One poll of a rollout's `health_check` on a wave of %s devices, each of which published a point of the "+
			"health tag and another point: the points of the tag, read per chunk of device filters (%d chunks, one page "+
			"each), every request waiting %s. The network floor is chunks x latency.\n\n", num(r.Devices), r.Chunks, r.Latency)
		w("| devices | storage requests | points | wall | network floor | ratio |\n|--:|--:|--:|--:|--:|--:|\n")
		w("| %s | %d | %s | %s | %s | %s |\n\n", num(r.Devices), r.Requests, num(r.Points), secs(r.Wall), secs(r.floor()), times(r.ratio()))
	},
	targets: func(res *results) []target {
		r := res.HealthRead
		return []target{
			{fmt.Sprintf("health read of a %s-device wave: at most one storage request per chunk of device filters (%d)", num(r.Devices), r.Chunks),
				strconv.FormatInt(r.Requests, 10), r.Requests <= int64(r.Chunks)},
			{fmt.Sprintf("health read of a %s-device wave at %s latency: at most %.1fx the network floor", num(r.Devices), r.Latency, maxHealthReadRatio),
				fmt.Sprintf("%s (%s, floor %s)", times(r.ratio()), secs(r.Wall), secs(r.floor())), r.ratio() <= maxHealthReadRatio},
		}
	},
}
