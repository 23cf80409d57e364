package devices

import "github.com/zdm/terraform-provider-zdm/internal/connection"

// listSome joins items, listing at most connection.MaxListed of them and
// counting the others.
func listSome(items []string) string {
	return connection.AbbreviateTo(items, connection.MaxListed)
}
