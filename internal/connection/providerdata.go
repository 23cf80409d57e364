package connection

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// What resources, data sources, list resources and actions receive from
// the provider's Configure, and the default workspace rules.

// ConfigureData turns the ProviderData handed to Configure of a resource or
// data source (named kind, such as "Resource") into *providerData. It returns
// nil without error before the provider is configured, and when the provider
// configuration had values unknown at plan time.
func ConfigureData(kind string, data any, diags *diag.Diagnostics) *ProviderData {
	if data == nil {
		return nil
	}
	d, ok := data.(*ProviderData)
	if !ok {
		diags.AddError("Unexpected "+kind+" Configure Type",
			fmt.Sprintf("Expected *providerData, got %T. Please report this issue to the provider developers.", data))
		return nil
	}
	return d
}

// NotConfigured is the error of an operation that needs the API before the
// provider could be configured.
func NotConfigured(diags *diag.Diagnostics) {
	diags.AddError("Provider not configured",
		"The zdm provider has no API client: its configuration was not known when this operation ran. "+
			"Make sure base_url and api_key (or ZDM_BASE_URL and ZDM_API_KEY) are known before apply.")
}

// Getter holds a configuration, a plan or a state (tfsdk.Config,
// tfsdk.Plan, tfsdk.State).
type Getter interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}

// Decode starts an operation that needs the API: the error of NotConfigured
// when d is nil, otherwise the model M that from holds; ok is false, with
// the error in diags, when either fails.
func Decode[M any](ctx context.Context, d *ProviderData, from Getter, diags *diag.Diagnostics) (m M, ok bool) {
	if d == nil {
		NotConfigured(diags)
		return m, false
	}
	diags.Append(from.Get(ctx, &m)...)
	return m, !diags.HasError()
}

// DecodeUpdate is Decode of an update: the planned and the prior model.
func DecodeUpdate[M any](ctx context.Context, d *ProviderData, plan, state Getter, diags *diag.Diagnostics) (planned, prior M, ok bool) {
	if planned, ok = Decode[M](ctx, d, plan, diags); ok {
		diags.Append(state.Get(ctx, &prior)...)
	}
	return planned, prior, !diags.HasError()
}

// ProviderData is what resources and data sources receive from Configure.
type ProviderData struct {
	Client *client.Client
	// WorkspaceID is the default workspace; empty when not configured.
	WorkspaceID string
	// HasStorage tells whether storage_url was configured.
	HasStorage bool
	// Batch answers reads of devices and fleets from shared list calls.
	Batch batchedReads
	// Visible remembers which workspaces this base_url and key were shown
	// to see (see visibility.go).
	Visible *visibility
	// owned holds the objects the resources manage (see owned.go).
	owned ownedIDs
	// registries hold, per configuration of the provider (one graph walk),
	// what a family remembers between calls: see registry.
	registries sync.Map
	// fleetHolds hold fleets still against moves (see fleetlock.go).
	fleetHolds fleetHolds
}

// Registry returns the registry of type T of this configuration of the
// provider, a zero T on first use. A family keeps there what it must
// remember between calls of one graph walk (devices claimed twice, objects
// created in part, schedulings whose wait failed) without the connection
// knowing what it holds: each family's registry type is its own key.
func Registry[T any](d *ProviderData) *T {
	key := reflect.TypeFor[T]()
	v, ok := d.registries.Load(key)
	if !ok {
		v, _ = d.registries.LoadOrStore(key, new(T))
	}
	r, _ := v.(*T) // stored under its own type's key
	return r
}

// ReadDevice returns device id of workspace ws (see batcher.read).
func (d *ProviderData) ReadDevice(ctx context.Context, ws, id string) (*client.Device, error) {
	if d.Batch.devices == nil {
		return d.Client.GetDevice(ctx, ws, id)
	}
	return d.Batch.devices.read(ctx, ws, id)
}

// ReadFleet returns fleet id of workspace ws (see batcher.read). The
// device lists of ws that start after it keep the devices of fleet id: a
// configuration that manages a fleet is likely to read its devices.
func (d *ProviderData) ReadFleet(ctx context.Context, ws, id string) (*client.Fleet, error) {
	if d.Batch.devices != nil {
		d.Batch.devices.expect(ws, id)
	}
	if d.Batch.fleets == nil {
		return d.Client.GetFleet(ctx, ws, id)
	}
	return d.Batch.fleets.read(ctx, ws, id)
}

// ListDevices returns every device of workspace ws from the shared list of
// this configuration (see batcher.all); callers must not modify them.
func (d *ProviderData) ListDevices(ctx context.Context, ws string) ([]client.Device, error) {
	if d.Batch.devices == nil {
		return d.Client.ListDevices(ctx, ws)
	}
	return d.Batch.devices.all(ctx, ws, nil)
}

