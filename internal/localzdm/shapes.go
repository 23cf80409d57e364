package localzdm

import "encoding/json"

// API shapes.

type workspaceJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	AccountID   string `json:"account_id"`
	Description string `json:"description"`
	CreatedAt   string `json:"created_at"`
}

type fleetJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	AccountID   string `json:"account_id"`
	WorkspaceID string `json:"workspace_id"`
	CreatedAt   string `json:"created_at"`
}

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

type jobJSON struct {
	Name        string          `json:"name"`
	Status      string          `json:"status"`
	ScheduledAt string          `json:"scheduled_at"`
	Value       json.RawMessage `json:"value"`
}

type fleetJobJSON struct {
	jobJSON
	Devices []string `json:"devices"`
}

type fotaValueJSON struct {
	FirmwareID      string `json:"firmware_id"`
	FirmwareVersion string `json:"firmware_version"`
}

type fotaJSON struct {
	ScheduledAt string        `json:"scheduled_at"`
	Status      string        `json:"status"`
	Value       fotaValueJSON `json:"value"`
}

type fleetFOTAJSON struct {
	fotaJSON
	Devices []string `json:"devices"`
}

func workspaceToJSON(w *workspace) workspaceJSON {
	return workspaceJSON{ID: w.ID, Name: w.Name, AccountID: w.AccountID, Description: w.Description, CreatedAt: w.CreatedAt}
}

func fleetToJSON(f *fleet) fleetJSON {
	return fleetJSON{ID: f.ID, Name: f.Name, Description: f.Description, AccountID: f.AccountID, WorkspaceID: f.WorkspaceID, CreatedAt: f.CreatedAt}
}

func jobToJSON(j *job) jobJSON {
	return jobJSON{Name: j.Name, Status: j.Status, ScheduledAt: j.ScheduledAt, Value: j.Value}
}

func fotaToJSON(f *fota) fotaJSON {
	return fotaJSON{ScheduledAt: f.ScheduledAt, Status: f.Status, Value: fotaValueJSON{FirmwareID: f.FirmwareID, FirmwareVersion: f.FirmwareVersion}}
}
