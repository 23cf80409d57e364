// Package kit is what the families build their resources, data sources,
// list resources and actions with: shared models and schema attributes,
// validators, plan modifiers, identities and import IDs, the workspace
// default, the resolution of ambiguous creates, the create and read of
// objects in a workspace (ObjectResource), list-result streaming, stable
// orders and messages. It sits above connection and below the families; it
// knows the objects of the API (workspaces, fleets, devices), not the
// resources that manage them.
package kit
