package scheduling

import (
	"sync"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// A sender's own record is its ledger (see DESIGN.md, "Device commands are
// sent exactly as often as the configuration asks": the service for the
// present, the record for the past).
//
// The service shows one value of a job name and one firmware per device,
// now: what a resource sent before, that another value (another resource,
// another state, an alias, a -target apply) replaced since, or whose record
// the service purged, is known only to the resource that sent it. So every
// resource that sends a command keeps which devices it reached with which
// command, and the gate (gateFleet, HeldOnDevice) counts a device of that
// record as holding the command as long as the command is unchanged:
//
//   - zdm_fleet_job and fleet-wide zdm_fota keep it in the state's devices,
//     for the command of the state (value or firmware, and triggers):
//     removing a fleet keeps its devices there, adding fleets adds theirs,
//     and only a change of the command starts a new record (Gate.Record,
//     UpdateGate).
//   - zdm_device_job and device-mode zdm_fota: the device, while the state
//     holds the command.
//   - A replacement (taint, -replace, a rename without a moved block) has no
//     prior state: the Delete of the old object, which Terraform runs before
//     the create in the same apply, remembers the record in a registry of the
//     walk (RememberSent), and the Create of the same command on the same
//     workspace and job name (or device) takes it (TakeSent) and passes it to
//     the gate. A change of the value, firmware or triggers is another
//     command: the record does not match, and the command is sent.
//
// With create_before_destroy the create runs first and finds no record: the
// gate then knows only what the service shows.

// sentRegistry holds the records of the objects deleted in this walk, by
// key. Its zero value is ready.
type sentRegistry struct {
	mu sync.Mutex
	m  map[string]sentRecord
}

// sentRecord is a record handed from a Delete to a Create.
type sentRecord struct {
	u      UnfinishedScheduling
	status string
}

// RememberSent, in Delete, remembers the record of the object being
// forgotten: u names the command by Key (the resource type, the workspace
// and job name, or the device: see the resources' record keys), Value and
// Triggers, and holds the devices reached and the scheduled_at; status is
// the last status read ("" when not kept). A record without devices is not
// remembered.
func RememberSent(d *connection.ProviderData, u UnfinishedScheduling, status string) {
	if d == nil || u.Key == "" || len(u.Devices) == 0 {
		return
	}
	r := connection.Registry[sentRegistry](d)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]sentRecord{}
	}
	r.m[u.Key] = sentRecord{u: u, status: status}
}

// TakeSent, in Create, returns the record that a Delete of this walk
// remembered for the same command as planned (known: planned is known), and
// forgets it: one create takes it. It returns nil when there is none.
func TakeSent(d *connection.ProviderData, planned UnfinishedScheduling, known bool) *Sent {
	if d == nil || !known {
		return nil
	}
	r := connection.Registry[sentRegistry](d)
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, ok := r.m[planned.Key]
	if !ok || !rec.u.sameCommand(planned) {
		return nil
	}
	delete(r.m, planned.Key)
	return &Sent{Devices: rec.u.Devices, ScheduledAt: rec.u.ScheduledAt, Status: rec.status}
}
