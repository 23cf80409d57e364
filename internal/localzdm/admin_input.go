package localzdm

import "time"

// Limits of the admin API's input.
const (
	// MaxFaultDelay bounds every duration of the admin input but a request
	// fault's window: the faults' latency and retry_after, a request
	// fault's delay, and the devices' delay and jitter.
	MaxFaultDelay = time.Hour
	// MaxFaultWindow bounds the "for" window of a request fault.
	MaxFaultWindow = 24 * time.Hour
	// maxAdminBody bounds admin request bodies.
	maxAdminBody = 1 << 20
	// maxPublishBody bounds the body of POST /admin/workspaces/{id}/data,
	// which may carry large batches of data points.
	maxPublishBody = 64 << 20
)
