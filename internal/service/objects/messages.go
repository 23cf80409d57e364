package objects

import (
	"fmt"
	"strings"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// Pieces of diagnostics and progress messages.

// DescribeFleets names the target fleets in messages.
func DescribeFleets(workspaceID string, fleetIDs []string) string {
	if len(fleetIDs) == 0 {
		return "every fleet of workspace " + workspaceID
	}
	if len(fleetIDs) == 1 {
		return "fleet " + fleetIDs[0] + " of workspace " + workspaceID
	}
	return "fleets " + strings.Join(fleetIDs, ", ") + " of workspace " + workspaceID
}

// UnknownDevice is the error detail of a device the service does not know.
func UnknownDevice(deviceID string) string {
	return "The service knows no device " + connection.Quote(deviceID) + " (or it is not in the workspace of the API key). " +
		"Check device_id."
}

// ObjectRef names an object in messages: "device "name" (id dev-1)".
func ObjectRef(kind, name, id string) string {
	return fmt.Sprintf("%s %q (id %s)", kind, name, id)
}

// ForgetWarning is emitted by Delete: the API cannot delete the object.
func ForgetWarning(kind, name, id string) (string, string) {
	return "The " + kind + " was only removed from the Terraform state",
		"The ZDM API has no delete operation: " + ObjectRef(kind, name, id) +
			" stays in the service. Terraform no longer manages it; import it again to manage it."
}

// QuoteAll quotes each string.
func QuoteAll(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = connection.Quote(s)
	}
	return out
}
