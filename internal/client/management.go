package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// ListWorkspaces returns the workspaces of the key's account
// (GET /workspaces).
func (c *Client) ListWorkspaces(ctx context.Context) ([]Workspace, error) {
	return getList[Workspace](ctx, c, c.mgmtRequest(http.MethodGet, nil, "workspaces"), "workspaces")
}

// GetWorkspace returns one workspace (GET /workspaces/{workspace_id}).
func (c *Client) GetWorkspace(ctx context.Context, workspaceID string) (*Workspace, error) {
	if err := requireIDs("workspace ID", workspaceID); err != nil {
		return nil, err
	}
	return getOne[Workspace](ctx, c, c.mgmtRequest(http.MethodGet, nil, "workspaces", workspaceID), "workspace")
}

// CreateWorkspace creates a workspace (POST /workspaces).
func (c *Client) CreateWorkspace(ctx context.Context, name, description string) (*Workspace, error) {
	body := struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}{name, description}
	rq, err := c.mgmtJSONRequest(http.MethodPost, nil, body, "workspaces")
	if err != nil {
		return nil, err
	}
	return getOne[Workspace](ctx, c, rq, "workspace")
}

// ListFleets returns the fleets of a workspace
// (GET /workspaces/{workspace_id}/fleets).
func (c *Client) ListFleets(ctx context.Context, workspaceID string) ([]Fleet, error) {
	if err := requireIDs("workspace ID", workspaceID); err != nil {
		return nil, err
	}
	return getList[Fleet](ctx, c, c.mgmtRequest(http.MethodGet, nil, "workspaces", workspaceID, "fleets"), "fleets")
}

// GetFleet returns one fleet (GET /workspaces/{workspace_id}/fleets/{fleet_id}).
func (c *Client) GetFleet(ctx context.Context, workspaceID, fleetID string) (*Fleet, error) {
	if err := requireIDs("workspace ID", workspaceID, "fleet ID", fleetID); err != nil {
		return nil, err
	}
	return getOne[Fleet](ctx, c, c.mgmtRequest(http.MethodGet, nil, "workspaces", workspaceID, "fleets", fleetID), "fleet")
}

// CreateFleet creates a fleet in a workspace
// (POST /workspaces/{workspace_id}/fleets).
func (c *Client) CreateFleet(ctx context.Context, workspaceID, name, description string) (*Fleet, error) {
	if err := requireIDs("workspace ID", workspaceID); err != nil {
		return nil, err
	}
	body := struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}{name, description}
	rq, err := c.mgmtJSONRequest(http.MethodPost, nil, body, "workspaces", workspaceID, "fleets")
	if err != nil {
		return nil, err
	}
	return getOne[Fleet](ctx, c, rq, "fleet")
}

// ListDevices returns the devices of a workspace
// (GET /workspaces/{workspace_id}/devices).
func (c *Client) ListDevices(ctx context.Context, workspaceID string) ([]Device, error) {
	if err := requireIDs("workspace ID", workspaceID); err != nil {
		return nil, err
	}
	// The devices of one fleet share one Place: a list of a large
	// workspace holds a pointer per device for its account, workspace and
	// fleet, not five strings. Each device is made from the answer as it
	// is decoded, so the copies of the place it drops never pile up.
	return c.ListDevicesOfFleets(ctx, workspaceID, nil)
}

// ListDevicesOfFleets returns the devices of a workspace that are in one
// of fleets, from the same list as ListDevices (the service cannot filter
// it): the devices of other fleets are read and dropped as the answer is
// decoded, so the memory held is that of the devices kept. A nil fleets
// keeps every device, as ListDevices does.
func (c *Client) ListDevicesOfFleets(ctx context.Context, workspaceID string, fleets map[string]bool) ([]Device, error) {
	if err := requireIDs("workspace ID", workspaceID); err != nil {
		return nil, err
	}
	var keep func(*deviceJSON) bool
	if fleets != nil {
		keep = func(w *deviceJSON) bool { return fleets[w.FleetID] }
	}
	ps := places{}
	return getListWith(ctx, c, c.mgmtRequest(http.MethodGet, nil, "workspaces", workspaceID, "devices"),
		func(r io.Reader, size int64) ([]Device, error) {
			return decodeDeviceListKeeping(r, size, keep, func(w *deviceJSON) Device {
				p := w.place()
				return w.device(ps.share(&p))
			})
		})
}

