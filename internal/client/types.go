package client

import "encoding/json"

// Workspace is a workspace of the device management service.
type Workspace struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	AccountID   string `json:"account_id"`
	Description string `json:"description"`
	CreatedAt   string `json:"created_at"`
}

// Fleet is a fleet of devices inside a workspace.
type Fleet struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	AccountID   string `json:"account_id"`
	WorkspaceID string `json:"workspace_id"`
	CreatedAt   string `json:"created_at"`
}

// Device is a device inside a fleet.
//
// Its account, workspace and fleet are a Place that the devices of one
// fleet in a list share (ListDevices): a device holds one pointer for the
// five of them, so that the list of a workspace of a million devices costs
// 96 bytes a device plus its own strings, where five strings of its own
// took 80 bytes more. Read them with the methods of the same names; a
// device without a Place has them empty.
type Device struct {
	ID   string
	Name string
	// Place is shared with the other devices of the fleet in a list: set
	// a new one rather than modify it.
	Place      *Place
	CreatedAt  string
	PhysID     string
	Identities json.RawMessage // the raw JSON array of identities, or nil when the service answered null or omitted it
}

// Place is where a device is: its account, workspace and fleet.
type Place struct {
	AccountID     string
	WorkspaceID   string
	WorkspaceName string
	FleetID       string
	FleetName     string
}

// AccountID returns the ID of the device's account.
func (d *Device) AccountID() string { return d.place().AccountID }

// WorkspaceID returns the ID of the device's workspace.
func (d *Device) WorkspaceID() string { return d.place().WorkspaceID }

// WorkspaceName returns the name of the device's workspace.
func (d *Device) WorkspaceName() string { return d.place().WorkspaceName }

// FleetID returns the ID of the device's fleet.
func (d *Device) FleetID() string { return d.place().FleetID }

// FleetName returns the name of the device's fleet.
func (d *Device) FleetName() string { return d.place().FleetName }

var nowhere Place

func (d *Device) place() *Place {
	if d.Place == nil {
		return &nowhere
	}
	return d.Place
}

// deviceJSON is a device as the service writes it.
type deviceJSON struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	AccountID     string          `json:"account_id"`
	FleetID       string          `json:"fleet_id"`
	FleetName     string          `json:"fleet_name"`
	WorkspaceID   string          `json:"workspace_id"`
	WorkspaceName string          `json:"workspace_name"`
	CreatedAt     string          `json:"created_at"`
	PhysID        string          `json:"phys_id"`
	Identities    json.RawMessage `json:"identities"`
}

// UnmarshalJSON reads a device as the service writes it; its Place is its
// own (see ShareRepeated).
func (d *Device) UnmarshalJSON(data []byte) error {
	var w deviceJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	p := w.place()
	*d = w.device(&p)
	return nil
}

// place returns where w is.
func (w *deviceJSON) place() Place {
	return Place{AccountID: w.AccountID, WorkspaceID: w.WorkspaceID, WorkspaceName: w.WorkspaceName,
		FleetID: w.FleetID, FleetName: w.FleetName}
}

// device returns the device w at place; its Identities are nil when the
// service answered null, as its documentation promises.
func (w *deviceJSON) device(place *Place) Device {
	ids := w.Identities
	if string(ids) == "null" {
		ids = nil
	}
	return Device{ID: w.ID, Name: w.Name, Place: place, CreatedAt: w.CreatedAt, PhysID: w.PhysID, Identities: ids}
}

// places holds one Place for each place of the devices of a list.
type places map[Place]*Place

func (ps places) share(p *Place) *Place {
	if q, ok := ps[*p]; ok {
		return q
	}
	q := new(Place)
	*q = *p
	ps[*q] = q
	return q
}

// ShareRepeated returns a function that makes the devices it is given that
// are in one fleet share one Place, as the devices of ListDevices do.
func ShareRepeated() func(*Device) {
	ps := places{}
	return func(d *Device) {
		if d.Place != nil {
			d.Place = ps.share(d.Place)
		}
	}
}

// Job is a named job scheduled on a device.
type Job struct {
	Name        string          `json:"name"`
	Status      string          `json:"status"`
	ScheduledAt string          `json:"scheduled_at"`
	Value       json.RawMessage `json:"value"`
	// Devices is only set in the answer of a fleet-wide schedule.
	Devices []string `json:"devices,omitempty"`
}

// FOTAValue names the firmware of a FOTA.
type FOTAValue struct {
	FirmwareID      string `json:"firmware_id"`
	FirmwareVersion string `json:"firmware_version"`
}

// FOTA is the firmware-over-the-air status of a device.
type FOTA struct {
	ScheduledAt string    `json:"scheduled_at"`
	Status      string    `json:"status"`
	Value       FOTAValue `json:"value"`
	// Devices is only set in the answer of a fleet-wide schedule.
	Devices []string `json:"devices,omitempty"`
}

// DataPoint is one stored time-series data point.
type DataPoint struct {
	TimestampDevice string          `json:"timestamp_device"`
	TimestampIn     string          `json:"timestamp_in"`
	FleetID         string          `json:"fleet_id"`
	DeviceID        string          `json:"device_id"`
	Tag             string          `json:"tag"`
	Payload         json.RawMessage `json:"payload"`
}

// Job status values accepted by the list filter.
const (
	JobStatusPending = "pending"
	JobStatusDone    = "done"
)

// Sort orders of the storage service.
const (
	SortAscending  = "timestamp_device"
	SortDescending = "-timestamp_device"
)

// MaxPageSize is the largest page the storage service serves.
const MaxPageSize = 175000
