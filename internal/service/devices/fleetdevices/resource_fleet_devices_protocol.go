package fleetdevices

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/protoval"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices/bulkwrite"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

// fleetDevicesServer serves zdm_fleet_devices at the protocol level (see
// internal/provider/server.go): each call converts the resource's value once, between the
// protocol's tftypes values and fleetDevicesObject, and the work in between
// is plain Go over maps of strings.
type fleetDevicesServer struct {
	// configured returns what the provider's Configure made; nil before.
	configured func() *connection.ProviderData
}

// NewServer serves zdm_fleet_devices for the provider whose
// Configure result configured returns.
func NewServer(configured func() *connection.ProviderData) *fleetDevicesServer {
	return &fleetDevicesServer{configured: configured}
}

// fleetDevicesPrivate is the private state of the resource.
type fleetDevicesPrivate struct {
	// PlannedCreate is set by the plan of every create. A Delete receives it
	// only as the first half of a replacement: a plain destroy passes the
	// private state of the object, from which Create removes it.
	PlannedCreate bool `json:"planned_create,omitempty"`
	// Imported marks the object of an import until its first read, which
	// fills the map from the fleet: keyed by name, or by ID with KeyByID.
	Imported bool `json:"imported,omitempty"`
	KeyByID  bool `json:"key_by_id,omitempty"`
	// CreateFailed marks an object whose create failed in part: Terraform
	// taints it, and the replacement resumes it (see partialCreates).
	CreateFailed bool `json:"create_failed,omitempty"`
}

func decodePrivate(b []byte) fleetDevicesPrivate {
	var p fleetDevicesPrivate
	if len(b) > 0 {
		_ = json.Unmarshal(b, &p) // private state written by another version reads as empty
	}
	return p
}

func (p fleetDevicesPrivate) bytes() []byte {
	if p == (fleetDevicesPrivate{}) {
		return nil
	}
	b, _ := json.Marshal(p) //nolint:errchkjson // a struct of bools always encodes
	return b
}

// data is the provider's configured data, nil before configuration.
func (s *fleetDevicesServer) data() *connection.ProviderData { return s.configured() }

func (s *fleetDevicesServer) ValidateResourceConfig(_ context.Context, req *tfprotov6.ValidateResourceConfigRequest) *tfprotov6.ValidateResourceConfigResponse {
	cfg, _, err := decodeFleetDevices(req.Config)
	if err != nil {
		return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: protoval.ErrorDiagnostics("Invalid zdm_fleet_devices configuration", err.Error())}
	}
	var diags diag.Diagnostics
	validateFleetDevicesConfig(&cfg, &diags)
	return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: protoval.ProtoDiagnostics(diags)}
}

// validateFleetDevicesConfig checks what can be checked of a configuration
// before any API call: blank IDs, the parallelism range, keys and names.
func validateFleetDevicesConfig(cfg *fleetDevicesObject, diags *diag.Diagnostics) {
	for name, v := range map[string]protoval.String{"workspace_id": cfg.workspaceID, "fleet_id": cfg.fleetID} {
		if v.IsKnown() && strings.TrimSpace(v.S) == "" {
			validators.AddBlankValueError(path.Root(name), diags)
		}
	}
	if p := cfg.parallelism; !p.Null && !p.Unknown && (p.N < 1 || p.N > maxDeviceParallelism) {
		diags.AddAttributeError(path.Root("parallelism"), "Invalid parallelism",
			fmt.Sprintf("parallelism must be between 1 and %d, got %d.", maxDeviceParallelism, p.N))
	}
	root := path.Root("devices")
	for _, key := range slices.Sorted(maps.Keys(cfg.devices.M)) {
		name := cfg.devices.M[key]
		switch {
		case strings.TrimSpace(key) == "":
			diags.AddAttributeError(root.AtMapKey(key), "Invalid devices key", "The keys of devices must not be empty or blank.")
		case name.Null:
			diags.AddAttributeError(root.AtMapKey(key), "Missing device name",
				"devices["+connection.Quote(key)+"] is null: give every key of devices a name (the key itself, if you like).")
		case name.IsKnown() && strings.TrimSpace(name.S) == "":
			diags.AddAttributeError(root.AtMapKey(key), "Invalid device name",
				"The name devices["+connection.Quote(key)+"] must contain at least one character that is not white space.")
		}
	}
}

func (s *fleetDevicesServer) UpgradeResourceState(_ context.Context, req *tfprotov6.UpgradeResourceStateRequest) *tfprotov6.UpgradeResourceStateResponse {
	if req.Version != 0 {
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: protoval.ErrorDiagnostics("Unknown zdm_fleet_devices state version",
			fmt.Sprintf("The state of this resource has schema version %d, which this provider version does not know: it "+
				"was written by a newer provider. Use that provider version.", req.Version))}
	}
	if req.RawState == nil || req.RawState.JSON == nil {
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: protoval.ErrorDiagnostics("Cannot read the zdm_fleet_devices state",
			"The state holds no JSON for this resource.")}
	}
	if stateHasSchemaAttributes(req.RawState.JSON) {
		// The state of this version, written by this schema: Terraform
		// reads the JSON as it is, and a hundred thousand devices cost no
		// conversion here.
		return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &tfprotov6.DynamicValue{JSON: req.RawState.JSON}}
	}
	v, err := req.RawState.UnmarshalWithOpts(fleetDevicesType, tfprotov6.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true}})
	if err != nil {
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: protoval.ErrorDiagnostics("Cannot read the zdm_fleet_devices state",
			"The state of this resource does not match its schema: "+err.Error()+". If it was written by a development "+
				"build of the provider, remove it with terraform state rm and import the fleet again.")}
	}
	dv, err := tfprotov6.NewDynamicValue(fleetDevicesType, v)
	if err != nil {
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: protoval.ErrorDiagnostics("Cannot encode the zdm_fleet_devices state", err.Error())}
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &dv}
}

