package admin

// Limits of the admin API's input.
const (
	// maxAdminBody bounds admin request bodies.
	maxAdminBody = 1 << 20
	// maxPublishBody bounds the body of POST /admin/workspaces/{id}/data,
	// which may carry large batches of data points.
	maxPublishBody = 64 << 20
)