// GetDevice returns one device
// (GET /workspaces/{workspace_id}/devices/{device_id}).
func (c *Client) GetDevice(ctx context.Context, workspaceID, deviceID string) (*Device, error) {
	if err := requireIDs("workspace ID", workspaceID, "device ID", deviceID); err != nil {
		return nil, err
	}
	return oneDevice(ctx, c, c.mgmtRequest(http.MethodGet, nil, "workspaces", workspaceID, "devices", deviceID))
}

// deviceBody is the body of device creation and update; an empty fleet ID is
// omitted (on creation the service then uses the default fleet).
type deviceBody struct {
	Name    string `json:"name"`
	FleetID string `json:"fleet_id,omitempty"`
}

// CreateDevice creates a device (POST /workspaces/{workspace_id}/devices).
// An empty fleetID is omitted from the body: the device goes to the
// workspace's default fleet.
func (c *Client) CreateDevice(ctx context.Context, workspaceID, name, fleetID string) (*Device, error) {
	if err := requireIDs("workspace ID", workspaceID); err != nil {
		return nil, err
	}
	rq, err := c.mgmtJSONRequest(http.MethodPost, nil, deviceBody{name, fleetID}, "workspaces", workspaceID, "devices")
	if err != nil {
		return nil, err
	}
	return oneDevice(ctx, c, rq)
}

// UpdateDevice sets the name and fleet of a device
// (PUT /workspaces/{workspace_id}/devices/{device_id}). An empty fleetID is
// omitted from the body.
func (c *Client) UpdateDevice(ctx context.Context, workspaceID, deviceID, name, fleetID string) (*Device, error) {
	if err := requireIDs("workspace ID", workspaceID, "device ID", deviceID); err != nil {
		return nil, err
	}
	rq, err := c.mgmtJSONRequest(http.MethodPut, nil, deviceBody{name, fleetID}, "workspaces", workspaceID, "devices", deviceID)
	if err != nil {
		return nil, err
	}
	return oneDevice(ctx, c, rq)
}

// ListJobs returns the jobs of a device
// (GET /devices/{device_id}/jobs?status={status}). An empty status lists
// pending and done jobs.
func (c *Client) ListJobs(ctx context.Context, deviceID, status string) ([]Job, error) {
	if err := requireIDs("device ID", deviceID); err != nil {
		return nil, err
	}
	var q url.Values
	if status != "" {
		q = url.Values{"status": {status}}
	}
	return getList[Job](ctx, c, c.mgmtRequest(http.MethodGet, q, "devices", deviceID, "jobs"), "jobs")
}

// GetJob returns one job of a device (GET /devices/{device_id}/jobs/{job_name}).
func (c *Client) GetJob(ctx context.Context, deviceID, jobName string) (*Job, error) {
	if err := requireIDs("device ID", deviceID, "job name", jobName); err != nil {
		return nil, err
	}
	rq := c.mgmtRequest(http.MethodGet, nil, "devices", deviceID, "jobs", jobName)
	var j *Job
	if err := c.call(ctx, rq, "job", &j); err != nil {
		return nil, err
	}
	if j == nil || (j.Status == "" && j.ScheduledAt == "") {
		return nil, c.neverScheduled(rq, "no job")
	}
	return j, nil
}

// ErrNeverScheduled marks a read of a device's job or firmware update that
// the service answered 200 without a record: a null member, an empty object,
// or an object with neither status nor scheduled_at. The device exists and
// has no such job or update: treat it as never scheduled. Test for it with
// errors.Is or IsNeverScheduled.
var ErrNeverScheduled = errors.New("never scheduled")

// IsNeverScheduled reports whether err is (or wraps) ErrNeverScheduled.
func IsNeverScheduled(err error) bool {
	return errors.Is(err, ErrNeverScheduled)
}

func (c *Client) neverScheduled(rq *request, msg string) error {
	return &requestError{method: rq.method, path: rq.path, msg: msg, errs: []error{ErrNeverScheduled}, scrub: c.scrub}
}

// jobBody is the body of job scheduling; an empty value is sent as {}.
type jobBody struct {
	Value json.RawMessage `json:"value"`
}

