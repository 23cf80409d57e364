package provider

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
)

// fleetDevicesServer serves zdm_fleet_devices at the protocol level (see
// server.go): each call converts the resource's value once, between the
// protocol's tftypes values and fleetDevicesObject, and the work in between
// is plain Go over maps of strings.
type fleetDevicesServer struct {
	// configured returns what the provider's Configure made; nil before.
	configured func() *providerData
}

// newFleetDevicesServer serves zdm_fleet_devices for the provider whose
// Configure result configured returns.
func newFleetDevicesServer(configured func() *providerData) *fleetDevicesServer {
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
func (s *fleetDevicesServer) data() *providerData { return s.configured() }

// describeFleetDevices names the resource in messages.
func describeFleetDevices(ws, fleet string) string {
	if fleet == "" {
		return "zdm_fleet_devices of the default fleet of workspace " + quote(ws)
	}
	return "zdm_fleet_devices of fleet " + quote(fleet) + " of workspace " + quote(ws)
}

// devicesRef lists devices as `"key": "name" (id)`, at most maxListed.
func devicesRef(entries map[string]fleetDevice, keys []string) string {
	items := make([]string, 0, len(keys))
	for _, k := range keys {
		e := entries[k]
		items = append(items, fmt.Sprintf("%s: %s (%s)", quote(k), quote(e.name), e.id))
	}
	return listSome(items)
}

func (s *fleetDevicesServer) ValidateResourceConfig(_ context.Context, req *tfprotov6.ValidateResourceConfigRequest) *tfprotov6.ValidateResourceConfigResponse {
	cfg, _, err := decodeFleetDevices(req.Config)
	if err != nil {
		return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: errorDiagnostics("Invalid zdm_fleet_devices configuration", err.Error())}
	}
	var diags diag.Diagnostics
	validateFleetDevicesConfig(&cfg, &diags)
	return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: protoDiagnostics(diags)}
}

// validateFleetDevicesConfig checks what can be checked of a configuration
// before any API call: blank IDs, the parallelism range, keys and names.
func validateFleetDevicesConfig(cfg *fleetDevicesObject, diags *diag.Diagnostics) {
	for name, v := range map[string]pstring{"workspace_id": cfg.workspaceID, "fleet_id": cfg.fleetID} {
		if v.isKnown() && strings.TrimSpace(v.s) == "" {
			addBlankValueError(path.Root(name), diags)
		}
	}
	if p := cfg.parallelism; !p.null && !p.unknown && (p.n < 1 || p.n > maxDeviceParallelism) {
		diags.AddAttributeError(path.Root("parallelism"), "Invalid parallelism",
			fmt.Sprintf("parallelism must be between 1 and %d, got %d.", maxDeviceParallelism, p.n))
	}
	root := path.Root("devices")
	for _, key := range slices.Sorted(maps.Keys(cfg.devices.m)) {
		name := cfg.devices.m[key]
		switch {
		case strings.TrimSpace(key) == "":
			diags.AddAttributeError(root.AtMapKey(key), "Invalid devices key", "The keys of devices must not be empty or blank.")
		case name.null:
			diags.AddAttributeError(root.AtMapKey(key), "Missing device name",
				"devices["+quote(key)+"] is null: give every key of devices a name (the key itself, if you like).")
		case name.isKnown() && strings.TrimSpace(name.s) == "":
			diags.AddAttributeError(root.AtMapKey(key), "Invalid device name",
				"The name devices["+quote(key)+"] must contain at least one character that is not white space.")
		}
	}
}