func (s *fleetDevicesServer) ImportResourceState(_ context.Context, req *tfprotov6.ImportResourceStateRequest) *tfprotov6.ImportResourceStateResponse {
	fail := func(summary, detail string) *tfprotov6.ImportResourceStateResponse {
		return &tfprotov6.ImportResourceStateResponse{Diagnostics: protoval.ErrorDiagnostics(summary, detail)}
	}
	format := `expected "<workspace_id>/<fleet_id>", "<fleet_id>" (in the provider's workspace) or ` +
		`"<workspace_id>/<fleet_id>/by-id" (to key the devices by ID)`
	var ws, fleet string
	keyByID := false
	if req.ID == "" && req.Identity != nil && req.Identity.IdentityData != nil {
		v, err := req.Identity.IdentityData.Unmarshal(fleetDevicesIdentityType)
		if err != nil {
			return fail("Invalid import identity", err.Error())
		}
		attrs, err := protoval.ObjectAttributes(v)
		if err != nil {
			return fail("Invalid import identity", err.Error())
		}
		w, _ := protoval.DecodeString(attrs["workspace_id"])
		f, _ := protoval.DecodeString(attrs["fleet_id"])
		if !f.IsKnown() || strings.TrimSpace(f.S) == "" || (!w.Null && strings.TrimSpace(w.S) == "") {
			return fail("Invalid import identity",
				`The identity of a zdm_fleet_devices needs a non-empty fleet_id: identity = { workspace_id = "<workspace_id>", `+
					`fleet_id = "<fleet_id>" } (workspace_id may be left out to use the provider's workspace_id).`)
		}
		ws, fleet = w.S, f.S
	} else {
		parts := strings.Split(req.ID, "/")
		if len(parts) == 3 && parts[2] == "by-id" {
			keyByID = true
			parts = parts[:2]
		}
		switch {
		case len(parts) == 1 && strings.TrimSpace(parts[0]) != "":
			fleet = parts[0]
		case len(parts) == 2 && strings.TrimSpace(parts[0]) != "" && strings.TrimSpace(parts[1]) != "":
			ws, fleet = parts[0], parts[1]
		default:
			return fail("Invalid import ID", "Import ID "+connection.Quote(req.ID)+": "+format+".")
		}
	}
	if ws == "" {
		if d := s.data(); d == nil || d.WorkspaceID == "" {
			return fail("Invalid import ID",
				"The import names no workspace and the provider has no workspace_id (nor "+connection.EnvWorkspaceID+"): "+format+".")
		}
		ws = s.data().WorkspaceID
	}
	o := fleetDevicesObject{workspaceID: protoval.KnownString(ws), fleetID: protoval.KnownString(fleet), fleetName: protoval.NullString,
		allowDuplicates: protoval.Bool{Null: true},
		parallelism:     protoval.Int{N: defaultDeviceParallelism}, includeDetails: protoval.Bool{}, devices: protoval.StringMap{Null: true},
		deviceIDs: protoval.StringMap{Null: true}, elsewhere: protoval.StringMap{Null: true}, details: fleetDetails{null: true}}
	state, err := o.dynamicValue()
	if err != nil {
		return fail("Cannot encode the imported state", err.Error())
	}
	ident, err := o.identity()
	if err != nil {
		return fail("Cannot encode the imported identity", err.Error())
	}
	return &tfprotov6.ImportResourceStateResponse{ImportedResources: []*tfprotov6.ImportedResource{{
		TypeName: req.TypeName, State: state, Identity: ident,
		Private: fleetDevicesPrivate{Imported: true, KeyByID: keyByID}.bytes(),
	}}}
}

func (s *fleetDevicesServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) *tfprotov6.ReadResourceResponse {
	resp := &tfprotov6.ReadResourceResponse{NewState: req.CurrentState, Private: req.Private}
	state, null, err := decodeFleetDevices(req.CurrentState)
	if err != nil {
		resp.Diagnostics = protoval.ErrorDiagnostics("Cannot read the zdm_fleet_devices state", err.Error())
		return resp
	}
	if null {
		return resp
	}
	if resp.NewIdentity, err = state.identity(); err != nil {
		resp.Diagnostics = protoval.ErrorDiagnostics("Cannot encode the identity", err.Error())
		return resp
	}
	d := s.data()
	if d == nil {
		return resp // not configured yet: the state stays as it is
	}
	private := decodePrivate(req.Private)
	var applied map[string]protoval.String
	if private.CreateFailed {
		applied = maps.Clone(state.devices.M) // the read records the names the service shows
	}
	var diags diag.Diagnostics
	s.read(ctx, d, &state, private, &diags)
	if private.CreateFailed && !diags.HasError() {
		connection.Registry[partialCreates](d).remember(&state, applied) // Terraform tainted it: its replacement resumes it
	}
	resp.Diagnostics = protoval.ProtoDiagnostics(diags)
	if diags.HasError() {
		return resp
	}
	private.Imported, private.KeyByID = false, false
	resp.Private = private.bytes()
	// The identity set above stays: a read changes neither workspace_id nor
	// fleet_id.
	if resp.NewState, err = state.dynamicValue(); err != nil {
		resp.Diagnostics = append(resp.Diagnostics, protoval.ErrorDiagnostics("Cannot encode the state", err.Error())...)
	}
	return resp
}