func newJobBody(value json.RawMessage) jobBody {
	if len(value) == 0 {
		value = json.RawMessage("{}")
	}
	return jobBody{Value: value}
}

// ScheduleJob schedules a job on a device
// (POST /devices/{device_id}/jobs/{job_name}); value is the job's argument
// object (nil sends {}).
func (c *Client) ScheduleJob(ctx context.Context, deviceID, jobName string, value json.RawMessage) (*Job, error) {
	if err := requireIDs("device ID", deviceID, "job name", jobName); err != nil {
		return nil, err
	}
	rq, err := c.mgmtJSONRequest(http.MethodPost, nil, newJobBody(value), "devices", deviceID, "jobs", jobName)
	if err != nil {
		return nil, err
	}
	return getOne[Job](ctx, c, rq, "job")
}

// ScheduleFleetJob schedules a job on the devices of fleets
// (POST /workspace/{workspace_id}/jobs/{job_name}?fleet=..&fleet=..; the
// singular "workspace" is the service's path). No fleet IDs means every fleet
// of the workspace. The answer's Devices lists the devices it was scheduled on.
func (c *Client) ScheduleFleetJob(ctx context.Context, workspaceID, jobName string, fleetIDs []string, value json.RawMessage) (*Job, error) {
	if err := requireIDs("workspace ID", workspaceID, "job name", jobName); err != nil {
		return nil, err
	}
	rq, err := c.mgmtJSONRequest(http.MethodPost, fleetQuery(fleetIDs), newJobBody(value), "workspace", workspaceID, "jobs", jobName)
	if err != nil {
		return nil, err
	}
	return getOne[Job](ctx, c, rq, "job")
}

// GetFOTA returns the firmware update status of a device
// (GET /devices/{device_id}/fota).
func (c *Client) GetFOTA(ctx context.Context, deviceID string) (*FOTA, error) {
	if err := requireIDs("device ID", deviceID); err != nil {
		return nil, err
	}
	rq := c.mgmtRequest(http.MethodGet, nil, "devices", deviceID, "fota")
	var f *FOTA
	if err := c.call(ctx, rq, "fota", &f); err != nil {
		return nil, err
	}
	if f == nil || (f.Status == "" && f.ScheduledAt == "") {
		return nil, c.neverScheduled(rq, "no firmware update")
	}
	return f, nil
}

// ScheduleFOTA schedules a firmware update on a device
// (POST /devices/{device_id}/fota/{firmware_id}/versions/{firmware_version}).
func (c *Client) ScheduleFOTA(ctx context.Context, deviceID, firmwareID, firmwareVersion string) (*FOTA, error) {
	if err := requireIDs("device ID", deviceID, "firmware ID", firmwareID, "firmware version", firmwareVersion); err != nil {
		return nil, err
	}
	rq := c.mgmtRequest(http.MethodPost, nil, "devices", deviceID, "fota", firmwareID, "versions", firmwareVersion)
	return getOne[FOTA](ctx, c, rq, "fota")
}

// ScheduleFleetFOTA schedules a firmware update on the devices of fleets
// (POST /workspaces/{workspace_id}/fota/{firmware_id}/versions/{firmware_version}?fleet=..).
// No fleet IDs means every fleet of the workspace. The answer's Devices lists
// the devices it was scheduled on.
func (c *Client) ScheduleFleetFOTA(ctx context.Context, workspaceID, firmwareID, firmwareVersion string, fleetIDs []string) (*FOTA, error) {
	if err := requireIDs("workspace ID", workspaceID, "firmware ID", firmwareID, "firmware version", firmwareVersion); err != nil {
		return nil, err
	}
	rq := c.mgmtRequest(http.MethodPost, fleetQuery(fleetIDs), "workspaces", workspaceID, "fota", firmwareID, "versions", firmwareVersion)
	return getOne[FOTA](ctx, c, rq, "fota")
}

func fleetQuery(fleetIDs []string) url.Values {
	if len(fleetIDs) == 0 {
		return nil
	}
	return url.Values{"fleet": append([]string(nil), fleetIDs...)}
}

// requireIDs checks that no path argument is empty; pairs are name, value.
func requireIDs(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			return fmt.Errorf("client: the %s is empty", pairs[i])
		}
	}
	return nil
}