func (s *fleetDevicesServer) UpgradeResourceState(_ context.Context, req *tfprotov6.UpgradeResourceStateRequest) *tfprotov6.UpgradeResourceStateResponse {
	if req.Version != 0 {
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: errorDiagnostics("Unknown zdm_fleet_devices state version",
			fmt.Sprintf("The state of this resource has schema version %d, which this provider version does not know: it "+
				"was written by a newer provider. Use that provider version.", req.Version))}
	}
	if req.RawState == nil || req.RawState.JSON == nil {
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: errorDiagnostics("Cannot read the zdm_fleet_devices state",
			"The state holds no JSON for this resource.")}
	}
	v, err := req.RawState.UnmarshalWithOpts(fleetDevicesType, tfprotov6.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true}})
	if err != nil {
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: errorDiagnostics("Cannot read the zdm_fleet_devices state",
			"The state of this resource does not match its schema: "+err.Error()+". If it was written by a development "+
				"build of the provider, remove it with terraform state rm and import the fleet again.")}
	}
	dv, err := tfprotov6.NewDynamicValue(fleetDevicesType, v)
	if err != nil {
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: errorDiagnostics("Cannot encode the zdm_fleet_devices state", err.Error())}
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &dv}
}

func (s *fleetDevicesServer) ImportResourceState(_ context.Context, req *tfprotov6.ImportResourceStateRequest) *tfprotov6.ImportResourceStateResponse {
	fail := func(summary, detail string) *tfprotov6.ImportResourceStateResponse {
		return &tfprotov6.ImportResourceStateResponse{Diagnostics: errorDiagnostics(summary, detail)}
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
		attrs, err := objectAttributes(v)
		if err != nil {
			return fail("Invalid import identity", err.Error())
		}
		w, _ := decodeString(attrs["workspace_id"])
		f, _ := decodeString(attrs["fleet_id"])
		if !f.isKnown() || strings.TrimSpace(f.s) == "" || (!w.null && strings.TrimSpace(w.s) == "") {
			return fail("Invalid import identity",
				`The identity of a zdm_fleet_devices needs a non-empty fleet_id: identity = { workspace_id = "<workspace_id>", `+
					`fleet_id = "<fleet_id>" } (workspace_id may be left out to use the provider's workspace_id).`)
		}
		ws, fleet = w.s, f.s
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
			return fail("Invalid import ID", "Import ID "+quote(req.ID)+": "+format+".")
		}
	}
	if ws == "" {
		if d := s.data(); d == nil || d.workspaceID == "" {
			return fail("Invalid import ID",
				"The import names no workspace and the provider has no workspace_id (nor "+envWorkspaceID+"): "+format+".")
		}
		ws = s.data().workspaceID
	}
	o := fleetDevicesObject{workspaceID: knownString(ws), fleetID: knownString(fleet), fleetName: nullString,
		parallelism: pint{n: defaultDeviceParallelism}, includeDetails: pbool{}, devices: pstringMap{null: true},
		deviceIDs: pstringMap{null: true}, elsewhere: pstringMap{null: true}, details: fleetDetails{null: true}}
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
		resp.Diagnostics = errorDiagnostics("Cannot read the zdm_fleet_devices state", err.Error())
		return resp
	}
	if null {
		return resp
	}
	if resp.NewIdentity, err = state.identity(); err != nil {
		resp.Diagnostics = errorDiagnostics("Cannot encode the identity", err.Error())
		return resp
	}
	d := s.data()
	if d == nil {
		return resp // not configured yet: the state stays as it is
	}
	private := decodePrivate(req.Private)
	var diags diag.Diagnostics
	s.read(ctx, d, &state, private, &diags)
	if private.CreateFailed && !diags.HasError() {
		registry[partialCreates](d).remember(&state) // Terraform tainted it: its replacement resumes it
	}
	resp.Diagnostics = protoDiagnostics(diags)
	if diags.HasError() {
		return resp
	}
	private.Imported, private.KeyByID = false, false
	resp.Private = private.bytes()
	// The identity set above stays: a read changes neither workspace_id nor
	// fleet_id.
	if resp.NewState, err = state.dynamicValue(); err != nil {
		resp.Diagnostics = append(resp.Diagnostics, errorDiagnostics("Cannot encode the state", err.Error())...)
	}
	return resp
}

