package scheduling

import (
	"context"
	"errors"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// Records the service lost: a job or update record that the service no
// longer returns while its device exists keeps its state, with a warning,
// and only a change of the configuration schedules again; the device itself
// is gone only when a 404 is proven.

// DeviceGone tells whether a device is proven gone after a 404 on one of its
// paths (a job or firmware update): the device's own job list answers 404,
// and the device answers 404 in the provider's workspace while that
// workspace is visible to this base_url and key (the rule of
// visibility.go). It returns false, nil when the device exists, and an error
// when neither can be shown: the caller then keeps the state.
func DeviceGone(ctx context.Context, d *connection.ProviderData, dev string, notFound error) (bool, error) {
	_, err := d.Client.ListJobs(ctx, dev, client.JobStatusDone)
	switch {
	case err == nil:
		return false, nil
	case !client.IsNotFound(err):
		return false, err
	}
	ws := d.WorkspaceID
	if ws == "" {
		return false, errors.New("the service answered " + notFound.Error() + " for device " + connection.Quote(dev) +
			", but without the provider's workspace_id (or " + connection.EnvWorkspaceID + ") the provider cannot show that " +
			"the device is gone rather than out of reach of this base_url and API key, so the state is kept. Set " +
			"workspace_id in the provider block")
	}
	_, err = d.Client.GetDevice(ctx, ws, dev)
	switch {
	case err == nil:
		return false, nil
	case !client.IsNotFound(err):
		return false, err
	}
	if perr := d.ConfirmGone(ctx, "device", ws, dev, err); perr != nil {
		return false, perr
	}
	return true, nil
}

// RecordMissing is the warning of a job or firmware update record that the
// service no longer returns while its device exists: the state keeps its
// last-read status, and nothing is scheduled again.
func RecordMissing(what, dev, change string) (string, string) {
	return "The " + what + " of device " + dev + " is no longer returned by the service",
		"Device " + dev + " exists, but the service no longer returns its " + what + " (a service may purge " +
			"finished records). The state keeps its last-read status, and the " + what + " is not scheduled again: " +
			"only a change of " + change + " schedules it again."
}

// ForgetScheduling is the warning of the Delete of a job or firmware update
// (ref names it): the API cannot cancel it, and Delete cannot tell a
// destroy from the first half of a replacement (-replace, or a change that
// forces one), so the message covers both.
func ForgetScheduling(what, ref string) (string, string) {
	return "The " + what + " was only removed from the Terraform state",
		"The ZDM API cannot cancel a " + what + ": " + ref + " stays scheduled in the service. If it is being " +
			"replaced (terraform apply -replace, taint, or a change of an attribute that forces replacement), the " +
			"replacement reads what the device holds and adopts the same command without sending it again " +
			"(change triggers to send it again); otherwise Terraform no longer manages it, and importing it " +
			"manages it again."
}

// NoRecord is the status counted for a device that shows no record of the
// job or update (never got it, or the service purged it).
const NoRecord = "no record"
