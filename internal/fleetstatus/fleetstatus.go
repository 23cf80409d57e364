// Package fleetstatus reads the status of a job or of the firmware update of
// many devices at once: one list of the workspace's devices, then one GET
// per device, a bounded number in flight. The provider's zdm_fleet_status
// data source, the waits of the scheduling resources and actions, and the
// staged firmware rollout all read through it; the benchmark measures it.
//
// It holds no Terraform types: it turns client calls into sorted per-device
// results and counts.
package fleetstatus

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// DefaultParallelism is how many device reads are in flight at once unless
// the caller asks otherwise.
const DefaultParallelism = 16

// MaxParallelism bounds the reads in flight: more would only queue behind
// the client's connection pool and the service's rate limits.
const MaxParallelism = 64

// Kind is what is read on each device: a job by name, or the firmware
// update (the zero Kind).
type Kind struct {
	// Job is the job's name; empty means the firmware update.
	Job string
}

// Job is the Kind of a named job.
func Job(name string) Kind { return Kind{Job: name} }

// FOTA is the Kind of the firmware update.
var FOTA = Kind{}

// IsFOTA reports whether k reads the firmware update.
func (k Kind) IsFOTA() bool { return k.Job == "" }

// String names k in messages: `job "reboot"` or "firmware update".
func (k Kind) String() string {
	if k.IsFOTA() {
		return "firmware update"
	}
	return fmt.Sprintf("job %q", k.Job)
}

// Scope is the devices to read: every device of a workspace, or those of
// some fleets, or some devices by ID. FleetIDs and DeviceIDs narrow the
// workspace; when both are set a device must match both.
type Scope struct {
	WorkspaceID string
	FleetIDs    []string
	DeviceIDs   []string
}

// Device is the status of one device.
type Device struct {
	ID        string
	Name      string
	FleetID   string
	CreatedAt string
	// Found is false when the device never got the job or any firmware
	// update (the service answered 404).
	Found       bool
	Status      string
	ScheduledAt string
	// Value is the job's argument object (jobs only).
	Value json.RawMessage
	// FirmwareID and FirmwareVersion name the current update (FOTA only).
	FirmwareID      string
	FirmwareVersion string
}

// Firmware is a firmware ID and version.
type Firmware struct {
	ID      string
	Version string
}

// Has reports whether d's current update is the firmware fw.
func (d Device) Has(fw Firmware) bool {
	return d.Found && d.FirmwareID == fw.ID && d.FirmwareVersion == fw.Version
}

// Result is the status of the devices of a scope, sorted by device ID.
type Result struct {
	Kind    Kind
	Devices []Device
}

// StatusCounts counts the devices by status; devices without the job or
// update are not counted, nor, when fw is not nil, those whose current
// update is another firmware (they are Missing).
func (r *Result) StatusCounts(fw *Firmware) map[string]int {
	out := map[string]int{}
	for _, d := range r.Devices {
		if d.Found && (fw == nil || d.Has(*fw)) {
			out[d.Status]++
		}
	}
	return out
}

// FirmwareCount is how many devices have one firmware as their current
// update.
type FirmwareCount struct {
	Firmware
	Devices int
}

// FirmwareCounts counts the devices by current firmware update, sorted by
// firmware ID then version. It is empty for a job.
func (r *Result) FirmwareCounts() []FirmwareCount {
	if !r.Kind.IsFOTA() {
		return nil
	}
	n := map[Firmware]int{}
	for _, d := range r.Devices {
		if d.Found {
			n[Firmware{d.FirmwareID, d.FirmwareVersion}]++
		}
	}
	out := make([]FirmwareCount, 0, len(n))
	for fw, c := range n {
		out = append(out, FirmwareCount{fw, c})
	}
	slices.SortFunc(out, func(a, b FirmwareCount) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Version, b.Version))
	})
	return out
}

// Missing returns the IDs of the devices that never got the job or update,
// or, when fw is not nil, whose current update is not fw.
func (r *Result) Missing(fw *Firmware) []string {
	var out []string
	for _, d := range r.Devices {
		if !d.Found || (fw != nil && !d.Has(*fw)) {
			out = append(out, d.ID)
		}
	}
	return out
}

// Read lists the devices of scope (one list call, plus one list of the
// fleets when FleetIDs is set, to tell an unknown fleet from an empty one)
// and reads the status of kind on each, at most parallel at a time (0 means
// DefaultParallelism). Every request retries as the client does. The first
// error stops the reads and is returned naming its device. A fleet or device
// of the scope that the workspace does not hold is an error.
func Read(ctx context.Context, c *client.Client, scope Scope, kind Kind, parallel int) (*Result, error) {
	devices, err := ListDevices(ctx, c, scope)
	if err != nil {
		return nil, err
	}
	got, err := ReadDevices(ctx, c, devices, kind, parallel)
	if err != nil {
		return nil, err
	}
	return &Result{Kind: kind, Devices: got}, nil
}

