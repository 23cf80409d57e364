package objects

import (
	"cmp"
	"slices"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// The stable orders of every list the provider exposes. The API promises no
// order, and a service may answer each call in another one: sorting here
// keeps plans free of changes that only reorder.
//
//   - Workspaces, fleets and devices (data sources and list resources): by
//     name, then by ID (names need not be unique; IDs are).
//   - Jobs of a device: by name (one job per name and device).
//   - Time-series points keep the order the query asks for (sort); see
//     timeseries_point.go.

// sortByNameThenID sorts s by name, then by ID, in place and stably.
func sortByNameThenID[T any](s []T, name, id func(*T) string) {
	slices.SortStableFunc(s, func(a, b T) int {
		return cmp.Or(cmp.Compare(name(&a), name(&b)), cmp.Compare(id(&a), id(&b)))
	})
}

// SortWorkspaces sorts workspaces by name, then ID.
func SortWorkspaces(s []client.Workspace) {
	sortByNameThenID(s, func(w *client.Workspace) string { return w.Name }, func(w *client.Workspace) string { return w.ID })
}

// SortFleets sorts fleets by name, then ID.
func SortFleets(s []client.Fleet) {
	sortByNameThenID(s, func(f *client.Fleet) string { return f.Name }, func(f *client.Fleet) string { return f.ID })
}

// SortDevices sorts devices by name, then ID.
func SortDevices(s []client.Device) {
	sortByNameThenID(s, func(d *client.Device) string { return d.Name }, func(d *client.Device) string { return d.ID })
}

// SortJobs sorts the jobs of a device by name.
func SortJobs(s []client.Job) {
	slices.SortStableFunc(s, func(a, b client.Job) int { return cmp.Compare(a.Name, b.Name) })
}
