// Package objects is the shared behavior of the objects the API creates and
// cannot delete: workspaces, fleets and devices. It holds what several
// families do the same way with them: the create and read of an object in a
// workspace (ObjectResource, ResourceBase and the attributes every such
// resource has), the adoption of an object after an ambiguous create
// (adopt.go), the refusal of duplicate names (duplicates.go), identities and
// import IDs (identity.go, also those of the device jobs and firmware
// updates, which import the same way), lookups by ID or name (lookup.go), the
// workspace rules (workspace.go), list-result streaming (list.go), the
// stable order of lists (order.go) and the messages that name an object.
//
// What does not belong here: the model and attributes of one kind of object
// (they live in the family that owns it: devices, fleets, jobs), the value of
// a job (jobs/jobvalue), the sending of jobs and firmware (scheduling), and
// helpers of the plugin framework that know nothing of the API
// (internal/framework). It sits above connection and below the families.
package objects
