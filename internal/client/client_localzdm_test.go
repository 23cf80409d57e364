package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// localEnv is a local server with a bootstrapped workspace and a client
// holding its key.
type localEnv struct {
	srv *localzdm.Server
	b   localzdm.Bootstrap
	c   *client.Client
}

func startLocal(t *testing.T, mod func(*client.Config)) *localEnv {
	t.Helper()
	srv := localzdm.StartTest(t)
	b, err := srv.Bootstrap("client-test")
	if err != nil {
		t.Fatal(err)
	}
	cfg := client.Config{
		BaseURL:      srv.BaseURL(),             // without /v3
		StorageURL:   srv.StorageURL() + "/v3/", // with /v3 and a slash
		APIKey:       b.APIKey,
		RetryWaitMin: time.Millisecond,
		RetryWaitMax: 10 * time.Millisecond,
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &localEnv{srv: srv, b: b, c: c}
}

// result holds the two results of a client call, for must(...).of(t).
type result[T any] struct {
	v   T
	err error
}

func must[T any](v T, err error) result[T] { return result[T]{v, err} }

// of returns the value, failing the test on an error.
func (r result[T]) of(t *testing.T) T {
	t.Helper()
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.v
}

func TestLocalManagement(t *testing.T) {
	e := startLocal(t, nil)
	ctx := t.Context()
	wsID := e.b.WorkspaceID

	// Workspaces.
	list := must(e.c.ListWorkspaces(ctx)).of(t)
	if !slices.ContainsFunc(list, func(w client.Workspace) bool { return w.ID == wsID }) {
		t.Fatalf("ListWorkspaces = %+v, missing %s", list, wsID)
	}
	ws := must(e.c.GetWorkspace(ctx, wsID)).of(t)
	if ws.Name != "client-test" || ws.AccountID != e.b.AccountID || ws.CreatedAt == "" {
		t.Fatalf("GetWorkspace = %+v", ws)
	}
	other := must(e.c.CreateWorkspace(ctx, "other", "second workspace")).of(t)
	if other.ID == "" || other.ID == wsID || other.Description != "second workspace" || other.AccountID != e.b.AccountID {
		t.Fatalf("CreateWorkspace = %+v", other)
	}
	if got := must(e.c.GetWorkspace(ctx, other.ID)).of(t); got.ID != other.ID {
		t.Fatalf("GetWorkspace of the new workspace = %+v", got)
	}
	if _, err := e.c.ListFleets(ctx, other.ID); !client.IsStatus(err, 403) {
		t.Fatalf("ListFleets of a workspace the key is not bound to: %v", err)
	}

	// Fleets.
	fleets := must(e.c.ListFleets(ctx, wsID)).of(t)
	if len(fleets) != 1 || fleets[0].Name != "default" {
		t.Fatalf("ListFleets = %+v, want the default fleet", fleets)
	}
	defaultFleet := fleets[0]
	fleet := must(e.c.CreateFleet(ctx, wsID, "sensors", "outdoor")).of(t)
	if fleet.WorkspaceID != wsID || fleet.Name != "sensors" || fleet.Description != "outdoor" {
		t.Fatalf("CreateFleet = %+v", fleet)
	}
	if got := must(e.c.GetFleet(ctx, wsID, fleet.ID)).of(t); *got != *fleet {
		t.Fatalf("GetFleet = %+v, want %+v", got, fleet)
	}
	if n := len(must(e.c.ListFleets(ctx, wsID)).of(t)); n != 2 {
		t.Fatalf("%d fleets, want 2", n)
	}

	// Devices.
	d1 := must(e.c.CreateDevice(ctx, wsID, "thermo 1", "")).of(t)
	if d1.FleetID() != defaultFleet.ID || d1.FleetName() != "default" || d1.WorkspaceID() != wsID {
		t.Fatalf("CreateDevice without fleet = %+v", d1)
	}
	d2 := must(e.c.CreateDevice(ctx, wsID, "thermo 2", fleet.ID)).of(t)
	if d2.FleetID() != fleet.ID {
		t.Fatalf("CreateDevice in fleet = %+v", d2)
	}
	if got := must(e.c.GetDevice(ctx, wsID, d1.ID)).of(t); got.ID != d1.ID || got.Name != "thermo 1" {
		t.Fatalf("GetDevice = %+v", got)
	}
	moved := must(e.c.UpdateDevice(ctx, wsID, d1.ID, "thermo 1b", fleet.ID)).of(t)
	if moved.Name != "thermo 1b" || moved.FleetID() != fleet.ID || moved.FleetName() != "sensors" {
		t.Fatalf("UpdateDevice = %+v", moved)
	}
	devices := must(e.c.ListDevices(ctx, wsID)).of(t)
	if len(devices) != 2 {
		t.Fatalf("ListDevices = %+v", devices)
	}
	if _, err := e.c.CreateDevice(ctx, wsID, "x", "flt-does-not-exist"); !client.IsStatus(err, 400) && !client.IsStatus(err, 404) {
		t.Fatalf("CreateDevice in an unknown fleet: %v", err)
	}

	// Jobs, with a name that needs escaping.
	jobName := "update cfg/v2?x=1%"
	job := must(e.c.ScheduleJob(ctx, d1.ID, jobName, json.RawMessage(`{"level": 3}`))).of(t)
	if job.Name != jobName || job.Status != client.JobStatusPending || string(job.Value) != `{"level":3}` {
		t.Fatalf("ScheduleJob = %+v (value %s)", job, job.Value)
	}
	if got := must(e.c.GetJob(ctx, d1.ID, jobName)).of(t); got.Name != jobName || got.Status != client.JobStatusPending {
		t.Fatalf("GetJob = %+v", got)
	}
	if err := e.srv.SetJobStatus(d1.ID, jobName, client.JobStatusDone); err != nil {
		t.Fatal(err)
	}
	must(e.c.ScheduleJob(ctx, d1.ID, "reboot", nil)).of(t)
	all := must(e.c.ListJobs(ctx, d1.ID, "")).of(t)
	done := must(e.c.ListJobs(ctx, d1.ID, client.JobStatusDone)).of(t)
	pending := must(e.c.ListJobs(ctx, d1.ID, client.JobStatusPending)).of(t)
	if len(all) != 2 || len(done) != 1 || done[0].Name != jobName || len(pending) != 1 || pending[0].Name != "reboot" {
		t.Fatalf("ListJobs: all %+v, done %+v, pending %+v", all, done, pending)
	}
	if _, err := e.c.ListJobs(ctx, d1.ID, "running"); !client.IsStatus(err, 400) {
		t.Fatalf("ListJobs with a bad status: %v", err)
	}
	fleetJob := must(e.c.ScheduleFleetJob(ctx, wsID, "calibrate", []string{fleet.ID}, json.RawMessage(`{}`))).of(t)
	slices.Sort(fleetJob.Devices)
	if want := sorted(d1.ID, d2.ID); !slices.Equal(fleetJob.Devices, want) || fleetJob.Status != client.JobStatusPending {
		t.Fatalf("ScheduleFleetJob = %+v, want devices %v", fleetJob, want)
	}
	allFleets := must(e.c.ScheduleFleetJob(ctx, wsID, "ping", nil, nil)).of(t)
	if len(allFleets.Devices) != 2 {
		t.Fatalf("ScheduleFleetJob on all fleets = %+v", allFleets)
	}

	// FOTA.
	if _, err := e.c.GetFOTA(ctx, d2.ID); !client.IsNotFound(err) {
		t.Fatalf("GetFOTA before any: %v", err)
	}
	f := must(e.c.ScheduleFOTA(ctx, d2.ID, "fw/main", "1.2.3+build")).of(t)
	if f.Status != "pending" || f.Value.FirmwareID != "fw/main" || f.Value.FirmwareVersion != "1.2.3+build" {
		t.Fatalf("ScheduleFOTA = %+v", f)
	}
	if err := e.srv.SetFOTAStatus(d2.ID, "done"); err != nil {
		t.Fatal(err)
	}
	if got := must(e.c.GetFOTA(ctx, d2.ID)).of(t); got.Status != "done" || got.Value != f.Value {
		t.Fatalf("GetFOTA = %+v", got)
	}
	ff := must(e.c.ScheduleFleetFOTA(ctx, wsID, "fw", "2.0", nil)).of(t)
	if len(ff.Devices) != 2 || ff.Value.FirmwareVersion != "2.0" {
		t.Fatalf("ScheduleFleetFOTA = %+v", ff)
	}
	ff = must(e.c.ScheduleFleetFOTA(ctx, wsID, "fw", "2.1", []string{defaultFleet.ID})).of(t)
	if len(ff.Devices) != 0 {
		t.Fatalf("ScheduleFleetFOTA on the empty default fleet = %+v", ff)
	}

	// Errors.
	_, err := e.c.GetDevice(ctx, wsID, "dev-missing")
	if !client.IsNotFound(err) || !strings.HasPrefix(err.Error(), "GET /v3/workspaces/"+wsID+"/devices/dev-missing: 404 Not Found: ") {
		t.Fatalf("GetDevice of an unknown device: %v", err)
	}
	if err := e.srv.DeleteDevice(d2.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.GetDevice(ctx, wsID, d2.ID); !client.IsNotFound(err) {
		t.Fatalf("GetDevice after out-of-band delete: %v", err)
	}
}

func sorted(s ...string) []string {
	slices.Sort(s)
	return s
}

func TestLocalStorage(t *testing.T) {
	e := startLocal(t, nil)
	ctx := t.Context()
	wsID := e.b.WorkspaceID
	dev := must(e.c.CreateDevice(ctx, wsID, "meter", "")).of(t)
	other := must(e.c.CreateDevice(ctx, wsID, "other", "")).of(t)

	_, err := e.c.GetData(ctx, wsID, client.DataQuery{})
	if !client.IsStatus(err, 403) {
		t.Fatalf("GetData before storage is enabled: %v", err)
	}
	if err := e.srv.SetStorage(wsID, true); err != nil {
		t.Fatal(err)
	}
	const n = 3000
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	points := make([]localzdm.DataPoint, 0, n+1)
	for i := range n {
		tag := "temp"
		if i%3 == 0 {
			tag = "hum"
		}
		points = append(points, localzdm.DataPoint{
			DeviceID: dev.ID, Tag: tag, TimestampDevice: base.Add(time.Duration(i) * time.Second).Format(time.RFC3339),
			Payload: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)),
		})
	}
	points = append(points, localzdm.DataPoint{DeviceID: other.ID, Tag: "temp", TimestampDevice: base.Format(time.RFC3339), Payload: json.RawMessage(`1`)})
	if stored, err := e.srv.Publish(wsID, points); err != nil || stored != n+1 {
		t.Fatalf("Publish = %d, %v", stored, err)
	}

	// Default page: 100 points, newest first.
	page := must(e.c.GetData(ctx, wsID, client.DataQuery{})).of(t)
	if len(page) != 100 || page[0].Payload == nil || string(page[0].Payload) != fmt.Sprintf(`{"i":%d}`, n-1) {
		t.Fatalf("default page: %d points, first %+v", len(page), page[0])
	}

	// Everything of one device, ascending, streamed.
	size := client.MaxPageSize
	next := 0
	count, err := e.c.StreamData(ctx, wsID, client.DataQuery{Size: &size, Sort: client.SortAscending, Devices: []string{dev.ID}},
		func(p client.DataPoint) error {
			if want := fmt.Sprintf(`{"i":%d}`, next); string(p.Payload) != want || p.DeviceID != dev.ID || p.FleetID != dev.FleetID() {
				return fmt.Errorf("point %d = %+v", next, p)
			}
			next++
			return nil
		})
	if err != nil || count != n {
		t.Fatalf("StreamData = %d, %v", count, err)
	}

	// Filters: time range, tags, several devices, paging.
	from, pageSize := 1, 10
	q := client.DataQuery{
		Start: base.Add(30 * time.Second).Format(time.RFC3339), End: base.Add(90 * time.Second).Format(time.RFC3339),
		Tags: []string{"hum"}, Devices: []string{dev.ID, other.ID}, Sort: client.SortAscending, From: &from, Size: &pageSize,
	}
	got := must(e.c.GetData(ctx, wsID, q)).of(t)
	// hum points have i%3 == 0; in [30, 90) that is 30, 33, ..., 87 (20 points);
	// page 1 of size 10 holds 60..87.
	if len(got) != 10 || string(got[0].Payload) != `{"i":60}` || string(got[9].Payload) != `{"i":87}` {
		t.Fatalf("filtered page = %+v", got)
	}
	for _, p := range got {
		if p.Tag != "hum" {
			t.Fatalf("tag filter ignored: %+v", p)
		}
	}
	two := must(e.c.GetData(ctx, wsID, client.DataQuery{Devices: []string{dev.ID, other.ID}, End: base.Add(time.Second).Format(time.RFC3339)})).of(t)
	if len(two) != 2 {
		t.Fatalf("two devices at the first second: %+v", two)
	}

	tooBig := client.MaxPageSize + 1
	if _, err := e.c.GetData(ctx, wsID, client.DataQuery{Size: &tooBig}); !client.IsStatus(err, 400) {
		t.Fatalf("size over the maximum: %v", err)
	}
}