// read refreshes state from one list of the workspace. A device missing
// from the list is read alone and leaves the map only when that read
// answers 404 (the list answered, so the workspace is visible).
func (s *fleetDevicesServer) read(ctx context.Context, d *providerData, state *fleetDevicesObject, private fleetDevicesPrivate, diags *diag.Diagnostics) {
	ws, fleet := state.workspaceID.s, state.fleetID.s
	what := describeFleetDevices(ws, fleet)
	if state.parallelism.null || state.parallelism.unknown {
		state.parallelism = pint{n: defaultDeviceParallelism}
	}
	if state.includeDetails.null || state.includeDetails.unknown {
		state.includeDetails = pbool{}
	}

	// One list answers every device. A failed list is an error: it never
	// means that the devices are gone.
	all, err := d.client.ListDevices(ctx, ws)
	if err != nil {
		diags.AddError("Cannot read the devices of "+what,
			"Listing the devices of the workspace failed, so the state is left as it was: "+describeError(err, ws))
		return
	}
	d.sawWorkspace(ws) // the list answered: a 404 below means gone
	byID := devicesByID(all)
	for i := range all {
		if fleet != "" && all[i].FleetID == fleet && all[i].FleetName != "" {
			state.fleetName = knownString(all[i].FleetName)
		}
	}

	found := map[string]*client.Device{}
	if state.devices.null && state.deviceIDs.null && private.Imported {
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
		d.own("device", found[k].ID)
	}
	if !private.Imported {
		claims := make(map[string]string, len(found))
		for k, dev := range found {
			claims[dev.ID] = "key " + quote(k)
		}
		if lines := registry[deviceClaims](d).claimDevices(what, claims); len(lines) > 0 {
			diags.AddWarning(twiceManagedWarning(lines))
		}
	}
}

// refreshDevices finds the devices of the state in the list (byID), and
// reads those missing from it alone.
func (s *fleetDevicesServer) refreshDevices(ctx context.Context, d *providerData, state *fleetDevicesObject,
	byID map[string]*client.Device, found map[string]*client.Device, diags *diag.Diagnostics) {
	ws := state.workspaceID.s
	var missing []string
	for k, e := range state.entries() {
		if e.id == "" {
			continue // a failed create: nothing to read
		}
		if dev, ok := byID[e.id]; ok {
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
		ids[i] = state.deviceIDs.m[k].s
	}
	got := make([]*client.Device, len(missing))
	errs := make([]error, len(missing))
	runBounded(ctx, len(missing), int(state.parallelism.n), func(i int) {
		got[i], errs[i] = d.client.GetDevice(ctx, ws, ids[i])
	})
	var gone []string
	for i, k := range missing {
		switch err := errs[i]; {
		case err == nil && got[i] != nil:
			found[k] = got[i]
		case client.IsNotFound(err):
			if err := d.confirmGone(ctx, "device", ws, ids[i], err); err != nil {
				diags.AddError("Cannot read device "+ids[i]+" of workspace "+ws, err.Error())
				continue
			}
			gone = append(gone, fmt.Sprintf("%s (%s)", quote(k), ids[i]))
			delete(state.devices.m, k) // a key still configured creates a new device
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
				"they leave the state, and keys still in the configuration will create new devices: %s.", len(gone), listSome(gone)))
	}
}

