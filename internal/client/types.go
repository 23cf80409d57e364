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
type Device struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	AccountID     string `json:"account_id"`
	FleetID       string `json:"fleet_id"`
	FleetName     string `json:"fleet_name"`
	WorkspaceID   string `json:"workspace_id"`
	WorkspaceName string `json:"workspace_name"`
	CreatedAt     string `json:"created_at"`
	PhysID        string `json:"phys_id"`
	// Identities is the raw JSON array of identities, or nil when the service
	// answered null or omitted the field.
	Identities json.RawMessage `json:"identities"`
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
