package provider

import (
	"context"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// deviceExists tells whether the service knows a device, for the error of a
// 404 on a device-addressed path that may mean either an unknown device or
// an unknown job or update. Listing the device's jobs needs no workspace.
func deviceExists(ctx context.Context, c *client.Client, deviceID string) (bool, error) {
	_, err := c.ListJobs(ctx, deviceID, client.JobStatusDone)
	switch {
	case client.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	default:
		return true, nil
	}
}