// importDevices fills the state of an import with every device of the
// fleet, keyed by name (or by ID).
func (s *fleetDevicesServer) importDevices(ctx context.Context, d *providerData, state *fleetDevicesObject, all []client.Device,
	keyByID bool, found map[string]*client.Device, diags *diag.Diagnostics) bool {
	ws, fleet := state.workspaceID.s, state.fleetID.s
	byKey, shared := fleetDevicesByKey(all, fleet, keyByID)
	maps.Copy(found, byKey)
	var clash []string
	for _, k := range slices.Sorted(maps.Keys(shared)) {
		clash = append(clash, fmt.Sprintf("%s (%s)", quote(k), strings.Join(shared[k], ", ")))
	}
	if len(clash) > 0 {
		diags.AddError("Cannot import the devices of fleet "+quote(fleet)+": duplicate names",
			fmt.Sprintf("The devices map is keyed by device name, and %d names are used by several devices of the fleet: %s. "+
				"Either give those devices unique names in the service, or import with the ID \"%s/%s/by-id\" to key "+
				"the map by device ID (then write each entry as \"<device_id>\" = \"<name>\").",
				len(clash), listSome(clash), ws, fleet))
		return false
	}
	if len(found) == 0 {
		// An empty fleet: check that it exists, and read its name.
		f, err := d.client.GetFleet(ctx, ws, fleet)
		switch {
		case client.IsNotFound(err):
			notFoundAtImport(diags, "fleet", "fleet "+quote(fleet)+" of workspace "+quote(ws))
			return false
		case err != nil:
			diags.AddError("Cannot read fleet "+quote(fleet)+" of workspace "+quote(ws), err.Error())
			return false
		}
		state.fleetName = knownString(f.Name)
	}
	state.devices = pstringMap{m: map[string]pstring{}}
	return true
}

