package localzdm

import "github.com/zdm/terraform-provider-zdm/internal/localzdm/store"

// The model lives in the store package; these names keep the server's code
// in its own words.
type (
	workspace = store.Workspace
	fleet     = store.Fleet
	device    = store.Device
	job       = store.Job
	fota      = store.FOTA
	point     = store.Point
	series    = store.Series
)

// Job status values.
const (
	JobStatusPending = store.JobStatusPending
	JobStatusDone    = store.JobStatusDone
)

// FOTAStatusPending is the status of a freshly scheduled FOTA.
const FOTAStatusPending = store.FOTAStatusPending

// DefaultFleetName is the name of the fleet every workspace is created with.
const DefaultFleetName = store.DefaultFleetName
