// Package localzdm is a local implementation of the ZDM device management
// service and time-series storage service (both under /v3), for tests, demos
// and local development without credentials.
//
// A Server serves the management service and an admin API on one listener and
// the storage service on another, so a storage call sent to the management
// address answers 404 and the other way round:
//
//	s, err := localzdm.New(localzdm.Options{})
//	err = s.Start("127.0.0.1:0", "127.0.0.1:0")
//	b, err := s.Bootstrap("dev") // account, workspace, API key
//	defer s.Close()
//
// Tests use StartTest. The command cmd/zdm-local runs it standalone.
//
// # API rules
//
// Every rule of the API specification is enforced: the X-API-KEY header on
// every call; a key bound to one workspace; a default fleet per workspace that
// receives devices created without fleet_id; PUT of a device updates its name
// and fleet and answers the new fleet_name; the pending/done filter of jobs;
// FOTA status; storage enabled per workspace; start inclusive and end
// exclusive; page from of pages of size; size 0..175000; defaults from=0,
// size=100, sort=-timestamp_device; deduplication of data points by
// (device_id, tag, timestamp_device). A device without identities answers
// "identities": null. The fleet-wide job path is the singular
// /workspace/{workspace_id}/jobs/{job_name}; the fleet-wide FOTA path is the
// plural /workspaces/{workspace_id}/fota/{firmware_id}/versions/{firmware_version}.
//
// # Choices where the specification is silent
//
// The provider must not depend on these; the real service may differ. The
// choices marked (switch) can be changed at run time: see "Switches" below.
//
//   - Errors are JSON {"error": {"code": "...", "message": "..."}}; the message
//     names what is wrong. Statuses: 400 invalid input (codes invalid_json,
//     invalid_argument), 401 missing or unknown key, 403 key bound to another
//     workspace (forbidden) or storage not enabled (storage_disabled), 404
//     unknown ID or route, 405 wrong method (with an Allow header), 409
//     conflicts of the admin API, 413 body over 1 MiB, 429 rate limit and 503
//     injected failure (both with Retry-After). Nothing is half-applied: a
//     request is fully validated before it changes anything.
//   - Checks run in this order: faults (429/503), route (404/405), key (401),
//     path scope (403/404), storage enabled (403), query parameters and body
//     (400), then the IDs the body or query names (400).
//   - Key scope: GET and POST /workspaces act on the key's account. GET
//     /workspaces/{id} answers any workspace of the key's account (the list
//     shows them all anyway) and 403 for a workspace of another account. Any
//     other path naming a workspace other than the key's answers 403, or 404
//     when no such workspace exists. A device-addressed path (/devices/{id}/...)
//     for a device outside the key's workspace answers 404, as does a fleet or
//     device ID under the key's workspace that belongs elsewhere.
//   - Workspaces are created with a fleet named "default" (empty description)
//     and storage disabled; a workspace created through the API gets no key
//     (keys are an admin matter), so the creating key cannot manage it.
//   - Names (workspace, fleet, device) are required and must not be blank
//     after trimming; they are stored as given, at most 255 characters.
//     Descriptions are optional, at most 1024 characters. Names need not be
//     unique. Unknown body fields are ignored; fields of the wrong JSON type
//     answer 400 naming the field. Content-Type is not enforced.
//   - Device creation: a missing, null or empty fleet_id means the default
//     fleet. A fleet_id that is unknown or of another workspace answers 400.
//     PUT requires name; a missing or empty fleet_id keeps the current fleet.
//     New devices have phys_id "" and identities null (the admin API can set
//     both). Lists are in creation order (switch: shuffled).
//   - Jobs: one job per (device, name); scheduling a name again replaces the
//     job and sets it pending. The body's value is optional (missing or null
//     means {}) and must be a JSON object; its numbers are kept as float64
//     (0.33333333333333333333 is stored as 0.3333333333333333, 1e-400 as 0;
//     a number beyond the float64 range answers 400). Jobs are listed by name (switch:
//     shuffled), and GETs and lists echo the value as stored (switch: no
//     value, null, or keys reordered). A status
//     filter other than pending or done, or a repeated status, answers 400.
//     Fleet-wide scheduling covers the devices of the fleets given by the
//     repeatable fleet parameter (all fleets when absent), in device creation
//     order; devices is [] when no device matched. A fleet of another
//     workspace or unknown answers 400.
//   - FOTA: one current FOTA per device; scheduling again replaces it (status
//     pending). GET .../fota answers 404 for a device that never had one
//     (switch: 200 {"fota": null} or 200 {"fota": {}}). The admin API can set
//     any lower-case status word (e.g. done, failed).
//   - Timestamps are RFC 3339 in UTC with fractional seconds when not zero
//     (time.RFC3339Nano). Published data point times are converted to UTC.
//   - Storage: every query parameter may be given once, except the repeatable
//     device and tag (several values match any of them; empty values answer
//     400). start and end accept any RFC 3339 time (offsets and fractions);
//     start >= end gives an empty result. from and size must be non-negative
//     integers (size at most 175000); size=0 gives an empty result; a page
//     past the end is empty. Order compares instants, then device ID, then
//     tag; -timestamp_device is its exact reverse, so pages never overlap.
//     Deduplication compares instants, so "...00Z" and "...00.000Z" are the
//     same time. Data points are stored whether or not storage is enabled;
//     the flag gates reads only. Deleting a device keeps its data points.
//   - Unknown query parameters are ignored. Paths are matched segment by
//     segment after unescaping, so IDs and job names may contain any
//     character, "/" included, when escaped. Job names, firmware IDs and
//     firmware versions, which a path gives to a stored object, must be
//     valid UTF-8 (JSON could not carry them back unchanged), not blank, and
//     not "." or ".." (path steps, which many clients and proxies resolve
//     away); 400 otherwise.
//
// # Admin API
//
// The admin API is served under /admin/ on the management listener, without
// key, and answers loopback clients only (403 otherwise). Each route has a Go
// method of the same effect. The routes are listed once, with the body each
// reads and its Go method, in the admin route table (newRouter in
// admin/admin.go); a running server answers the same table at GET
// /admin/routes. admin.go holds the Go methods, package admin the routes.
//
// Admin input is strict; nothing is applied when any of it is refused:
//
//   - Bodies are decoded strictly: a field the route does not know is a 400
//     that names it, and the field meant when one is close ("did you mean
//     \"error_rate\"?") or else the route's fields; a field of the wrong
//     JSON type is a 400 naming it.
//   - Bodies are read as a stream and bounded: 1 MiB, or 64 MiB for POST
//     /admin/workspaces/{workspace_id}/data; beyond, 413 naming the limit and
//     the route, without reading the rest.
//   - Durations are Go duration strings ("250ms") or numbers of
//     milliseconds, never negative, and at most an hour (MaxFaultDelay; a
//     request fault's "for" at most a day, MaxFaultWindow); a value out of
//     range gets a message naming the bound. Fractions are between 0 and 1.
//   - Statuses set by hand or scripted are lower-case words; a device_ip is
//     empty or an IP address.
//
// The Go methods check the same ranges and return *Error with status 400,
// except SetFaults, which clamps (and sends Retry-After 0 for a negative
// RetryAfter).
//
// # Switches
//
// Choices (Options.Choices, SetChoices, GET and PUT /admin/choices; a PUT
// replaces every choice, and Reset returns to those of Options) select the
// server's answer where the specification is silent, so the provider can be
// tested against each:
//
//   - missing_fota: "404" (default), "null" or "empty": how GET .../fota
//     answers for a device that never had a FOTA (or whose record was
//     purged): 404, 200 {"fota": null} or 200 {"fota": {}}.
//   - shuffle_lists: the lists of workspaces, fleets, devices and jobs come
//     in a random order that differs from the previous answer of the same
//     list; seed makes the orders repeatable.
//   - publish_before_read: each storage read first publishes one data point
//     (payload {"published_before_read": n}) from the smallest device ID and
//     tag the query names (else those of the workspace's newest point), at
//     the current time or just under the query's end, so the pages of a
//     newest-first read shift as they would while devices publish.
//   - job_value: "echo" (default), "omit", "null" or "reorder": how job GETs
//     and lists echo a job's value (scheduling answers always echo it).
//   - workspace_list_limit (N > 0) and hidden_workspaces (IDs): GET
//     /workspaces shows only the first N workspaces and never the hidden
//     ones; GET /workspaces/{id} still answers them.
//   - device_id_prefix: the prefix of new device IDs instead of "dev-";
//     "dev/" gives IDs that contain "/".
//
// # Device behavior
//
// By default devices never answer: jobs and FOTA stay pending until
// SetJobStatus or SetFOTAStatus (PUT /admin/devices/{device_id}/jobs/
// {job_name}/status, PUT /admin/devices/{device_id}/fota/status) move them.
// A DeviceBehavior (Options.DeviceBehavior, SetDeviceBehavior, GET and PUT
// /admin/behavior; a PUT replaces every setting, Reset returns to Options)
// scripts the devices for the jobs and FOTA, single or fleet-wide; a change
// of behavior (and a start with a state file) plans anew the work still
// pending, as if scheduled at that moment:
//
//   - enabled: devices answer, "delay" (plus up to "jitter", fixed by the
//     seed) after the scheduling; a delay of 0 answers by the time the
//     scheduling request is answered (which still says pending). A job
//     becomes done, a FOTA "fota_success_status" (default done).
//   - failing devices ("fail_devices" by ID or name, and exactly
//     round("failure_fraction" × n) of the n devices of the workspace) end
//     a FOTA in "failure_status" (default failed) and a job in
//     "job_failure_status", or leave it pending when that is empty (the
//     specification knows only pending and done for jobs, and a server with
//     a state file refuses any other job status).
//   - silent devices ("silent_devices", and round("silent_fraction" × n)
//     more) never answer.
//   - publish_health: a device that completes a job (done) or a FOTA
//     ("fota_success_status") also publishes one data point into the
//     storage service of its workspace, as a restarted device would:
//     "health_tag" (default boot_ok) with "health_payload" (a JSON object,
//     default {"ok":true}) plus "job" (the job's name) or "firmware_id" and
//     "firmware_version", unless the payload sets them; timestamp_device
//     (and timestamp_in) a millisecond after the status change, or a
//     millisecond after the device's previous health point when that is
//     later, so that answers given at one instant keep a point each.
//     Exactly round("health_silent_fraction" × n) devices publish nothing
//     and round("health_error_fraction" × n) publish "health_error_tag"
//     (default boot_error) with "health_error_payload" (default
//     {"ok":false}) instead. Failing and silent devices publish nothing,
//     nor does any device while the storage service of its workspace is
//     not enabled (where a read answers 403). The point goes to the
//     webhook like a published one.
//
// The fractions are taken in an order given by a hash of "seed" and the
// device names, so the same seed, device names and calls fail and silence
// the same devices in every run; the health fractions in an order of their
// own, a hash of "seed", the device name and "health". A rescheduling replaces the planned
// answer; a status set by hand meanwhile is kept. Planned answers are not
// persisted; PendingAnswers (and "pending_answers" in GET /admin/behavior)
// counts them. Each answer sends a "job" or "fota" event (direction d2c) to
// the webhook.
//
// # Counters and faults
//
// Every API request (both services, not the admin API) is counted under
// "METHOD /v3/route/pattern", e.g. "GET /v3/workspaces/{workspace_id}/devices",
// before faults apply (faulted requests count too); requests matching no
// route count under "METHOD (no route)". Sends lists every job and firmware
// update sent to a device, single or fleet-wide, in order (not persisted),
// where the device's own records keep only the last of each. Faults (see Faults) apply to API
// requests before any state change, except DropAfterCreate, which closes the
// connection without answering after a successful POST acted. With a rate
// limit, rate_limit_headers ("ietf", "draft" or "x"; flag
// -rate-limit-headers) sends the quota headers of that form on every API
// answer, 429s included: the limit of a one-second window, the whole
// requests left in the key's bucket and the whole seconds until it is full.
// quota_spent (a duration, at most a day) makes every API answer say instead that the
// key's quota is used up until that long from now (no request left; in the
// form of rate_limit_headers, "x" when unset), answering the requests as
// usual otherwise, so that a client that sends one anyway is seen.
//
// Request faults (AddRequestFault, POST /admin/faults/requests; listed with
// their hits by RequestFaults and GET /admin/faults/requests, removed by
// RemoveRequestFault, ClearRequestFaults and Reset) aim at chosen requests:
// a method (or any) and a path, where a segment in braces matches any
// segment and a last segment "*" any rest (e.g. "POST
// /v3/workspaces/{workspace_id}/devices", "/v3/*"), for the next count
// matching requests (0: all) and, with "for", during a time window. They
// act before the faults above; the first active one that matches acts:
//
//   - reset: the connection is closed before the service acts;
//   - drop_answer: the service handles the request (acting when it
//     succeeds), then the connection is closed instead of the answer;
//   - delay: the request is held for "delay" (at most an hour), then the
//     service acts even when the client has given up meanwhile;
//   - html_error: a 500 (or "status", 400..599: a proxy's 400 or 403 too)
//     with an HTML error page, as a proxy answers, without acting;
//   - not_found: 404 "404 page not found" in plain text, as a wrong host or
//     port answers, without acting. StartNotFoundTest starts a server that
//     answers so to every path.
//
// Clients that reuse connections may retry an idempotent request (GET)
// transparently after a reset; aim resets at requests that are not.
//
// Changes made outside Terraform are simulated by the Go admin methods
// PurgeJob, PurgeFOTA, RenameFleet, MoveDevice, DeleteDevice, DeleteFleet,
// DeleteWorkspace and RevokeKey and their admin routes.
//
// # Webhooks
//
// A workspace may have a webhook target URL (admin API). Published data
// points are POSTed there as a data batch ({"batch_id", "result": [items]},
// header X-Zdm-Batch-Type: data) followed by an events batch with a "data"
// event per point (X-Zdm-Batch-Type: events); job scheduling and status
// changes, FOTA scheduling and status changes, and ConnectDevice send "job",
// "fota" and "connection" events. Every item has an "id": its position in
// the batch. Delivery is at least once, in order, one batch at a time: a
// batch is retried on a transport error or a non-2xx answer, up to 6
// attempts with backoff from 50 ms doubling to 1 s, then dropped (counted in
// WebhookStats.Failed). Queued batches are not persisted.
//
// # Persistence and performance
//
// With Options.StateFile, all state except counters, faults, choices, device
// behavior, planned device answers and queued webhook batches survives
// restarts. The file is locked (FILE.lock holds the
// server's process ID): a second server on it fails to start. Every change
// is appended to a journal (FILE.journal.N) by one writer goroutine, and an
// answer leaves only once every change before it is written, so a crash of
// the process loses no answered change; with Options.Sync the journal is
// also fsynced first (concurrent requests share one fsync), so an operating
// system crash loses none either (without it, at most the last second). When
// the journal outgrows the snapshot, a snapshot is taken from a copy made
// under the read locks and encoded without them, and the journal starts a
// new generation: the cost of a change does not depend on the size of the
// state. New loads the snapshot, replays the journal (a torn last record is
// cut off), and refuses any inconsistency with one line naming it. Without a
// state file nothing is
// written. Lookups are by map; lists walk per-workspace slices; data points
// are kept sorted per workspace and pre-encoded, so a storage page is a
// binary search plus a copy, streamed to the client.
//
// Size: both services of the API contract with every rule of each endpoint,
// the admin API that scripts them (faults, choices, device behavior, the
// quota a test spends) and the simulated devices, over one store. They are
// one concept, the service a test talks to: its store, faults and settings
// are packages of their own already, and what is left shares the server's
// locked state.
package localzdm