// FleetDevices returns a shared list of devices of workspace ws that holds
// every device of fleet (of the whole workspace when fleet is ""), and may
// hold devices of other fleets: callers pick fleet's devices by their
// FleetID, and must not modify them. A device absent from it is absent
// from fleet, never from the workspace.
func (d *ProviderData) FleetDevices(ctx context.Context, ws, fleet string) ([]client.Device, error) {
	if d.Batch.devices == nil {
		return d.Client.ListDevicesOfFleets(ctx, ws, fleetSet(fleet))
	}
	return d.Batch.devices.all(ctx, ws, fleetList(fleet))
}

// DeviceIndex returns FleetDevices(ws, fleet) and its index by ID; both are
// shared: callers must not modify them. Every zdm_fleet_devices of a
// workspace reads from one list that keeps the devices of the fleets they
// manage (see batcher.listed), so a refresh costs one list per workspace
// for a state of one fleet, and holds the devices of the state's fleets,
// whatever the size of the workspace. A device missing from it may be in
// another fleet: it must be read alone before it counts as gone.
func (d *ProviderData) DeviceIndex(ctx context.Context, ws, fleet string) ([]client.Device, *Index[client.Device], error) {
	if d.Batch.devices == nil {
		all, err := d.Client.ListDevicesOfFleets(ctx, ws, fleetSet(fleet))
		if err != nil {
			return nil, nil, err
		}
		return all, IndexDevices(all), nil
	}
	return d.Batch.devices.index(ctx, ws, fleetList(fleet))
}

// fleetSet is fleet as a set of fleets to keep; nil (all) when fleet is "".
func fleetSet(fleet string) map[string]bool {
	if fleet == "" {
		return nil
	}
	return map[string]bool{fleet: true}
}

// fleetList is fleet as a list of fleets to keep; nil (all) when fleet is "".
func fleetList(fleet string) []string {
	if fleet == "" {
		return nil
	}
	return []string{fleet}
}

// ListFleets returns the fleets of workspace ws from the shared list of this
// configuration (see batcher.all); callers must not modify them.
func (d *ProviderData) ListFleets(ctx context.Context, ws string) ([]client.Fleet, error) {
	if d.Batch.fleets == nil {
		return d.Client.ListFleets(ctx, ws)
	}
	return d.Batch.fleets.all(ctx, ws, nil)
}

// WroteDevice records our create or update of device v in ws: the shared
// device list of ws then holds v as the service answered it (see
// batcher.wrote). A nil v (no answer: the outcome is unknown, or a bulk
// write) forgets the list instead.
func (d *ProviderData) WroteDevice(ws string, v *client.Device) {
	if d.Batch.devices != nil {
		d.Batch.devices.wrote(ws, v)
	}
}

// WroteDevices records our creates and updates of devices vs in ws, all
// answered, as WroteDevice does for one: the shared list is copied once.
func (d *ProviderData) WroteDevices(ws string, vs []client.Device) {
	if d.Batch.devices != nil {
		d.Batch.devices.wroteAll(ws, vs)
	}
}

// WroteFleet records our create of fleet v in ws, as WroteDevice does.
func (d *ProviderData) WroteFleet(ws string, v *client.Fleet) {
	if d.Batch.fleets != nil {
		d.Batch.fleets.wrote(ws, v)
	}
}

// Own records that a resource manages the kind object id.
func (d *ProviderData) Own(kind, id string) {
	if d == nil || id == "" {
		return
	}
	d.owned.add(kind, id)
}

// Owns tells whether a resource manages the kind object id.
func (d *ProviderData) Owns(kind, id string) bool {
	return d.owned.has(kind, id)
}

// SawWorkspace records that an answer 200 on a path of workspace ws proved
// it visible to this configuration.
func (d *ProviderData) SawWorkspace(ws string) {
	d.Visible.saw(ws)
}

// ConfirmGone decides what a 404 (notFound) for the kind object id of
// workspace ws means. It returns nil when the object may be removed from the
// state: the workspace is visible, so the object is gone. Otherwise it
// returns the error to report instead, which names base_url, the workspace
// and both answers; the object stays in the state.
func (d *ProviderData) ConfirmGone(ctx context.Context, kind, ws, id string, notFound error) error {
	proof := d.Visible.workspace(ctx, ws)
	if proof == nil {
		return nil
	}
	return errors.New(unprovenNotFound(d.Client.BaseURL(), kind, ws, id, notFound, proof))
}