func TestLocalAuthErrors(t *testing.T) {
	e := startLocal(t, nil)
	unknownKey := e.b.APIKey + "-unknown"
	bad, err := client.New(client.Config{BaseURL: e.srv.BaseURL(), StorageURL: e.srv.StorageURL(), APIKey: unknownKey})
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.ListWorkspaces(t.Context())
	if !client.IsStatus(err, 401) {
		t.Fatalf("wrong key: %v", err)
	}
	if strings.Contains(err.Error(), unknownKey) {
		t.Fatalf("the key is in the error: %v", err)
	}
	_, err = bad.GetData(t.Context(), e.b.WorkspaceID, client.DataQuery{})
	if !client.IsStatus(err, 401) {
		t.Fatalf("wrong key on storage: %v", err)
	}
}

func TestLocalFaults(t *testing.T) {
	e := startLocal(t, func(cfg *client.Config) { cfg.MaxRetries = 2 })
	ctx := t.Context()
	wsID := e.b.WorkspaceID

	t.Run("503 retried until success", func(t *testing.T) {
		e.srv.SetFaults(localzdm.Faults{ErrorRate: 1, RetryAfter: -1})
		time.AfterFunc(20*time.Millisecond, func() { e.srv.SetFaults(localzdm.Faults{}) })
		c, err := client.New(client.Config{BaseURL: e.srv.BaseURL(), APIKey: e.b.APIKey, MaxRetries: 50,
			RetryWaitMin: 5 * time.Millisecond, RetryWaitMax: 5 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.ListFleets(ctx, wsID); err != nil {
			t.Fatalf("ListFleets through transient 503s: %v", err)
		}
	})

	t.Run("503 exhausts retries", func(t *testing.T) {
		e.srv.SetFaults(localzdm.Faults{ErrorRate: 1, RetryAfter: -1})
		defer e.srv.SetFaults(localzdm.Faults{})
		e.srv.ResetCounters()
		_, err := e.c.CreateFleet(ctx, wsID, "never", "")
		if !client.IsStatus(err, 503) || !strings.Contains(err.Error(), "gave up after 3 attempts") || errors.Is(err, client.ErrAmbiguous) {
			t.Fatalf("err = %v", err)
		}
		if got := e.srv.Counters()["POST /v3/workspaces/{workspace_id}/fleets"]; got != 3 {
			t.Fatalf("%d POSTs reached the server, want 3", got)
		}
	})

	t.Run("429 rate limit", func(t *testing.T) {
		e.srv.SetFaults(localzdm.Faults{RateLimit: 1000, RetryAfter: -1})
		defer e.srv.SetFaults(localzdm.Faults{})
		c, err := client.New(client.Config{BaseURL: e.srv.BaseURL(), APIKey: e.b.APIKey, MaxRetries: 1000,
			RetryWaitMin: time.Millisecond, RetryWaitMax: 2 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			if _, err := c.GetWorkspace(ctx, wsID); err != nil {
				t.Fatalf("under a rate limit: %v", err)
			}
		}
	})

	t.Run("connection dropped after create", func(t *testing.T) {
		e.srv.SetFaults(localzdm.Faults{DropAfterCreate: true})
		e.srv.ResetCounters()
		_, err := e.c.CreateFleet(ctx, wsID, "dropped", "")
		e.srv.SetFaults(localzdm.Faults{})
		if !errors.Is(err, client.ErrAmbiguous) || !strings.Contains(err.Error(), "may have been created") {
			t.Fatalf("err = %v, want ErrAmbiguous", err)
		}
		if got := e.srv.Counters()["POST /v3/workspaces/{workspace_id}/fleets"]; got != 1 {
			t.Fatalf("%d POSTs reached the server, want exactly 1", got)
		}
		fleets := must(e.c.ListFleets(ctx, wsID)).of(t)
		n := 0
		for _, f := range fleets {
			if f.Name == "dropped" {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d fleets named dropped, want 1: %+v", n, fleets)
		}
	})

	t.Run("hang times out", func(t *testing.T) {
		e.srv.SetFaults(localzdm.Faults{Hang: true})
		defer e.srv.SetFaults(localzdm.Faults{})
		c, err := client.New(client.Config{BaseURL: e.srv.BaseURL(), APIKey: e.b.APIKey, MaxRetries: -1, RequestTimeout: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.GetWorkspace(ctx, wsID)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out after 100ms") || !strings.Contains(err.Error(), "request_timeout") {
			t.Fatalf("err = %v", err)
		}
	})
}
