// Package fleets is the family of workspaces and fleets: zdm_workspace and
// zdm_fleet (resources, data sources, list resources), zdm_workspaces and
// zdm_fleets.
package fleets