func (s *fleetDevicesServer) PlanResourceChange(_ context.Context, req *tfprotov6.PlanResourceChangeRequest) *tfprotov6.PlanResourceChangeResponse {
	// The identity may change at apply (a move to another fleet changes
	// fleet_id; the identity is declared mutable).
	resp := &tfprotov6.PlanResourceChangeResponse{PlannedState: req.ProposedNewState, PlannedPrivate: req.PriorPrivate,
		PlannedIdentity: req.PriorIdentity}
	prior, priorNull, err := decodeFleetDevices(req.PriorState)
	if err != nil {
		resp.Diagnostics = errorDiagnostics("Cannot read the zdm_fleet_devices state", err.Error())
		return resp
	}
	proposed, destroy, err := decodeFleetDevices(req.ProposedNewState)
	if err != nil {
		resp.Diagnostics = errorDiagnostics("Cannot read the zdm_fleet_devices plan", err.Error())
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
		resp.Diagnostics = protoDiagnostics(diags)
		return resp
	}
	cfg, _, err := decodeFleetDevices(req.Config)
	if err != nil {
		resp.Diagnostics = errorDiagnostics("Cannot read the zdm_fleet_devices configuration", err.Error())
		return resp
	}
	var priorPtr *fleetDevicesObject
	if !priorNull {
		priorPtr = &prior
	}
	replace := s.plan(priorPtr, &cfg, &proposed, &diags)
	if priorNull && !diags.HasError() {
		s.planResume(&cfg, &proposed, &diags)
	}
	if diags.HasError() {
		resp.Diagnostics = protoDiagnostics(diags)
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
	resp.Diagnostics = protoDiagnostics(diags)
	return resp
}

// plan turns the proposed new state into the planned one (prior is nil for
// a create), and reports whether the change of workspace_id replaces the
// resource.
func (s *fleetDevicesServer) plan(prior, cfg, plan *fleetDevicesObject, diags *diag.Diagnostics) bool {
	d := s.data()
	// The provider's workspace_id is a default for new objects only.
	if d != nil {
		what := "The zdm_fleet_devices"
		var priorWS *pstring
		if prior != nil {
			priorWS = &prior.workspaceID
		}
		if ws, set := planWorkspaceRule(d, "zdm_fleet_devices", what, cfg.workspaceID, priorWS, diags); set {
			plan.workspaceID = ws
		}
		if diags.HasError() {
			return false
		}
	} else if prior == nil && plan.workspaceID.null {
		plan.workspaceID = unknownString // the provider is configured at apply time
	}
	replace := prior != nil && plan.workspaceID.isKnown() && plan.workspaceID.s != prior.workspaceID.s
	if plan.workspaceID.unknown && prior != nil {
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
					"created in workspace %s: %s.", len(held), quote(prior.workspaceID.s), quote(plan.workspaceID.s),
					devicesRef(entries, held)))
		}
	}

	if cfg.parallelism.null {
		plan.parallelism = pint{n: defaultDeviceParallelism}
	}
	if cfg.includeDetails.null {
		plan.includeDetails = pbool{}
	}
	if cfg.fleetID.null {
		// The prior fleet (kept), or the default fleet that the first
		// creates tell.
		plan.fleetID = nullString
		if prior != nil && !replace {
			plan.fleetID = prior.fleetID
		}
	}
	target := plan.fleetID

	// Devices: the configured names; IDs known for the devices that exist.
	switch {
	case plan.devices.unknown:
		plan.deviceIDs = pstringMap{unknown: true}
		plan.elsewhere = pstringMap{unknown: true}
		plan.details = fleetDetails{unknown: true, null: false}
		if !plan.includeDetails.unknown && !plan.includeDetails.b {
			plan.details = fleetDetails{null: true}
		}
		if target.null {
			plan.fleetID = unknownString
		}
		plan.fleetName = unknownString
		return replace
	default:
		ids := make(map[string]pstring, len(plan.devices.m))
		for k := range plan.devices.m {
			if e, ok := priorEntries[k]; ok && e.id != "" {
				ids[k] = knownString(e.id)
			} else {
				ids[k] = unknownString
			}
		}
		plan.deviceIDs = pstringMap{m: ids}
		plan.elsewhere = pstringMap{m: map[string]pstring{}}
	}
	planDetails(prior, priorEntries, target, plan)
	if target.null && len(plan.devices.m) > 0 {
		// New devices go to the default fleet, which their creation tells.
		plan.fleetID = unknownString
	}

	// fleet_name is known while the fleet does not change.
	plan.fleetName = unknownString
	switch {
	case prior != nil && !replace && plan.fleetID.isKnown() && plan.fleetID == prior.fleetID && !prior.fleetName.null:
		plan.fleetName = prior.fleetName
	case prior != nil && !replace && plan.fleetID.null && prior.fleetID.null && len(plan.devices.m) == 0:
		plan.fleetName = nullString
	case prior == nil && plan.fleetID.null:
		plan.fleetName = nullString
	}

	var removed []string
	for _, k := range slices.Sorted(maps.Keys(priorEntries)) {
		if _, ok := plan.devices.m[k]; !ok && priorEntries[k].id != "" {
			removed = append(removed, k)
		}
	}
	if len(removed) > 0 {
		diags.AddWarning("Removed devices are only forgotten",
			fmt.Sprintf("The ZDM API has no delete operation: the %d devices removed from the devices map stay in the "+
				"service, and Terraform stops managing them: %s.", len(removed), devicesRef(priorEntries, removed)))
	}
	return replace
}

// planDetails plans device_details: null unless include_details; an
// unchanged device keeps its details, others are known after apply.
func planDetails(prior *fleetDevicesObject, priorEntries map[string]fleetDevice, target pstring, plan *fleetDevicesObject) {
	switch {
	case plan.includeDetails.unknown:
		plan.details = fleetDetails{unknown: true}
		return
	case !plan.includeDetails.b:
		plan.details = fleetDetails{null: true}
		return
	}
	out := make(map[string]fleetDeviceDetail, len(plan.devices.m))
	for k, name := range plan.devices.m {
		e, ok := priorEntries[k]
		pd, had := fleetDeviceDetail{}, false
		if prior != nil && prior.details.m != nil {
			pd, had = prior.details.m[k]
		}
		if !ok || e.id == "" || !had {
			d := unknownDetail
			if e.id != "" {
				d.id = knownString(e.id)
			}
			d.name = name
			if target.isKnown() {
				d.fleetID = target
			}
			out[k] = d
			continue
		}
		d := pd
		d.name = name
		if target.isKnown() {
			d.fleetID = target
		} else {
			d.fleetID = unknownString
		}
		if d.name != pd.name || d.fleetID != pd.fleetID {
			d.identities = unknownString // as the update answers
		}
		out[k] = d
	}
	plan.details = fleetDetails{m: out}
}

