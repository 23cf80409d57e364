package client

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestEndpoints checks each method's HTTP method, path, query and body, and
// the decoding of its envelope (unknown fields included).
func TestEndpoints(t *testing.T) {
	const (
		workspace = `{"id":"wks-1","name":"prod","account_id":"acc-1","description":"d","created_at":"2026-01-02T03:04:05Z","extra":{"x":1}}`
		fleet     = `{"id":"flt-1","name":"f","description":"d","account_id":"acc-1","workspace_id":"wks-1","created_at":"2026-01-02T03:04:05Z","new_field":true}`
		device    = `{"id":"dev-1","name":"n","account_id":"acc-1","fleet_id":"flt-1","fleet_name":"f","workspace_id":"wks-1","workspace_name":"prod","created_at":"2026-01-02T03:04:05Z","phys_id":"p","identities":[{"k":"v"}]}`
		job       = `{"name":"reboot","status":"pending","scheduled_at":"2026-01-02T03:04:05Z","value":{"delay":5},"devices":["dev-1","dev-2"]}`
		fota      = `{"scheduled_at":"2026-01-02T03:04:05Z","status":"pending","value":{"firmware_id":"fw","firmware_version":"1.0"},"devices":["dev-1"]}`
	)
	wantWorkspace := Workspace{ID: "wks-1", Name: "prod", AccountID: "acc-1", Description: "d", CreatedAt: "2026-01-02T03:04:05Z"}
	wantFleet := Fleet{ID: "flt-1", Name: "f", Description: "d", AccountID: "acc-1", WorkspaceID: "wks-1", CreatedAt: "2026-01-02T03:04:05Z"}
	wantDevice := Device{ID: "dev-1", Name: "n", Place: &Place{AccountID: "acc-1", FleetID: "flt-1", FleetName: "f", WorkspaceID: "wks-1", WorkspaceName: "prod"}, CreatedAt: "2026-01-02T03:04:05Z", PhysID: "p", Identities: json.RawMessage(`[{"k":"v"}]`)}
	wantJob := Job{Name: "reboot", Status: "pending", ScheduledAt: "2026-01-02T03:04:05Z", Value: json.RawMessage(`{"delay":5}`), Devices: []string{"dev-1", "dev-2"}}
	wantFOTA := FOTA{ScheduledAt: "2026-01-02T03:04:05Z", Status: "pending", Value: FOTAValue{FirmwareID: "fw", FirmwareVersion: "1.0"}, Devices: []string{"dev-1"}}

	tests := []struct {
		name     string
		answer   string
		call     func(context.Context, *Client) (any, error)
		method   string
		uri      string
		body     string // "" means no body expected
		want     any
		envelope string
	}{
		{
			name: "ListWorkspaces", answer: `{"workspaces":[` + workspace + `]}`, envelope: "workspaces",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListWorkspaces(ctx) },
			method: "GET", uri: "/v3/workspaces", want: []Workspace{wantWorkspace},
		},
		{
			name: "GetWorkspace", answer: `{"workspace":` + workspace + `}`, envelope: "workspace",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetWorkspace(ctx, "wks-1") },
			method: "GET", uri: "/v3/workspaces/wks-1", want: &wantWorkspace,
		},
		{
			name: "CreateWorkspace", answer: `{"workspace":` + workspace + `}`, envelope: "workspace",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.CreateWorkspace(ctx, "prod", "d") },
			method: "POST", uri: "/v3/workspaces", body: `{"name":"prod","description":"d"}`, want: &wantWorkspace,
		},
		{
			name: "ListFleets", answer: `{"fleets":[` + fleet + `]}`, envelope: "fleets",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListFleets(ctx, "wks-1") },
			method: "GET", uri: "/v3/workspaces/wks-1/fleets", want: []Fleet{wantFleet},
		},
		{
			name: "GetFleet", answer: `{"fleet":` + fleet + `}`, envelope: "fleet",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetFleet(ctx, "wks-1", "flt-1") },
			method: "GET", uri: "/v3/workspaces/wks-1/fleets/flt-1", want: &wantFleet,
		},
		{
			name: "CreateFleet", answer: `{"fleet":` + fleet + `}`, envelope: "fleet",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.CreateFleet(ctx, "wks-1", "f", "") },
			method: "POST", uri: "/v3/workspaces/wks-1/fleets", body: `{"name":"f","description":""}`, want: &wantFleet,
		},
		{
			name: "ListDevices", answer: `{"devices":[` + device + `]}`, envelope: "devices",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListDevices(ctx, "wks-1") },
			method: "GET", uri: "/v3/workspaces/wks-1/devices", want: []Device{wantDevice},
		},
		{
			name: "GetDevice", answer: `{"device":` + device + `}`, envelope: "device",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetDevice(ctx, "wks-1", "dev-1") },
			method: "GET", uri: "/v3/workspaces/wks-1/devices/dev-1", want: &wantDevice,
		},
		{
			name: "CreateDevice", answer: `{"device":` + device + `}`, envelope: "device",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.CreateDevice(ctx, "wks-1", "n", "flt-1") },
			method: "POST", uri: "/v3/workspaces/wks-1/devices", body: `{"name":"n","fleet_id":"flt-1"}`, want: &wantDevice,
		},
		{
			name: "CreateDevice default fleet", answer: `{"device":` + device + `}`, envelope: "device",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.CreateDevice(ctx, "wks-1", "n", "") },
			method: "POST", uri: "/v3/workspaces/wks-1/devices", body: `{"name":"n"}`, want: &wantDevice,
		},
		{
			name: "UpdateDevice", answer: `{"device":` + device + `}`, envelope: "device",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateDevice(ctx, "wks-1", "dev-1", "n", "flt-1")
			},
			method: "PUT", uri: "/v3/workspaces/wks-1/devices/dev-1", body: `{"name":"n","fleet_id":"flt-1"}`, want: &wantDevice,
		},
		{
			name: "ListJobs", answer: `{"jobs":[` + job + `]}`, envelope: "jobs",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListJobs(ctx, "dev-1", "") },
			method: "GET", uri: "/v3/devices/dev-1/jobs", want: []Job{wantJob},
		},
		{
			name: "ListJobs status", answer: `{"jobs":[]}`, envelope: "jobs",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ListJobs(ctx, "dev-1", JobStatusDone) },
			method: "GET", uri: "/v3/devices/dev-1/jobs?status=done", want: []Job{},
		},
		{
			name: "GetJob", answer: `{"job":` + job + `}`, envelope: "job",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetJob(ctx, "dev-1", "reboot") },
			method: "GET", uri: "/v3/devices/dev-1/jobs/reboot", want: &wantJob,
		},
		{
			name: "ScheduleJob", answer: `{"job":` + job + `}`, envelope: "job",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ScheduleJob(ctx, "dev-1", "reboot", json.RawMessage(`{"delay": 5}`))
			},
			method: "POST", uri: "/v3/devices/dev-1/jobs/reboot", body: `{"value":{"delay":5}}`, want: &wantJob,
		},
		{
			name: "ScheduleJob nil value", answer: `{"job":` + job + `}`, envelope: "job",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ScheduleJob(ctx, "dev-1", "reboot", nil) },
			method: "POST", uri: "/v3/devices/dev-1/jobs/reboot", body: `{"value":{}}`, want: &wantJob,
		},
		{
			name: "ScheduleFleetJob", answer: `{"job":` + job + `}`, envelope: "job",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ScheduleFleetJob(ctx, "wks-1", "reboot", []string{"flt-1", "flt 2"}, json.RawMessage(`{}`))
			},
			method: "POST", uri: "/v3/workspace/wks-1/jobs/reboot?fleet=flt-1&fleet=flt+2", body: `{"value":{}}`, want: &wantJob,
		},
		{
			name: "ScheduleFleetJob all fleets", answer: `{"job":` + job + `}`, envelope: "job",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ScheduleFleetJob(ctx, "wks-1", "reboot", nil, json.RawMessage(`{"a":[1]}`))
			},
			method: "POST", uri: "/v3/workspace/wks-1/jobs/reboot", body: `{"value":{"a":[1]}}`, want: &wantJob,
		},
		{
			name: "GetFOTA", answer: `{"fota":` + fota + `}`, envelope: "fota",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetFOTA(ctx, "dev-1") },
			method: "GET", uri: "/v3/devices/dev-1/fota", want: &wantFOTA,
		},
		{
			name: "ScheduleFOTA", answer: `{"fota":` + fota + `}`, envelope: "fota",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.ScheduleFOTA(ctx, "dev-1", "fw", "1.0") },
			method: "POST", uri: "/v3/devices/dev-1/fota/fw/versions/1.0", want: &wantFOTA,
		},
		{
			name: "ScheduleFleetFOTA", answer: `{"fota":` + fota + `}`, envelope: "fota",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ScheduleFleetFOTA(ctx, "wks-1", "fw", "1.0", []string{"flt-1", "flt-2"})
			},
			method: "POST", uri: "/v3/workspaces/wks-1/fota/fw/versions/1.0?fleet=flt-1&fleet=flt-2", want: &wantFOTA,
		},
		{
			name: "ScheduleFleetFOTA all fleets", answer: `{"fota":` + fota + `}`, envelope: "fota",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ScheduleFleetFOTA(ctx, "wks-1", "fw", "1.0", nil)
			},
			method: "POST", uri: "/v3/workspaces/wks-1/fota/fw/versions/1.0", want: &wantFOTA,
		},
		{
			name: "GetData", answer: `{"result":[{"timestamp_device":"t1","timestamp_in":"t2","fleet_id":"f","device_id":"d","tag":"tg","payload":{"v":1},"other":0}]}`, envelope: "result",
			call: func(ctx context.Context, c *Client) (any, error) {
				from, size := 2, 50
				return c.GetData(ctx, "wks-1", DataQuery{
					Start: "2026-01-01T00:00:00Z", End: "2026-02-01T00:00:00+01:00", From: &from, Size: &size,
					Sort: SortAscending, Devices: []string{"d1", "d2"}, Tags: []string{"temp", "a&b"},
				})
			},
			method: "GET",
			// Time bounds are sent in UTC ("Z"): some services accept no other offset.
			uri: "/v3/timeseries/wks-1/data?device=d1&device=d2&end=2026-01-31T23%3A00%3A00Z&from=2&size=50" +
				"&sort=timestamp_device&start=2026-01-01T00%3A00%3A00Z&tag=temp&tag=a%26b",
			want: []DataPoint{{TimestampDevice: "t1", TimestampIn: "t2", FleetID: "f", DeviceID: "d", Tag: "tg", Payload: json.RawMessage(`{"v":1}`)}},
		},
		{
			name: "GetData no parameters", answer: `{"result":[]}`, envelope: "result",
			call:   func(ctx context.Context, c *Client) (any, error) { return c.GetData(ctx, "wks-1", DataQuery{}) },
			method: "GET", uri: "/v3/timeseries/wks-1/data", want: []DataPoint{},
		},
		{
			name: "GetData zero from and size", answer: `{"result":[]}`, envelope: "result",
			call: func(ctx context.Context, c *Client) (any, error) {
				zero := 0
				return c.GetData(ctx, "wks-1", DataQuery{From: &zero, Size: &zero, Sort: SortDescending})
			},
			method: "GET", uri: "/v3/timeseries/wks-1/data?from=0&size=0&sort=-timestamp_device", want: []DataPoint{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{body: tt.answer}
			c, _ := newTestClient(t, rec, nil)
			got, err := tt.call(t.Context(), c)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
			r := rec.last(t)
			if r.Method != tt.method || r.RequestURI != tt.uri {
				t.Errorf("request = %s %s, want %s %s", r.Method, r.RequestURI, tt.method, tt.uri)
			}
			if r.Body != tt.body {
				t.Errorf("body = %q, want %q", r.Body, tt.body)
			}

			// A 2xx answer without the envelope member is an error, never a
			// nil result.
			for _, bad := range []string{`{}`, `{"other":` + tt.answer + `}`, `[]`, `null`, `"x"`, ``, `<html>ok</html>`, `{"` + tt.envelope + `":1}`} {
				rec.mu.Lock()
				rec.body = bad
				rec.mu.Unlock()
				got, err := tt.call(t.Context(), c)
				if err == nil {
					t.Errorf("answer %q: no error, got %#v", bad, got)
					continue
				}
				if !strings.HasPrefix(err.Error(), tt.method+" /v3/") {
					t.Errorf("answer %q: error %q does not name the request", bad, err)
				}
				if errors.Is(err, ErrAmbiguous) {
					t.Errorf("answer %q: a decoding error is not ambiguous: %v", bad, err)
				}
			}
		})
	}
}