// ListDevices returns the devices of scope, sorted by ID, with one list of
// the workspace's devices (and one of its fleets when FleetIDs is set).
func ListDevices(ctx context.Context, c *client.Client, scope Scope) ([]client.Device, error) {
	if scope.WorkspaceID == "" {
		return nil, errors.New("no workspace given")
	}
	if len(scope.FleetIDs) > 0 {
		fleets, err := c.ListFleets(ctx, scope.WorkspaceID)
		if err != nil {
			return nil, fmt.Errorf("listing the fleets of workspace %s: %w", scope.WorkspaceID, err)
		}
		known := make(map[string]bool, len(fleets))
		for _, f := range fleets {
			known[f.ID] = true
		}
		if unknown := notIn(scope.FleetIDs, known); len(unknown) > 0 {
			return nil, fmt.Errorf("workspace %s has no fleet %s", scope.WorkspaceID, strings.Join(unknown, ", "))
		}
	}
	all, err := c.ListDevices(ctx, scope.WorkspaceID)
	if err != nil {
		return nil, fmt.Errorf("listing the devices of workspace %s: %w", scope.WorkspaceID, err)
	}
	fleets := setOf(scope.FleetIDs)
	wanted := setOf(scope.DeviceIDs)
	if len(scope.DeviceIDs) > 0 {
		present := make(map[string]bool, len(all))
		for _, d := range all {
			present[d.ID] = true
		}
		if unknown := notIn(scope.DeviceIDs, present); len(unknown) > 0 {
			return nil, fmt.Errorf("workspace %s has no device %s", scope.WorkspaceID, strings.Join(unknown, ", "))
		}
	}
	out := make([]client.Device, 0, len(all))
	for _, d := range all {
		if (fleets == nil || fleets[d.FleetID()]) && (wanted == nil || wanted[d.ID]) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b client.Device) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// ReadIDs reads the status of kind on devices known by ID only (no list
// call), sorted by ID; see ReadDevices.
func ReadIDs(ctx context.Context, c *client.Client, ids []string, kind Kind, parallel int) ([]Device, error) {
	devices := make([]client.Device, len(ids))
	for i, id := range ids {
		devices[i] = client.Device{ID: id}
	}
	return ReadDevices(ctx, c, devices, kind, parallel)
}

// ReadDevices reads the status of kind on each device, at most parallel at a
// time (0 means DefaultParallelism; more than MaxParallelism is capped), and
// returns them sorted by device ID. A device that never got the job or an
// update (404, or an answer without a record) has Found false. The first other error cancels the reads
// still in flight and is returned, naming its device.
func ReadDevices(ctx context.Context, c *client.Client, devices []client.Device, kind Kind, parallel int) ([]Device, error) {
	if parallel <= 0 {
		parallel = DefaultParallelism
	}
	parallel = min(parallel, MaxParallelism, max(len(devices), 1))
	out := make([]Device, len(devices))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		once     sync.Once
		firstErr error
	)

	next := make(chan int)
	var wg sync.WaitGroup
	for range parallel {
		wg.Go(func() {
			for i := range next {
				d, err := readOne(ctx, c, devices[i], kind)
				if err != nil {
					once.Do(func() {
						firstErr = fmt.Errorf("reading the %s of device %s: %w", kind, devices[i].ID, err)
						cancel()
					})
					continue
				}
				out[i] = d
			}
		})
	}
feed:
	for i := range devices {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reading the %s of %d devices: %w", kind, len(devices), err)
	}
	slices.SortFunc(out, func(a, b Device) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

func readOne(ctx context.Context, c *client.Client, dev client.Device, kind Kind) (Device, error) {
	d := Device{ID: dev.ID, Name: dev.Name, FleetID: dev.FleetID(), CreatedAt: dev.CreatedAt}
	if kind.IsFOTA() {
		f, err := c.GetFOTA(ctx, dev.ID)
		switch {
		case client.IsNotFound(err), client.IsNeverScheduled(err):
			return d, nil
		case err != nil:
			return d, err
		}
		d.Found, d.Status, d.ScheduledAt = true, f.Status, f.ScheduledAt
		d.FirmwareID, d.FirmwareVersion = f.Value.FirmwareID, f.Value.FirmwareVersion
		return d, nil
	}
	j, err := c.GetJob(ctx, dev.ID, kind.Job)
	switch {
	case client.IsNotFound(err), client.IsNeverScheduled(err):
		return d, nil
	case err != nil:
		return d, err
	}
	d.Found, d.Status, d.ScheduledAt, d.Value = true, j.Status, j.ScheduledAt, j.Value
	return d, nil
}

func setOf(ids []string) map[string]bool {
	if len(ids) == 0 {
		return nil
	}
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// notIn returns the IDs not in known, sorted and without duplicates.
func notIn(ids []string, known map[string]bool) []string {
	var out []string
	for _, id := range ids {
		if !known[id] {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