func (c *Client) mgmtRequest(method string, query url.Values, segments ...string) *request {
	return &request{method: method, base: c.mgmt, segments: segments, query: query}
}

func (c *Client) mgmtJSONRequest(method string, query url.Values, body any, segments ...string) (*request, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("client: encoding the request body: %w", err)
	}
	rq := c.mgmtRequest(method, query, segments...)
	rq.body = data
	return rq, nil
}

// call sends rq and decodes the envelope member of the 2xx answer into out.
func (c *Client) call(ctx context.Context, rq *request, member string, out any) error {
	buf, err := c.do(ctx, rq, nil)
	if err != nil {
		return err
	}
	defer putBuffer(buf)
	if err := decodeEnvelope(buf.Bytes(), member, out); err != nil {
		return &requestError{method: rq.method, path: rq.path, msg: "unexpected answer", errs: []error{err}, scrub: c.scrub}
	}
	return nil
}

// oneDevice is getOne for a device, whose answer the device list's scanner
// reads (devicelist.go): the answer of each of the million creates of a
// million devices.
func oneDevice(ctx context.Context, c *Client, rq *request) (*Device, error) {
	buf, err := c.do(ctx, rq, nil)
	if err != nil {
		return nil, err
	}
	defer putBuffer(buf)
	d, err := decodeDeviceAnswer(buf.Bytes())
	switch {
	case err != nil:
		err = notJSON(err, buf.Bytes())
	case d == nil:
		err = errors.New(`the "device" member is null`)
	}
	if err != nil {
		return nil, &requestError{method: rq.method, path: rq.path, msg: "unexpected answer", errs: []error{err}, scrub: c.scrub}
	}
	return d, nil
}

func getOne[T any](ctx context.Context, c *Client, rq *request, member string) (*T, error) {
	var v *T
	if err := c.call(ctx, rq, member, &v); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, &requestError{method: rq.method, path: rq.path, msg: "unexpected answer", errs: []error{fmt.Errorf("the %q member is null", member)}, scrub: c.scrub}
	}
	normalize(v)
	return v, nil
}

// normalizer is implemented by types that tidy themselves after decoding.
type normalizer interface{ normalize() }

func normalize(v any) {
	if n, ok := v.(normalizer); ok {
		n.normalize()
	}
}

func getList[T any](ctx context.Context, c *Client, rq *request, member string) ([]T, error) {
	return getListEach[T](ctx, c, rq, member, nil)
}

// getListEach is getList calling each (when not nil) on every element as it
// is decoded, after normalize.
//
// The answer is decoded as it arrives, never held whole: the list of a
// workspace of a million devices is hundreds of megabytes of JSON. When
// the answer breaks off, the request is retried as any GET is, and the
// decoding starts again from nothing.
func getListEach[T any](ctx context.Context, c *Client, rq *request, member string, each func(*T)) ([]T, error) {
	return getListAs(ctx, c, rq, member, func(x *T) T {
		normalize(x)
		if each != nil {
			each(x)
		}
		return *x
	})
}

// getListAs is getListEach for a list whose elements are decoded as W,
// each then made into a T by conv.
func getListAs[W, T any](ctx context.Context, c *Client, rq *request, member string, conv func(*W) T) ([]T, error) {
	return getListWith(ctx, c, rq, func(r io.Reader, size int64) ([]T, error) {
		return decodeListFrom(r, size, member, conv)
	})
}

// getListWith is getListAs with the answer decoded by decode (r: the
// answer, size: its length, -1 when unknown).
func getListWith[T any](ctx context.Context, c *Client, rq *request, decode func(r io.Reader, size int64) ([]T, error)) ([]T, error) {
	var v []T
	rq.restartable = true
	_, err := c.do(ctx, rq, func(r io.Reader) error {
		body, _ := r.(*answerReader)
		size := int64(-1)
		if body != nil {
			size = body.length
		}
		var err error
		v, err = decode(r, size)
		if err == nil || body == nil || body.err != nil {
			return err // a broken answer: retried (see attempt)
		}
		return &callbackError{err: &requestError{method: rq.method, path: rq.path, msg: "unexpected answer",
			errs: []error{notJSON(err, body.start)}, scrub: c.scrub}}
	})
	if err != nil {
		return nil, err
	}
	if v == nil {
		v = []T{}
	}
	return v, nil
}