// read refreshes state from one list of the workspace. A device missing
// from the list is read alone and leaves the map only when that read
// answers 404 (the list answered, so the workspace is visible).
func (s *fleetDevicesServer) read(ctx context.Context, d *connection.ProviderData, state *fleetDevicesObject, private fleetDevicesPrivate, diags *diag.Diagnostics) {
	ws, fleet := state.workspaceID.S, state.fleetID.S
	what := describeFleetDevices(ws, fleet)
	if state.parallelism.Null || state.parallelism.Unknown {
		state.parallelism = protoval.Int{N: defaultDeviceParallelism}
	}
	if state.includeDetails.Null || state.includeDetails.Unknown {
		state.includeDetails = protoval.Bool{}
	}

	// One list answers every device, shared with the other resources of
	// the workspace (see connection.DeviceIndex). A failed list is an
	// error: it never means that the devices are gone.
	all, byID, err := d.DeviceIndex(ctx, ws, fleet)
	if err != nil {
		diags.AddError("Cannot read the devices of "+what,
			"Listing the devices of the workspace failed, so the state is left as it was: "+connection.DescribeError(err, ws))
		return
	}
	d.SawWorkspace(ws) // the list answered: a 404 below means gone
	if name := fleetNameIn(all, fleet); name != "" {
		state.fleetName = protoval.KnownString(name)
	}

	found := map[string]*client.Device{}
	if state.devices.Null && state.deviceIDs.Null && private.Imported {
		if !s.importDevices(ctx, d, state, all, private.KeyByID, found, diags) {
			return
		}
	} else {
		s.refreshDevices(ctx, d, state, byID, found, diags)
		if diags.HasError() {
			return
		}
	}
	state.setFound(found)

	for _, k := range slices.Sorted(maps.Keys(found)) {
		d.Own("device", found[k].ID)
	}
	if !private.Imported {
		claims := make(map[string]string, len(found))
		for k, dev := range found {
			claims[dev.ID] = k
		}
		if lines := connection.Registry[devices.DeviceClaims](d).ClaimDevices(what, claims); len(lines) > 0 {
			diags.AddWarning(devices.TwiceManagedWarning(lines))
		}
		warnTwins(state, all, found, diags) // fleet_devices_twins.go
	}
}

