// Package fleets is the family of workspaces and fleets: zdm_workspace and
// zdm_fleet (resources, data sources, list resources), zdm_workspaces and
// zdm_fleets, and zdm_fleet_status (the status of a job or firmware update
// over the devices of a workspace, of fleets or of a set of devices, read
// through package scheduling).
package fleets
