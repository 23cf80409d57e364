package scheduling

import (
	"context"
	"errors"
	"strings"

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

// A refresh never writes what another resource (or anyone else) sent into
// this resource's configured attributes (a job's value, a firmware ID and
// version): the plan would then show the configured command as a change and
// applying it would send it a second time. A device holds one value of a
// job name and one firmware update, so when it now holds another command
// than the state's, the refresh keeps the state's command, status and
// scheduled_at, and warns with what the device holds now.

// HeldElsewhere is the warning of a refresh that found device dev holding
// another command (holds, scheduled at at, in status) than the state's
// (what, such as `job "sync" with value {"v":1}`): the state keeps its
// command and nothing is sent again; change names the attributes whose
// change sends it again.
func HeldElsewhere(what, dev, holds, at, status, change string) (string, string) {
	return "Device " + dev + " now holds another " + holdsKind(what),
		"Device " + dev + " now holds " + holds + ", scheduled at " + at + " (status " + status + "), not the " + what +
			" of this resource: another resource or someone outside Terraform scheduled it since. The state keeps " +
			"this resource's " + what + ", and it is not sent again: sending it would run it a second time on " +
			"the device. Change " + change + " to send it again."
}

// holdsKind is the kind of command of what, for the summary of
// HeldElsewhere.
func holdsKind(what string) string {
	if strings.HasPrefix(what, "job") {
		return "value of the job"
	}
	return "firmware update"
}