func (s *fleetDevicesServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) *tfprotov6.ApplyResourceChangeResponse {
	resp := &tfprotov6.ApplyResourceChangeResponse{NewState: req.PlannedState, Private: req.PlannedPrivate}
	prior, priorNull, err := decodeFleetDevices(req.PriorState)
	if err != nil {
		resp.Diagnostics = errorDiagnostics("Cannot read the zdm_fleet_devices state", err.Error())
		return resp
	}
	planned, destroy, err := decodeFleetDevices(req.PlannedState)
	if err != nil {
		resp.Diagnostics = errorDiagnostics("Cannot read the zdm_fleet_devices plan", err.Error())
		return resp
	}
	var diags diag.Diagnostics
	private := decodePrivate(req.PlannedPrivate)
	if destroy {
		s.delete(&prior, private, &diags)
		resp.Diagnostics = protoDiagnostics(diags)
		if diags.HasError() {
			resp.NewState = req.PriorState
		}
		return resp
	}
	d := s.data()
	if d == nil {
		diags := diag.Diagnostics{}
		notConfigured(&diags)
		resp.Diagnostics = protoDiagnostics(diags)
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
		resp.Diagnostics = protoDiagnostics(diags)
		resp.NewState = req.PriorState
		return resp
	}
	private.PlannedCreate = false
	resp.Private = private.bytes()
	if resp.NewState, err = state.dynamicValue(); err != nil {
		diags.AddError("Cannot encode the state", err.Error())
	}
	if resp.NewIdentity, err = state.identity(); err != nil {
		diags.AddError("Cannot encode the identity", err.Error())
	}
	resp.Diagnostics = protoDiagnostics(diags)
	return resp
}

// errNothingSent ends an apply that sent nothing; its diagnostics say why.
var errNothingSent = errors.New("nothing sent")

// fleetOf returns the fleet of id in ws, for its name, or reports why it
// cannot be used.
func fleetOf(ctx context.Context, d *providerData, ws, id string, diags *diag.Diagnostics) *client.Fleet {
	f, err := d.client.GetFleet(ctx, ws, id)
	switch {
	case client.IsNotFound(err):
		diags.AddAttributeError(path.Root("fleet_id"), "Fleet not found",
			"Fleet "+quote(id)+" does not exist in workspace "+quote(ws)+", or the API key cannot see it: no device "+
				"was created or moved. Check fleet_id.")
		return nil
	case err != nil:
		diags.AddError("Cannot read fleet "+quote(id)+" of workspace "+quote(ws), err.Error())
		return nil
	}
	return f
}