func TestEnvelopeNullMember(t *testing.T) {
	rec := &recorder{body: `{"workspace":null}`}
	c, _ := newTestClient(t, rec, nil)
	if _, err := c.GetWorkspace(t.Context(), "w"); err == nil || !strings.Contains(err.Error(), `"workspace" member is null`) {
		t.Fatalf("null object: %v", err)
	}
	rec.body = `{"workspaces":null,"next":"x"}`
	list, err := c.ListWorkspaces(t.Context())
	if err != nil || list == nil || len(list) != 0 {
		t.Fatalf("null list = %#v, %v; want an empty list", list, err)
	}
	for _, body := range []string{`{"device":{"id":"d","identities":null}}`, `{"device":{"id":"d"}}`} {
		rec.body = body
		d, err := c.GetDevice(t.Context(), "w", "d")
		if err != nil || d.Identities != nil {
			t.Fatalf("%s: identities = %q, %v; want nil", body, d.Identities, err)
		}
	}
	rec.body = `{"result":null}`
	points, err := c.GetData(t.Context(), "w", DataQuery{})
	if err != nil || points == nil || len(points) != 0 {
		t.Fatalf("null result = %#v, %v; want an empty list", points, err)
	}
}

func TestEnvelopeMissingMemberMessage(t *testing.T) {
	rec := &recorder{body: `{"devices":[]}`}
	c, _ := newTestClient(t, rec, nil)
	_, err := c.GetDevice(t.Context(), "wks-1", "dev-1")
	want := `GET /v3/workspaces/wks-1/devices/dev-1: unexpected answer: the answer has no "device" member`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}

func TestScheduleJobRejectsInvalidValue(t *testing.T) {
	rec := &recorder{}
	c, _ := newTestClient(t, rec, nil)
	if _, err := c.ScheduleJob(t.Context(), "d", "j", json.RawMessage(`{bad`)); err == nil {
		t.Fatal("invalid JSON value accepted")
	}
	if rec.count() != 0 {
		t.Fatal("request sent with an invalid value")
	}
}
