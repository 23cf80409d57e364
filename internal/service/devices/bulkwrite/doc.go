// Package bulkwrite sends the writes of many devices: the creates and
// updates of one apply of zdm_fleet_devices (package fleetdevices), sent
// concurrently, with the outcome of each kept under the key of the device in
// the resource's map.
//
//   - Creates that do not name a fleet (the resource has no fleet yet) are
//     sent one at a time until one succeeds: its answer names the default
//     fleet, and the other creates then name that fleet, so every device of
//     one apply lands in the same fleet.
//   - Everything else runs at most `parallelism` at a time.
//   - Creates that fail ambiguously (client.ErrAmbiguous: the service may
//     have created the device) are resolved together by one list of the
//     workspace and the adoption rule of single creates (objects.ResolveCreates),
//     never matching a device the resource already holds or got in this
//     apply.
//   - Nothing is retried here beyond what the client retries; a failure is
//     recorded and the other writes go on.
//   - When Terraform is interrupted, no write starts any more, the writes
//     already sent are finished (client.FinishOnceSent) and their ambiguous
//     creates still resolved (client.ResolveContext); the keys never sent
//     are reported as such.
//
// It knows nothing of the resource's schema or state: package fleetdevices
// turns its plan into Writes and the Result back into state and diagnostics
// (with Failures, AdoptedKeys and ImportHint for the messages).
package bulkwrite