func (s *fleetDevicesServer) create(ctx context.Context, d *providerData, plan *fleetDevicesObject, diags *diag.Diagnostics) (fleetDevicesObject, error) {
	planned := types.StringNull() // unknown at plan time when the provider was not configured yet
	if plan.workspaceID.isKnown() {
		planned = types.StringValue(plan.workspaceID.s)
	}
	ws := workspaceOrDefault(d, planned, path.Root("workspace_id"), diags)
	if diags.HasError() {
		return fleetDevicesObject{}, errNothingSent
	}
	state := fleetDevicesObject{workspaceID: knownString(ws), fleetID: nullString, fleetName: nullString,
		parallelism: plan.parallelism, includeDetails: plan.includeDetails, devices: plan.devices}
	fleet := ""
	if plan.fleetID.isKnown() {
		fleet = plan.fleetID.s
		f := fleetOf(ctx, d, ws, fleet, diags)
		if f == nil {
			return fleetDevicesObject{}, errNothingSent
		}
		state.fleetID, state.fleetName = knownString(f.ID), knownString(f.Name)
	}
	keys := slices.Sorted(maps.Keys(plan.devices.m))
	// Keys planned with a known ID resume a create that failed in part
	// (planResume): their devices exist and are only read.
	found, held := s.resumed(ctx, d, ws, plan, diags)
	writes := make([]deviceWrite, 0, len(keys))
	for _, k := range keys {
		if id, ok := plan.deviceIDs.m[k]; ok && id.isKnown() {
			continue
		}
		writes = append(writes, deviceWrite{key: k, name: plan.devices.m[k].s, fleet: fleet})
	}
	res := writeDevices(ctx, d, ws, writes, int(plan.parallelism.n), held)
	for i, w := range writes {
		if dev := res.outcomes[i].device; dev != nil {
			found[w.key] = dev
			if state.fleetName.null && dev.FleetID == res.fleet {
				state.fleetName = knownString(dev.FleetName)
			}
		}
	}
	if fleet == "" && res.fleet != "" {
		state.fleetID = knownString(res.fleet)
	}
	state.setFound(found)
	tflog.Debug(ctx, "created the devices of a fleet", map[string]any{"workspace_id": ws, "count": len(found)})
	reportWrites("create", describeFleetDevices(ws, state.fleetID.s), writes, res.outcomes, diags)
	return state, nil
}

