package devices

import "github.com/zdm/terraform-provider-zdm/internal/connection"

// ListSome joins items, listing at most connection.MaxListed of them and
// counting the others: the long lists in the messages of the devices of
// this family and of package fleetdevices.
func ListSome(items []string) string {
	return connection.AbbreviateTo(items, connection.MaxListed)
}