// refreshDevices finds the devices of the state in the list (byID), and
// reads those missing from it alone.
func (s *fleetDevicesServer) refreshDevices(ctx context.Context, d *connection.ProviderData, state *fleetDevicesObject,
	byID *connection.Index[client.Device], found map[string]*client.Device, diags *diag.Diagnostics) {
	ws := state.workspaceID.S
	var missing []string
	for k, e := range state.entries() {
		if e.id == "" {
			continue // a failed create: nothing to read
		}
		if dev, ok := byID.Get(e.id); ok {
			found[k] = dev
		} else {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return
	}
	sort.Strings(missing)
	ids := make([]string, len(missing))
	for i, k := range missing {
		ids[i] = state.deviceIDs.M[k].S
	}
	got := make([]*client.Device, len(missing))
	errs := make([]error, len(missing))
	connection.RunBounded(ctx, len(missing), int(state.parallelism.N), func(i int) {
		got[i], errs[i] = d.Client.GetDevice(ctx, ws, ids[i])
	})
	var gone []string
	for i, k := range missing {
		switch err := errs[i]; {
		case err == nil && got[i] != nil:
			found[k] = got[i]
		case client.IsNotFound(err):
			if err := d.ConfirmGone(ctx, "device", ws, ids[i], err); err != nil {
				diags.AddError("Cannot read device "+ids[i]+" of workspace "+ws, err.Error())
				continue
			}
			gone = append(gone, fmt.Sprintf("%s (%s)", connection.Quote(k), ids[i]))
			delete(state.devices.M, k) // a key still configured creates a new device
		case err == nil:
			err = ctx.Err()
			fallthrough
		default:
			diags.AddError("Cannot read device "+ids[i]+" of workspace "+ws,
				"The device is not in the list of its workspace and reading it alone failed, so the state is left as it was: "+
					fmt.Sprint(err))
		}
	}
	if len(gone) > 0 {
		tflog.Warn(ctx, "devices not found; removing them from the map", map[string]any{"workspace_id": ws, "count": len(gone)})
		diags.AddWarning("Devices no longer exist",
			fmt.Sprintf("%d devices of the map no longer exist in the service (the service answered 404 for each); "+
				"they leave the state, and keys still in the configuration will create new devices: %s.", len(gone), devices.ListSome(gone)))
	}
}

// importDevices fills the state of an import with every device of the
// fleet, keyed by name (or by ID).
func (s *fleetDevicesServer) importDevices(ctx context.Context, d *connection.ProviderData, state *fleetDevicesObject, all []client.Device,
	keyByID bool, found map[string]*client.Device, diags *diag.Diagnostics) bool {
	ws, fleet := state.workspaceID.S, state.fleetID.S
	byKey, shared := fleetDevicesByKey(all, fleet, keyByID)
	maps.Copy(found, byKey)
	var clash []string
	for _, k := range slices.Sorted(maps.Keys(shared)) {
		clash = append(clash, fmt.Sprintf("%s (%s)", connection.Quote(k), strings.Join(shared[k], ", ")))
	}
	if len(clash) > 0 {
		diags.AddError("Cannot import the devices of fleet "+connection.Quote(fleet)+": duplicate names",
			fmt.Sprintf("The devices map is keyed by device name, and %d names are used by several devices of the fleet: %s. "+
				"Either give those devices unique names in the service, or import with the ID \"%s/%s/by-id\" to key "+
				"the map by device ID (then write each entry as \"<device_id>\" = \"<name>\").",
				len(clash), devices.ListSome(clash), ws, fleet))
		return false
	}
	if len(found) == 0 {
		// An empty fleet: check that it exists, and read its name.
		f, err := d.Client.GetFleet(ctx, ws, fleet)
		switch {
		case client.IsNotFound(err):
			objects.NotFoundAtImport(diags, "fleet", "fleet "+connection.Quote(fleet)+" of workspace "+connection.Quote(ws))
			return false
		case err != nil:
			diags.AddError("Cannot read fleet "+connection.Quote(fleet)+" of workspace "+connection.Quote(ws), err.Error())
			return false
		}
		state.fleetName = protoval.KnownString(f.Name)
	}
	state.devices = protoval.StringMap{M: map[string]protoval.String{}}
	return true
}

func (s *fleetDevicesServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) *tfprotov6.PlanResourceChangeResponse {
	// The identity may change at apply (a move to another fleet changes
	// fleet_id; the identity is declared mutable).
	resp := &tfprotov6.PlanResourceChangeResponse{PlannedState: req.ProposedNewState, PlannedPrivate: req.PriorPrivate,
		PlannedIdentity: req.PriorIdentity}
	prior, priorNull, err := decodeFleetDevices(req.PriorState)
	if err != nil {
		resp.Diagnostics = protoval.ErrorDiagnostics("Cannot read the zdm_fleet_devices state", err.Error())
		return resp
	}
	proposed, destroy, err := decodeFleetDevices(req.ProposedNewState)
	if err != nil {
		resp.Diagnostics = protoval.ErrorDiagnostics("Cannot read the zdm_fleet_devices plan", err.Error())
		return resp
	}
	var diags diag.Diagnostics
	if destroy {
		entries := prior.entries()
		if held := heldKeys(entries); len(held) > 0 {
			diags.AddWarning("Destroying zdm_fleet_devices only removes its devices from the Terraform state",
				fmt.Sprintf("The ZDM API has no delete operation: the %d devices of this resource stay in the service "+
					"after this destroy, and Terraform stops managing them: %s.", len(held), devicesRef(entries, held)))
		}
		resp.Diagnostics = protoval.ProtoDiagnostics(diags)
		return resp
	}
	cfg, _, err := decodeFleetDevices(req.Config)
	if err != nil {
		resp.Diagnostics = protoval.ErrorDiagnostics("Cannot read the zdm_fleet_devices configuration", err.Error())
		return resp
	}
	var priorPtr *fleetDevicesObject
	if !priorNull {
		priorPtr = &prior
	}
	replace := s.plan(priorPtr, &cfg, &proposed, &diags)
	if !diags.HasError() && proposed.workspaceID.IsKnown() && proposed.fleetID.IsKnown() &&
		(priorPtr == nil || replace || prior.fleetID.S != proposed.fleetID.S) {
		// A create in, or a move to, a fleet of another workspace.
		objects.CheckFleetInWorkspace(ctx, s.data(), path.Root("fleet_id"), proposed.workspaceID.S, proposed.fleetID.S, &diags)
	}
	if !replace && !diags.HasError() {
		// A replacement's create is planned again with no prior state.
		s.gate(ctx, priorPtr, &cfg, &proposed, &diags)
	}
	if diags.HasError() {
		resp.Diagnostics = protoval.ProtoDiagnostics(diags)
		return resp
	}
	if replace {
		resp.RequiresReplace = []*tftypes.AttributePath{tftypes.NewAttributePath().WithAttributeName("workspace_id")}
	}
	private := decodePrivate(req.PriorPrivate)
	private.PlannedCreate = priorNull || replace
	resp.PlannedPrivate = private.bytes()
	if resp.PlannedState, err = proposed.dynamicValue(); err != nil {
		diags.AddError("Cannot encode the plan", err.Error())
	}
	resp.Diagnostics = protoval.ProtoDiagnostics(diags)
	return resp
}

// namesToCheck tells whether the names plan gives devices can be checked
// now, in the gate against the service and in the walk's claims: not with
// allow_duplicate_names, and not while the workspace, the names or the
// fleet are unknown (the final plan at apply checks them). fleet is the
// plan's fleet, "" for the workspace's default fleet.
func namesToCheck(cfg, plan *fleetDevicesObject) (fleet string, ok bool) {
	if plan.allowDuplicates.B || plan.allowDuplicates.Unknown || !plan.workspaceID.IsKnown() ||
		plan.devices.Unknown || plan.deviceIDs.Unknown {
		return "", false
	}
	if plan.fleetID.IsKnown() {
		return plan.fleetID.S, true
	}
	return "", cfg.fleetID.Null // a configured fleet not known yet waits
}

// refuseDuplicates fails a plan that gives devices names that other
// devices of the target fleet have, which the plan does not keep under a
// key (see devices.FleetNames): names it creates, and names that devices
// of record (the prior state, or the object a create resumes; nil for
// neither) take by a rename, or keep while they move to the fleet. It
// sends nothing when the plan gives no name, or when the workspace, the
// fleet or the names are not known yet: Terraform's final plan at apply
// checks them then.
func (s *fleetDevicesServer) refuseDuplicates(ctx context.Context, record, cfg, plan *fleetDevicesObject, diags *diag.Diagnostics) {
	d := s.data()
	if d == nil {
		return
	}
	fleet, ok := namesToCheck(cfg, plan)
	if !ok {
		return
	}
	// What each device of record is now: by ID, as keys may change.
	type was struct{ name, elsewhere string }
	before := map[string]was{}
	moved := false
	if record != nil {
		for _, e := range record.entries() {
			if e.id != "" {
				before[e.id] = was{e.name, e.elsewhere}
			}
		}
		moved = fleet != "" && fleet != record.fleetID.S
	}
	created, arriving := map[string]bool{}, map[string]bool{}
	held := map[string]bool{}
	for k, id := range plan.deviceIDs.M {
		name := plan.devices.M[k]
		switch {
		case !name.IsKnown():
		case !id.IsKnown():
			created[name.S] = true
		default:
			w, ok := before[id.S]
			if !ok || moved || w.name != name.S || w.elsewhere != "" {
				arriving[name.S] = true
			}
		}
		if id.IsKnown() {
			held[id.S] = true
		}
	}
	if len(created)+len(arriving) == 0 {
		return
	}
	ws := plan.workspaceID.S
	devices.FleetNames{Attr: path.Root("devices"), Ws: ws, Fleet: fleet, Created: created, Arriving: arriving, Held: held,
		Import: func(fleet string, _ []objects.NameClash) string {
			return "into this zdm_fleet_devices: the import takes every device of the fleet, keyed by name, and the " +
				"next apply gives each key of the configuration the device of its name (the other keys are forgotten). " +
				"Use an import block such as this one, in which to is the address of this resource (write it: the " +
				"provider is not told it), when the resource is not in the state (else run terraform state rm on its " +
				"address first), then apply again:" + devices.ImportBlocks("zdm_fleet_devices",
				"zdm_fleet_devices.<name of this resource>", []string{fleet}, func(f string) string { return ws + "/" + f }) +
				"\n\nOn Terraform 1.14 and later, terraform query with a list \"zdm_device\" block (config { fleet_id = " +
				connection.Quote(fleet) + " }) lists the fleet's devices."
		}}.Refuse(ctx, d, diags)
}

// plan turns the proposed new state into the planned one (prior is nil for
// a create), and reports whether the change of workspace_id replaces the
// resource.
func (s *fleetDevicesServer) plan(prior, cfg, plan *fleetDevicesObject, diags *diag.Diagnostics) bool {
	d := s.data()
	// The provider's workspace_id is a default for new objects only.
	if d != nil {
		what := "The zdm_fleet_devices"
		var priorWS *protoval.String
		if prior != nil {
			priorWS = &prior.workspaceID
		}
		if ws, set := objects.PlanWorkspaceRule(d, "zdm_fleet_devices", what, cfg.workspaceID, priorWS, diags); set {
			plan.workspaceID = ws
		}
		if diags.HasError() {
			return false
		}
	} else if prior == nil && plan.workspaceID.Null {
		plan.workspaceID = protoval.UnknownString // the provider is configured at apply time
	}
	replace := prior != nil && plan.workspaceID.IsKnown() && plan.workspaceID.S != prior.workspaceID.S
	if plan.workspaceID.Unknown && prior != nil {
		replace = true
	}
	var priorEntries map[string]fleetDevice
	if prior != nil && !replace {
		priorEntries = prior.entries()
	}
	if replace {
		entries := prior.entries()
		if held := heldKeys(entries); len(held) > 0 {
			diags.AddWarning("Replacing zdm_fleet_devices leaves the old devices in the service",
				fmt.Sprintf("A change of workspace_id needs new devices. The ZDM API has no delete operation: the %d "+
					"devices of workspace %s stay in the service and Terraform stops managing them; new devices will be "+
					"created in workspace %s: %s.", len(held), connection.Quote(prior.workspaceID.S), connection.Quote(plan.workspaceID.S),
					devicesRef(entries, held)))
		}
	}

	if cfg.parallelism.Null {
		plan.parallelism = protoval.Int{N: defaultDeviceParallelism}
	}
	if cfg.includeDetails.Null {
		plan.includeDetails = protoval.Bool{}
	}
	if cfg.fleetID.Null {
		// The prior fleet (kept), or the default fleet that the first
		// creates tell.
		plan.fleetID = protoval.NullString
		if prior != nil && !replace {
			plan.fleetID = prior.fleetID
		}
	}
	target := plan.fleetID

	// Devices: the configured names; IDs known for the devices that exist.
	switch {
	case plan.devices.Unknown:
		plan.deviceIDs = protoval.StringMap{Unknown: true}
		plan.elsewhere = protoval.StringMap{Unknown: true}
		plan.details = fleetDetails{unknown: true, null: false}
		if !plan.includeDetails.Unknown && !plan.includeDetails.B {
			plan.details = fleetDetails{null: true}
		}
		if target.Null {
			plan.fleetID = protoval.UnknownString
		}
		plan.fleetName = protoval.UnknownString
		return replace
	default:
		ids := make(map[string]protoval.String, len(plan.devices.M))
		for k := range plan.devices.M {
			if e, ok := priorEntries[k]; ok && e.id != "" {
				ids[k] = protoval.KnownString(e.id)
			} else {
				ids[k] = protoval.UnknownString
			}
		}
		plan.deviceIDs = protoval.StringMap{M: ids}
		plan.elsewhere = protoval.StringMap{M: map[string]protoval.String{}}
	}
	planDetails(prior, priorEntries, target, plan)
	if target.Null && len(plan.devices.M) > 0 {
		// New devices go to the default fleet, which their creation tells.
		plan.fleetID = protoval.UnknownString
	}

	// fleet_name is known while the fleet does not change.
	plan.fleetName = protoval.UnknownString
	switch {
	case prior != nil && !replace && plan.fleetID.IsKnown() && plan.fleetID == prior.fleetID && !prior.fleetName.Null:
		plan.fleetName = prior.fleetName
	case prior != nil && !replace && plan.fleetID.Null && prior.fleetID.Null && len(plan.devices.M) == 0:
		plan.fleetName = protoval.NullString
	case prior == nil && plan.fleetID.Null:
		plan.fleetName = protoval.NullString
	}

	// The devices of removed keys are forgotten, or carried over to new
	// keys, by the gate (fleet_devices_gate.go).
	return replace
}

// planDetails plans device_details: null unless include_details; an
// unchanged device keeps its details, others are known after apply.
func planDetails(prior *fleetDevicesObject, priorEntries map[string]fleetDevice, target protoval.String, plan *fleetDevicesObject) {
	switch {
	case plan.includeDetails.Unknown:
		plan.details = fleetDetails{unknown: true}
		return
	case !plan.includeDetails.B:
		plan.details = fleetDetails{null: true}
		return
	}
	out := make(map[string]fleetDeviceDetail, len(plan.devices.M))
	for k, name := range plan.devices.M {
		e, ok := priorEntries[k]
		pd, had := fleetDeviceDetail{}, false
		if prior != nil && prior.details.m != nil {
			pd, had = prior.details.m[k]
		}
		if !ok || e.id == "" || !had {
			d := unknownDetail
			if e.id != "" {
				d.id = protoval.KnownString(e.id)
			}
			d.name = name
			if target.IsKnown() {
				d.fleetID = target
			}
			out[k] = d
			continue
		}
		d := pd
		d.name = name
		if target.IsKnown() {
			d.fleetID = target
		} else {
			d.fleetID = protoval.UnknownString
		}
		if d.name != pd.name || d.fleetID != pd.fleetID {
			d.identities = protoval.UnknownString // as the update answers
		}
		out[k] = d
	}
	plan.details = fleetDetails{m: out}
}

func (s *fleetDevicesServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) *tfprotov6.ApplyResourceChangeResponse {
	resp := &tfprotov6.ApplyResourceChangeResponse{NewState: req.PlannedState, Private: req.PlannedPrivate}
	prior, priorNull, err := decodeFleetDevices(req.PriorState)
	if err != nil {
		resp.Diagnostics = protoval.ErrorDiagnostics("Cannot read the zdm_fleet_devices state", err.Error())
		return resp
	}
	planned, destroy, err := decodeFleetDevices(req.PlannedState)
	if err != nil {
		resp.Diagnostics = protoval.ErrorDiagnostics("Cannot read the zdm_fleet_devices plan", err.Error())
		return resp
	}
	var diags diag.Diagnostics
	private := decodePrivate(req.PlannedPrivate)
	if destroy {
		s.delete(&prior, private, &diags)
		resp.Diagnostics = protoval.ProtoDiagnostics(diags)
		if diags.HasError() {
			resp.NewState = req.PriorState
		}
		return resp
	}
	d := s.data()
	if d == nil {
		diags := diag.Diagnostics{}
		connection.NotConfigured(&diags)
		resp.Diagnostics = protoval.ProtoDiagnostics(diags)
		resp.NewState = req.PriorState
		return resp
	}
	var state fleetDevicesObject
	if priorNull {
		state, err = s.create(ctx, d, &planned, &diags)
		private.CreateFailed = diags.HasError()
	} else {
		state, err = s.update(ctx, d, &prior, &planned, &diags)
		private.CreateFailed = private.CreateFailed && diags.HasError()
	}
	if err != nil {
		// Nothing was sent: the state stays as it was.
		resp.Diagnostics = protoval.ProtoDiagnostics(diags)
		resp.NewState = req.PriorState
		return resp
	}
	checkTwins(ctx, d, priorOrNil(&prior, priorNull), &state, &diags) // fleet_devices_twins.go
	private.PlannedCreate = false
	resp.Private = private.bytes()
	if resp.NewState, err = state.dynamicValue(); err != nil {
		diags.AddError("Cannot encode the state", err.Error())
	}
	if resp.NewIdentity, err = state.identity(); err != nil {
		diags.AddError("Cannot encode the identity", err.Error())
	}
	resp.Diagnostics = protoval.ProtoDiagnostics(diags)
	return resp
}

// errNothingSent ends an apply that sent nothing; its diagnostics say why.
var errNothingSent = errors.New("nothing sent")

// fleetOf returns the fleet of id in ws, for its name, or reports why it
// cannot be used.
func fleetOf(ctx context.Context, d *connection.ProviderData, ws, id string, diags *diag.Diagnostics) *client.Fleet {
	f, err := d.Client.GetFleet(ctx, ws, id)
	switch {
	case client.IsNotFound(err):
		diags.AddAttributeError(path.Root("fleet_id"), "Fleet not found",
			"Fleet "+connection.Quote(id)+" does not exist in workspace "+connection.Quote(ws)+", or the API key cannot see it: no device "+
				"was created or moved. Check fleet_id.")
		return nil
	case err != nil:
		diags.AddError("Cannot read fleet "+connection.Quote(id)+" of workspace "+connection.Quote(ws), err.Error())
		return nil
	}
	return f
}

func (s *fleetDevicesServer) create(ctx context.Context, d *connection.ProviderData, plan *fleetDevicesObject, diags *diag.Diagnostics) (fleetDevicesObject, error) {
	planned := types.StringNull() // unknown at plan time when the provider was not configured yet
	if plan.workspaceID.IsKnown() {
		planned = types.StringValue(plan.workspaceID.S)
	}
	ws := objects.WorkspaceOrDefault(d, planned, path.Root("workspace_id"), diags)
	if diags.HasError() {
		return fleetDevicesObject{}, errNothingSent
	}
	state := fleetDevicesObject{workspaceID: protoval.KnownString(ws), fleetID: protoval.NullString, fleetName: protoval.NullString,
		allowDuplicates: plan.allowDuplicates,
		parallelism:     plan.parallelism, includeDetails: plan.includeDetails, devices: plan.devices}
	fleet := ""
	if plan.fleetID.IsKnown() {
		fleet = plan.fleetID.S
		f := fleetOf(ctx, d, ws, fleet, diags)
		if f == nil {
			return fleetDevicesObject{}, errNothingSent
		}
		state.fleetID, state.fleetName = protoval.KnownString(f.ID), protoval.KnownString(f.Name)
	}
	keys := slices.Sorted(maps.Keys(plan.devices.M))
	// Keys planned with a known ID resume a create that failed in part
	// (planResume): their devices exist; those whose name or fleet differs
	// from the plan are updated, the others only read.
	found, held := resumed(ctx, d, ws, plan, diags)
	writes := make([]bulkwrite.Write, 0, len(keys))
	for _, k := range keys {
		name := plan.devices.M[k].S
		if id, ok := plan.deviceIDs.M[k]; ok && id.IsKnown() {
			if dev := found[k]; dev != nil && (dev.Name != name || (fleet != "" && dev.FleetID() != fleet)) {
				writes = append(writes, bulkwrite.Write{Key: k, ID: dev.ID, Name: name, Fleet: fleet})
			}
			continue
		}
		writes = append(writes, bulkwrite.Write{Key: k, Name: name, Fleet: fleet})
	}
	res := bulkwrite.Devices(ctx, d, ws, writes, int(plan.parallelism.N), held)
	for i, w := range writes {
		// A failed update keeps the device as it was read.
		if dev := res.Outcomes[i].Device; dev != nil {
			found[w.Key] = dev
			if state.fleetName.Null && dev.FleetID() == res.Fleet {
				state.fleetName = protoval.KnownString(dev.FleetName())
			}
		}
	}
	if fleet == "" && res.Fleet != "" {
		state.fleetID = protoval.KnownString(res.Fleet)
	}
	state.setFound(found)
	tflog.Debug(ctx, "created the devices of a fleet", map[string]any{"workspace_id": ws, "count": len(found)})
	reportWrites("create", describeFleetDevices(ws, state.fleetID.S), writes, res.Outcomes, diags)
	return state, nil
}

func (s *fleetDevicesServer) update(ctx context.Context, d *connection.ProviderData, prior, plan *fleetDevicesObject, diags *diag.Diagnostics) (fleetDevicesObject, error) {
	ws := prior.workspaceID.S
	state := fleetDevicesObject{workspaceID: prior.workspaceID, fleetID: prior.fleetID, fleetName: prior.fleetName,
		allowDuplicates: plan.allowDuplicates,
		parallelism:     plan.parallelism, includeDetails: plan.includeDetails}
	fleet := prior.fleetID.S
	if plan.fleetID.IsKnown() && plan.fleetID.S != fleet {
		fleet = plan.fleetID.S
		f := fleetOf(ctx, d, ws, fleet, diags)
		if f == nil {
			return fleetDevicesObject{}, errNothingSent
		}
		state.fleetID, state.fleetName = protoval.KnownString(f.ID), protoval.KnownString(f.Name)
	}

	priorEntries := prior.entries()
	held := make(map[string]bool, len(priorEntries))
	keyOf := make(map[string]string, len(priorEntries)) // ID -> key in the prior state
	for k, e := range priorEntries {
		if e.id != "" {
			held[e.id] = true
			keyOf[e.id] = k
		}
	}
	// src is the key of the prior state whose device a key of the plan has:
	// the key itself, or the key the gate carried the device over from.
	src := make(map[string]string, len(plan.devices.M))
	// The names of the new state: the planned ones, except where a write
	// fails (below).
	names := make(map[string]protoval.String, len(plan.devices.M))
	var writes []bulkwrite.Write
	var kept []string // keys whose device needs no write
	for _, k := range slices.Sorted(maps.Keys(plan.devices.M)) {
		name := plan.devices.M[k].S
		names[k] = protoval.KnownString(name)
		src[k] = k
		if id := plan.deviceIDs.M[k]; id.IsKnown() && keyOf[id.S] != "" {
			src[k] = keyOf[id.S]
		}
		p, ok := priorEntries[src[k]]
		switch {
		case !ok || p.id == "":
			writes = append(writes, bulkwrite.Write{Key: k, Name: name, Fleet: fleet})
		case p.name != name || (fleet != "" && (fleet != prior.fleetID.S || p.elsewhere != "")):
			writes = append(writes, bulkwrite.Write{Key: k, ID: p.id, Name: name, Fleet: fleet})
		default:
			kept = append(kept, k)
		}
	}
	res := bulkwrite.Devices(ctx, d, ws, writes, int(plan.parallelism.N), held)
	state.devices = protoval.StringMap{M: names}
	ids := make(map[string]protoval.String, len(names))
	elsewhere := map[string]protoval.String{}
	var details map[string]fleetDeviceDetail
	if state.includeDetails.B {
		details = make(map[string]fleetDeviceDetail, len(names))
	}
	var lacking []string // keys whose details the prior state does not have
	keep := func(k string) {
		p := priorEntries[src[k]]
		ids[k] = protoval.KnownString(p.id)
		names[k] = protoval.KnownString(p.name)
		if p.elsewhere != "" {
			elsewhere[k] = protoval.KnownString(p.elsewhere)
		}
		if details != nil {
			if pd, ok := prior.details.m[src[k]]; ok && pd.id.IsKnown() {
				details[k] = pd
			} else {
				lacking = append(lacking, k) // include_details was just turned on
			}
		}
	}
	for _, k := range kept {
		keep(k)
	}
	for i, w := range writes {
		o := res.Outcomes[i]
		switch {
		case o.Device != nil:
			ids[w.Key] = protoval.KnownString(o.Device.ID)
			names[w.Key] = protoval.KnownString(o.Device.Name)
			if state.fleetID.IsKnown() && o.Device.FleetID() != state.fleetID.S && fleet != "" {
				elsewhere[w.Key] = protoval.KnownString(o.Device.FleetID())
			}
			if details != nil {
				details[w.Key] = detailOf(o.Device)
			}
			if o.Device.FleetID() == fleet && o.Device.FleetName() != "" {
				state.fleetName = protoval.KnownString(o.Device.FleetName())
			}
		case w.ID != "":
			keep(w.Key) // a failed update: the device as it was
		}
	}
	if fleet == "" && res.Fleet != "" {
		state.fleetID = protoval.KnownString(res.Fleet)
		for i := range writes {
			if o := res.Outcomes[i]; o.Device != nil && o.Device.FleetID() == res.Fleet {
				state.fleetName = protoval.KnownString(o.Device.FleetName())
				break
			}
		}
	}
	if len(lacking) > 0 {
		fillDetails(ctx, d, ws, lacking, ids, details, diags)
	}
	state.deviceIDs = protoval.StringMap{M: ids}
	state.elsewhere = protoval.StringMap{M: elsewhere}
	state.details = fleetDetails{m: details, null: details == nil}
	tflog.Debug(ctx, "updated the devices of a fleet", map[string]any{"workspace_id": ws, "writes": len(writes)})
	reportWrites("update", describeFleetDevices(ws, state.fleetID.S), writes, res.Outcomes, diags)
	return state, nil
}

// fillDetails reads the details of the devices of keys (by their ids) with
// one list of the workspace. A device the list lacks keeps only its ID and
// name; the next refresh reads it alone.
func fillDetails(ctx context.Context, d *connection.ProviderData, ws string, keys []string, ids map[string]protoval.String,
	details map[string]fleetDeviceDetail, diags *diag.Diagnostics) {
	all, err := d.Client.ListDevices(ctx, ws)
	if err != nil {
		diags.AddError("Cannot read the details of the devices",
			"include_details was turned on, and listing the devices of the workspace failed: "+connection.DescribeError(err, ws)+
				" The devices are unchanged; apply again.")
	}
	byID := connection.IndexDevices(all)
	for _, k := range keys {
		id := ids[k].S
		if dev, ok := byID.Get(id); ok {
			details[k] = detailOf(dev)
			continue
		}
		details[k] = fleetDeviceDetail{id: protoval.KnownString(id), name: protoval.NullString, fleetID: protoval.NullString, physID: protoval.NullString,
			createdAt: protoval.NullString, identities: protoval.NullString}
	}
}

// reportWrites adds the diagnostics of a bulk apply: a warning for adopted
// devices, and an error listing the keys that failed.
func reportWrites(op, what string, writes []bulkwrite.Write, outcomes []bulkwrite.Outcome, diags *diag.Diagnostics) {
	if adopted := bulkwrite.AdoptedKeys(writes, outcomes); len(adopted) > 0 {
		diags.AddWarning("Adopted devices after interrupted creates",
			fmt.Sprintf("The connection failed after the create requests of %d devices of %s were sent, so the service "+
				"may have created them. For each, exactly one matching device created since the request was found and is "+
				"now managed instead of creating another one: %s.", len(adopted), what, devices.ListSome(adopted)))
	}
	failed, detail := bulkwrite.Failures(writes, outcomes)
	if len(failed) == 0 {
		return
	}
	next := "The state keeps every device that exists. Fix the cause and apply again: only the failed keys are sent again."
	if op == "create" {
		next = "The state keeps every device that exists. Terraform marks this resource as tainted because its create " +
			"failed, and plans to replace it: the replacement keeps the devices that exist and creates only the failed " +
			"keys. Fix the cause and apply again."
	}
	diags.AddError(fmt.Sprintf("%d of %d devices could not be written", len(failed), len(writes)),
		fmt.Sprintf("Some creates or updates of the devices of %s failed:\n%s\n%s", what, detail, next))
}

// delete forgets the devices (the API has no delete). The first half of the
// replacement of a resource created in part remembers it for the second
// half, which resumes it (fleet_devices_resume.go).
func (s *fleetDevicesServer) delete(prior *fleetDevicesObject, private fleetDevicesPrivate, diags *diag.Diagnostics) {
	entries := prior.entries()
	held := len(heldKeys(entries))
	if private.PlannedCreate && held > 0 && held < len(entries) {
		// The first half of the replacement of an object created in part
		// (Terraform taints it): its replacement, planned next in this
		// process, resumes it rather than creating its devices again.
		if d := s.data(); d != nil {
			connection.Registry[partialCreates](d).remember(prior, nil)
		}
		return
	}
	if held == 0 {
		return
	}
	diags.AddWarning("The devices were only removed from the Terraform state",
		fmt.Sprintf("The ZDM API has no delete operation: the %d devices of %s stay in the service. Terraform no longer "+
			"manages them; import them again to manage them.", held,
			describeFleetDevices(prior.workspaceID.S, prior.fleetID.S)))
}