func (s *fleetDevicesServer) update(ctx context.Context, d *providerData, prior, plan *fleetDevicesObject, diags *diag.Diagnostics) (fleetDevicesObject, error) {
	ws := prior.workspaceID.s
	state := fleetDevicesObject{workspaceID: prior.workspaceID, fleetID: prior.fleetID, fleetName: prior.fleetName,
		parallelism: plan.parallelism, includeDetails: plan.includeDetails}
	fleet := prior.fleetID.s
	if plan.fleetID.isKnown() && plan.fleetID.s != fleet {
		fleet = plan.fleetID.s
		f := fleetOf(ctx, d, ws, fleet, diags)
		if f == nil {
			return fleetDevicesObject{}, errNothingSent
		}
		state.fleetID, state.fleetName = knownString(f.ID), knownString(f.Name)
	}

	priorEntries := prior.entries()
	held := make(map[string]bool, len(priorEntries))
	for _, e := range priorEntries {
		if e.id != "" {
			held[e.id] = true
		}
	}
	// The names of the new state: the planned ones, except where a write
	// fails (below).
	names := make(map[string]pstring, len(plan.devices.m))
	var writes []deviceWrite
	var kept []string // keys whose device needs no write
	for _, k := range slices.Sorted(maps.Keys(plan.devices.m)) {
		name := plan.devices.m[k].s
		names[k] = knownString(name)
		p, ok := priorEntries[k]
		switch {
		case !ok || p.id == "":
			writes = append(writes, deviceWrite{key: k, name: name, fleet: fleet})
		case p.name != name || (fleet != "" && (fleet != prior.fleetID.s || p.elsewhere != "")):
			writes = append(writes, deviceWrite{key: k, id: p.id, name: name, fleet: fleet})
		default:
			kept = append(kept, k)
		}
	}
	res := writeDevices(ctx, d, ws, writes, int(plan.parallelism.n), held)
	state.devices = pstringMap{m: names}
	ids := make(map[string]pstring, len(names))
	elsewhere := map[string]pstring{}
	var details map[string]fleetDeviceDetail
	if state.includeDetails.b {
		details = make(map[string]fleetDeviceDetail, len(names))
	}
	var lacking []string // keys whose details the prior state does not have
	keep := func(k string) {
		p := priorEntries[k]
		ids[k] = knownString(p.id)
		names[k] = knownString(p.name)
		if p.elsewhere != "" {
			elsewhere[k] = knownString(p.elsewhere)
		}
		if details != nil {
			if pd, ok := prior.details.m[k]; ok && pd.id.isKnown() {
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
		o := res.outcomes[i]
		switch {
		case o.device != nil:
			ids[w.key] = knownString(o.device.ID)
			names[w.key] = knownString(o.device.Name)
			if state.fleetID.isKnown() && o.device.FleetID != state.fleetID.s && fleet != "" {
				elsewhere[w.key] = knownString(o.device.FleetID)
			}
			if details != nil {
				details[w.key] = detailOf(o.device)
			}
			if o.device.FleetID == fleet && o.device.FleetName != "" {
				state.fleetName = knownString(o.device.FleetName)
			}
		case w.id != "":
			keep(w.key) // a failed update: the device as it was
		}
	}
	if fleet == "" && res.fleet != "" {
		state.fleetID = knownString(res.fleet)
		for i := range writes {
			if o := res.outcomes[i]; o.device != nil && o.device.FleetID == res.fleet {
				state.fleetName = knownString(o.device.FleetName)
				break
			}
		}
	}
	if len(lacking) > 0 {
		fillDetails(ctx, d, ws, lacking, ids, details, diags)
	}
	state.deviceIDs = pstringMap{m: ids}
	state.elsewhere = pstringMap{m: elsewhere}
	state.details = fleetDetails{m: details, null: details == nil}
	tflog.Debug(ctx, "updated the devices of a fleet", map[string]any{"workspace_id": ws, "writes": len(writes)})
	reportWrites("update", describeFleetDevices(ws, state.fleetID.s), writes, res.outcomes, diags)
	return state, nil
}

// fillDetails reads the details of the devices of keys (by their ids) with
// one list of the workspace. A device the list lacks keeps only its ID and
// name; the next refresh reads it alone.
func fillDetails(ctx context.Context, d *providerData, ws string, keys []string, ids map[string]pstring,
	details map[string]fleetDeviceDetail, diags *diag.Diagnostics) {
	all, err := d.client.ListDevices(ctx, ws)
	if err != nil {
		diags.AddError("Cannot read the details of the devices",
			"include_details was turned on, and listing the devices of the workspace failed: "+describeError(err, ws)+
				" The devices are unchanged; apply again.")
	}
	byID := devicesByID(all)
	for _, k := range keys {
		id := ids[k].s
		if dev, ok := byID[id]; ok {
			details[k] = detailOf(dev)
			continue
		}
		details[k] = fleetDeviceDetail{id: knownString(id), name: nullString, fleetID: nullString, physID: nullString,
			createdAt: nullString, identities: nullString}
	}
}

// reportWrites adds the diagnostics of a bulk apply: a warning for adopted
// devices, and an error listing the keys that failed.
func reportWrites(op, what string, writes []deviceWrite, outcomes []deviceOutcome, diags *diag.Diagnostics) {
	if adopted := adoptedKeys(writes, outcomes); len(adopted) > 0 {
		diags.AddWarning("Adopted devices after interrupted creates",
			fmt.Sprintf("The connection failed after the create requests of %d devices of %s were sent, so the service "+
				"may have created them. For each, exactly one matching device created since the request was found and is "+
				"now managed instead of creating another one: %s.", len(adopted), what, listSome(adopted)))
	}
	failed, detail := writeFailures(writes, outcomes)
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
			registry[partialCreates](d).remember(prior)
		}
		return
	}
	if held == 0 {
		return
	}
	diags.AddWarning("The devices were only removed from the Terraform state",
		fmt.Sprintf("The ZDM API has no delete operation: the %d devices of %s stay in the service. Terraform no longer "+
			"manages them; import them again to manage them.", held,
			describeFleetDevices(prior.workspaceID.s, prior.fleetID.s)))
}
