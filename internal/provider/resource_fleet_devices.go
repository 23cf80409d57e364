package provider

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

var (
	_ resource.Resource                = (*fleetDevicesResource)(nil)
	_ resource.ResourceWithConfigure   = (*fleetDevicesResource)(nil)
	_ resource.ResourceWithImportState = (*fleetDevicesResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*fleetDevicesResource)(nil)
	_ resource.ResourceWithIdentity    = (*fleetDevicesResource)(nil)

	_ resource.ResourceWithValidateConfig = (*fleetDevicesResource)(nil)
)

func newFleetDevicesResource() resource.Resource {
	return &fleetDevicesResource{}
}

// fleetDevicesResource manages the devices of one fleet as one resource:
// Terraform handles one object, and the provider makes the N API calls
// itself, concurrently (see device_bulk.go).
type fleetDevicesResource struct {
	data *providerData
}

// Bounds and default of parallelism.
const (
	defaultDeviceParallelism = 16
	maxDeviceParallelism     = 64
)

// fleetDevicesModel maps zdm_fleet_devices.
//
// The devices argument is dynamic and the device_details attribute a map of
// objects, rather than one map of nested attributes: the framework's plan
// walk over a map of nested attributes copies the whole map once per
// element, which costs seconds per plan at 10,000 devices.
type fleetDevicesModel struct {
	WorkspaceID   types.String  `tfsdk:"workspace_id"`
	FleetID       types.String  `tfsdk:"fleet_id"`
	FleetName     types.String  `tfsdk:"fleet_name"`
	Parallelism   types.Int64   `tfsdk:"parallelism"`
	Devices       types.Dynamic `tfsdk:"devices"`
	DeviceDetails types.Map     `tfsdk:"device_details"`
}

// fleetDeviceModel is one entry of device_details.
type fleetDeviceModel struct {
	ID         types.String
	Name       types.String
	FleetID    types.String
	PhysID     types.String
	CreatedAt  types.String
	Identities types.String
}

// fleetDeviceAttrTypes are the attribute types of an entry of the devices map.
var fleetDeviceAttrTypes = map[string]attr.Type{
	"id":         types.StringType,
	"name":       types.StringType,
	"fleet_id":   types.StringType,
	"phys_id":    types.StringType,
	"created_at": types.StringType,
	"identities": types.StringType,
}

var fleetDeviceObjectType = types.ObjectType{AttrTypes: fleetDeviceAttrTypes}

// value converts the entry to its object value.
func (m fleetDeviceModel) value() attr.Value {
	return types.ObjectValueMust(fleetDeviceAttrTypes, map[string]attr.Value{
		"id": m.ID, "name": m.Name, "fleet_id": m.FleetID, "phys_id": m.PhysID,
		"created_at": m.CreatedAt, "identities": m.Identities,
	})
}

// failedFleetDevice is the entry of a key whose create failed: it names no
// device, and the next plan creates it.
func failedFleetDevice(name string) fleetDeviceModel {
	return fleetDeviceModel{ID: types.StringNull(), Name: types.StringValue(name), FleetID: types.StringNull(),
		PhysID: types.StringNull(), CreatedAt: types.StringNull(), Identities: types.StringNull()}
}

// flattenFleetDevice copies an API device into an entry of the map.
func flattenFleetDevice(d *client.Device) fleetDeviceModel {
	return fleetDeviceModel{
		ID:         types.StringValue(d.ID),
		Name:       types.StringValue(d.Name),
		FleetID:    types.StringValue(d.FleetID),
		PhysID:     types.StringValue(d.PhysID),
		CreatedAt:  types.StringValue(d.CreatedAt),
		Identities: flattenIdentities(d.Identities),
	}
}

// fleetDeviceEntries returns the entries of a device_details value (nil
// when it is null or unknown).
func fleetDeviceEntries(m types.Map) map[string]fleetDeviceModel {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	elems := m.Elements()
	out := make(map[string]fleetDeviceModel, len(elems))
	for k, v := range elems {
		obj, ok := v.(types.Object)
		if !ok || obj.IsNull() || obj.IsUnknown() {
			out[k] = fleetDeviceModel{ID: types.StringUnknown(), Name: types.StringUnknown(), FleetID: types.StringUnknown(),
				PhysID: types.StringUnknown(), CreatedAt: types.StringUnknown(), Identities: types.StringUnknown()}
			continue
		}
		a := obj.Attributes()
		str := func(name string) types.String {
			if s, ok := a[name].(types.String); ok {
				return s
			}
			return types.StringNull()
		}
		out[k] = fleetDeviceModel{ID: str("id"), Name: str("name"), FleetID: str("fleet_id"), PhysID: str("phys_id"),
			CreatedAt: str("created_at"), Identities: str("identities")}
	}
	return out
}

// fleetDeviceMap converts entries to a devices map value.
func fleetDeviceMap(entries map[string]fleetDeviceModel) types.Map {
	elems := make(map[string]attr.Value, len(entries))
	for k, e := range entries {
		elems[k] = e.value()
	}
	return types.MapValueMust(fleetDeviceObjectType, elems)
}

// devicesArgShape says what the devices argument holds, for its errors.
const devicesArgShape = `a map of objects keyed by a key of your choice, such as { "SN-1" = {}, "SN-2" = { name = "roof" } }`

// parseDevicesArg reads the devices argument: an object or a map whose
// elements are objects (or maps) that may set name. It returns the name of
// each key (the key when name is not set; unknown when not known yet), and
// false when the whole argument is unknown.
func parseDevicesArg(v types.Dynamic, diags *diag.Diagnostics) (map[string]types.String, bool) {
	root := path.Root("devices")
	if v.IsUnknown() || v.IsUnderlyingValueUnknown() {
		return nil, false
	}
	if v.IsNull() || v.IsUnderlyingValueNull() {
		diags.AddAttributeError(root, "Missing devices", "devices must be "+devicesArgShape+".")
		return nil, true
	}
	var elems map[string]attr.Value
	switch u := v.UnderlyingValue().(type) {
	case types.Object:
		elems = u.Attributes()
	case types.Map:
		elems = u.Elements()
	default:
		diags.AddAttributeError(root, "Invalid devices", "devices must be "+devicesArgShape+", not a "+
			v.UnderlyingValue().Type(context.Background()).String()+".")
		return nil, true
	}
	names := make(map[string]types.String, len(elems))
	for key, elem := range elems {
		p := root.AtMapKey(key)
		if strings.TrimSpace(key) == "" {
			diags.AddAttributeError(p, "Invalid devices key", "The keys of devices must not be empty or blank.")
			continue
		}
		if elem.IsUnknown() {
			names[key] = types.StringUnknown()
			continue
		}
		var attrs map[string]attr.Value
		switch e := elem.(type) {
		case types.Object:
			attrs = e.Attributes()
		case types.Map:
			attrs = e.Elements()
		}
		if attrs == nil || elem.IsNull() {
			diags.AddAttributeError(p, "Invalid device entry", "Each element of devices must be an object, such as {} or "+
				"{ name = \"roof\" }; "+quote(key)+" is not.")
			continue
		}
		name := types.StringValue(key)
		for a, av := range attrs {
			if a != "name" {
				diags.AddAttributeError(p.AtName(a), "Unsupported device argument",
					"An element of devices may only set name; "+quote(key)+" sets "+quote(a)+".")
				continue
			}
			sv, ok := av.(types.String)
			switch {
			case !ok && !av.IsNull() && !av.IsUnknown():
				diags.AddAttributeError(p.AtName(a), "Invalid device name", "The name of device "+quote(key)+" must be a string.")
			case av.IsUnknown():
				name = types.StringUnknown()
			case av.IsNull():
			case strings.TrimSpace(sv.ValueString()) == "":
				diags.AddAttributeError(p.AtName(a), "Invalid device name",
					"The name of device "+quote(key)+" must contain at least one character that is not white space.")
			default:
				name = sv
			}
		}
		names[key] = name
	}
	return names, true
}

// devicesArgValue is the devices argument that names entries: {} for an
// entry whose name is its key, { name = "..." } otherwise. An import
// writes it, so that a configuration written that way plans no change.
func devicesArgValue(entries map[string]fleetDeviceModel) types.Dynamic {
	withName := types.ObjectType{AttrTypes: map[string]attr.Type{"name": types.StringType}}
	empty := types.ObjectType{AttrTypes: map[string]attr.Type{}}
	attrTypes := make(map[string]attr.Type, len(entries))
	values := make(map[string]attr.Value, len(entries))
	for k, e := range entries {
		if e.Name.ValueString() == k {
			attrTypes[k] = empty
			values[k] = types.ObjectValueMust(empty.AttrTypes, map[string]attr.Value{})
			continue
		}
		attrTypes[k] = withName
		values[k] = types.ObjectValueMust(withName.AttrTypes, map[string]attr.Value{"name": e.Name})
	}
	return types.DynamicValue(types.ObjectValueMust(attrTypes, values))
}

// fleetDevicesIdentityModel is the identity of a zdm_fleet_devices.
type fleetDevicesIdentityModel struct {
	WorkspaceID types.String `tfsdk:"workspace_id"`
	FleetID     types.String `tfsdk:"fleet_id"`
}

// Private state keys of zdm_fleet_devices.
const (
	// plannedCreateKey is set by the plan of every create. Delete receives
	// it only as the first half of a replacement: a plain destroy passes the
	// private state of the object, from which Create removes it.
	plannedCreateKey = "planned_create"
	// importKeyByKey tells the read that follows an import how to key the
	// devices: by name (absent) or by ID.
	importKeyByKey = "import_key_by"
)

func (r *fleetDevicesResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_fleet_devices"
	// Moving the devices to another fleet changes fleet_id, part of the identity.
	resp.ResourceBehavior.MutableIdentity = true
}

func (r *fleetDevicesResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The devices of one fleet, managed as **one** resource: Terraform handles one object and the " +
			"provider creates, renames and moves the devices itself, up to `parallelism` requests at a time. Use it " +
			"for fleets of thousands of devices, where one `zdm_device` per device is slow.\n\n" +
			"`devices` is a map keyed by a stable key of your choice. A new key creates a device; a changed `name` " +
			"renames the device in place; a changed `fleet_id` moves every device in place. The API has no delete: " +
			"a key removed from the map, or the destroy of the resource, only stops managing the devices (a warning " +
			"at plan time names them). A device must be managed by one resource only: never put a device in two " +
			"`zdm_fleet_devices` maps, or in a map and a `zdm_device`.\n\n" +
			"When some requests of an apply fail, the state keeps every device that exists and the error lists the " +
			"keys that failed and why; applying again finishes the job without duplicates.",
		Attributes: map[string]schema.Attribute{
			"workspace_id": schema.StringAttribute{
				MarkdownDescription: "ID of the workspace of the devices; defaults to the provider's `workspace_id`. " +
					"Changing it **replaces** the resource: new devices are created there and the old ones stay in " +
					"the service, no longer managed.",
				Optional:   true,
				Computed:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1), notBlank{}},
				PlanModifiers: []planmodifier.String{
					stringplanmodifier.UseStateForUnknown(),
					stringplanmodifier.RequiresReplace(),
				},
			},
			"fleet_id": schema.StringAttribute{
				MarkdownDescription: "ID of the fleet of the devices, in the same workspace. When not set, the devices " +
					"go to the workspace's default fleet (the fleet is then recorded here and kept). Changing it " +
					"moves every device in place.",
				Optional:      true,
				Computed:      true,
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1), notBlank{}},
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"fleet_name": schema.StringAttribute{
				MarkdownDescription: "Name of the fleet of the devices; null while the fleet is not known.",
				Computed:            true,
			},
			"parallelism": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("How many API requests are in flight at once during an apply, "+
					"from 1 to %d. Defaults to %d.", maxDeviceParallelism, defaultDeviceParallelism),
				Optional:   true,
				Computed:   true,
				Default:    int64default.StaticInt64(defaultDeviceParallelism),
				Validators: []validator.Int64{int64validator.Between(1, maxDeviceParallelism)},
			},
			"devices": schema.DynamicAttribute{
				MarkdownDescription: "The devices, as a map of objects keyed by a stable key of your choice (such as a " +
					"serial number): `{ \"SN-1\" = {}, \"SN-2\" = { name = \"roof\" } }`. Each object may set `name`, the " +
					"device name, which defaults to the key; changing it renames the device in place. The key never " +
					"reaches the service: keep it when renaming a device. A new key creates a device; a removed key " +
					"is forgotten (the device stays in the service).",
				Required: true,
			},
			"device_details": schema.MapAttribute{
				MarkdownDescription: "The devices as the service shows them, by the keys of `devices`: `id` (assigned " +
					"by the service), `name`, `fleet_id` (a device found in another fleet than the resource's is moved " +
					"back at the next apply), `phys_id`, `created_at` (RFC 3339) and `identities` (a JSON array, null " +
					"when the device has none). A key whose create failed has a null `id` until an apply creates it.",
				Computed:    true,
				ElementType: fleetDeviceObjectType,
			},
		},
	}
}

func (r *fleetDevicesResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var devices types.Dynamic
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("devices"), &devices)...)
	if resp.Diagnostics.HasError() {
		return
	}
	parseDevicesArg(devices, &resp.Diagnostics)
}

func (r *fleetDevicesResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"workspace_id": identityschema.StringAttribute{
				Description: "ID of the workspace of the fleet. May be left out of an import block's `identity` to " +
					"use the provider's `workspace_id`.",
				OptionalForImport: true,
			},
			"fleet_id": identityschema.StringAttribute{
				Description:       "ID of the fleet whose devices are managed.",
				RequiredForImport: true,
			},
		},
	}
}

func (r *fleetDevicesResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configureData("Resource", req.ProviderData, &resp.Diagnostics)
}

// describeFleetDevices names the resource in messages.
func describeFleetDevices(ws, fleet string) string {
	if fleet == "" {
		return "zdm_fleet_devices of the default fleet of workspace " + quote(ws)
	}
	return "zdm_fleet_devices of fleet " + quote(fleet) + " of workspace " + quote(ws)
}

// devicesRef lists devices as `key "k": "name" (id)`, at most maxListed.
func devicesRef(entries map[string]fleetDeviceModel, keys []string) string {
	items := make([]string, 0, len(keys))
	for _, k := range keys {
		e := entries[k]
		items = append(items, fmt.Sprintf("%s: %s (%s)", quote(k), quote(e.Name.ValueString()), e.ID.ValueString()))
	}
	return listSome(items)
}

func (r *fleetDevicesResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var prior *fleetDevicesModel
	if !req.State.Raw.IsNull() {
		prior = &fleetDevicesModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, prior)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if req.Plan.Raw.IsNull() {
		entries := fleetDeviceEntries(prior.DeviceDetails)
		for k, e := range entries {
			if e.ID.IsNull() {
				delete(entries, k)
			}
		}
		if len(entries) > 0 {
			resp.Diagnostics.AddWarning("Destroying zdm_fleet_devices only removes its devices from the Terraform state",
				fmt.Sprintf("The ZDM API has no delete operation: the %d devices of this resource stay in the service "+
					"after this destroy, and Terraform stops managing them: %s.", len(entries), devicesRef(entries, slices.Sorted(maps.Keys(entries)))))
		}
		return
	}
	if prior == nil && resp.Private != nil {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, plannedCreateKey, []byte(`true`))...)
	}
	r.data.planWorkspace(ctx, "zdm_fleet_devices", req, resp)
	if resp.Diagnostics.HasError() {
		return
	}
	var plan, config fleetDevicesModel
	resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	replace := prior != nil && !plan.WorkspaceID.IsUnknown() && !plan.WorkspaceID.Equal(prior.WorkspaceID)
	var priorEntries map[string]fleetDeviceModel
	if prior != nil {
		priorEntries = fleetDeviceEntries(prior.DeviceDetails)
	}
	if replace {
		if len(priorEntries) > 0 {
			resp.Diagnostics.AddWarning("Replacing zdm_fleet_devices leaves the old devices in the service",
				fmt.Sprintf("A change of workspace_id needs new devices. The ZDM API has no delete operation: the %d "+
					"devices of workspace %s stay in the service and Terraform stops managing them; new devices will be "+
					"created in workspace %s: %s.", len(priorEntries), quote(prior.WorkspaceID.ValueString()),
					quote(plan.WorkspaceID.ValueString()), devicesRef(priorEntries, slices.Sorted(maps.Keys(priorEntries)))))
		}
		priorEntries = nil
	}

	names, known := parseDevicesArg(config.Devices, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !known {
		// Known at apply time only: every device attribute is unknown.
		return
	}
	target := plan.FleetID // the prior fleet when not configured (UseStateForUnknown)
	planned := make(map[string]fleetDeviceModel, len(names))
	for key, name := range names {
		fleet := types.StringUnknown()
		if !target.IsUnknown() && !target.IsNull() {
			fleet = target
		}
		p, ok := priorEntries[key]
		if !ok || p.ID.IsNull() {
			planned[key] = fleetDeviceModel{ID: types.StringUnknown(), Name: name, FleetID: fleet,
				PhysID: types.StringUnknown(), CreatedAt: types.StringUnknown(), Identities: types.StringUnknown()}
			continue
		}
		e := p
		e.Name, e.FleetID = name, fleet
		if !e.Name.Equal(p.Name) || !e.FleetID.Equal(p.FleetID) {
			e.Identities = types.StringUnknown() // as the update answers
		}
		planned[key] = e
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("device_details"), fleetDeviceMap(planned))...)
	if target.IsNull() && len(planned) > 0 {
		// New devices go to the default fleet, which their creation tells.
		target = types.StringUnknown()
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("fleet_id"), target)...)
	}

	// fleet_name is known while the fleet does not change.
	fleetName := types.StringUnknown()
	if prior != nil && !replace && !target.IsUnknown() && target.Equal(prior.FleetID) && !prior.FleetName.IsNull() {
		fleetName = prior.FleetName
	}
	if prior != nil && !replace && target.IsNull() && prior.FleetID.IsNull() && len(planned) == 0 {
		fleetName = types.StringNull()
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("fleet_name"), fleetName)...)

	var removed []string
	for _, k := range slices.Sorted(maps.Keys(priorEntries)) {
		if _, ok := planned[k]; !ok && !priorEntries[k].ID.IsNull() {
			removed = append(removed, k)
		}
	}
	if len(removed) > 0 {
		resp.Diagnostics.AddWarning("Removed devices are only forgotten",
			fmt.Sprintf("The ZDM API has no delete operation: the %d devices removed from the devices map stay in the "+
				"service, and Terraform stops managing them: %s.", len(removed), devicesRef(priorEntries, removed)))
	}
}

// fleetOf returns the fleet of id in ws, for its name, or reports why it
// cannot be used.
func (r *fleetDevicesResource) fleetOf(ctx context.Context, ws, id string, diags *diag.Diagnostics) *client.Fleet {
	f, err := r.data.client.GetFleet(ctx, ws, id)
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

func (r *fleetDevicesResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if r.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	var plan fleetDevicesModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ws := r.data.workspaceOrDefault(plan.WorkspaceID, path.Root("workspace_id"), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	state := fleetDevicesModel{WorkspaceID: types.StringValue(ws), FleetID: types.StringNull(),
		FleetName: types.StringNull(), Parallelism: plan.Parallelism, Devices: plan.Devices}
	fleet := ""
	if !plan.FleetID.IsUnknown() && !plan.FleetID.IsNull() {
		fleet = plan.FleetID.ValueString()
		f := r.fleetOf(ctx, ws, fleet, &resp.Diagnostics)
		if f == nil {
			return
		}
		state.FleetID, state.FleetName = types.StringValue(f.ID), types.StringValue(f.Name)
	}

	planned := fleetDeviceEntries(plan.DeviceDetails)
	keys := slices.Sorted(maps.Keys(planned))
	writes := make([]deviceWrite, len(keys))
	for i, k := range keys {
		writes[i] = deviceWrite{key: k, name: planned[k].Name.ValueString(), fleet: fleet}
	}
	res := r.data.writeDevices(ctx, ws, writes, int(plan.Parallelism.ValueInt64()), nil)
	entries := make(map[string]fleetDeviceModel, len(keys))
	for i, w := range writes {
		o := res.outcomes[i]
		if o.device == nil {
			entries[w.key] = failedFleetDevice(w.name)
			continue
		}
		entries[w.key] = flattenFleetDevice(o.device)
		if state.FleetName.IsNull() && o.device.FleetID == res.fleet {
			state.FleetName = types.StringValue(o.device.FleetName)
		}
	}
	if fleet == "" && res.fleet != "" {
		state.FleetID = types.StringValue(res.fleet)
	}
	state.DeviceDetails = fleetDeviceMap(entries)
	tflog.Debug(ctx, "created the devices of a fleet", map[string]any{"workspace_id": ws, "count": len(entries)})
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	setIdentity(ctx, resp.Identity, fleetDevicesIdentityModel{WorkspaceID: state.WorkspaceID, FleetID: state.FleetID}, &resp.Diagnostics)
	if resp.Private != nil {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, plannedCreateKey, nil)...)
	}
	r.reportWrites(ctx, "create", describeFleetDevices(ws, state.FleetID.ValueString()), writes, res.outcomes, &resp.Diagnostics)
}

// reportWrites adds the diagnostics of a bulk apply: a warning for adopted
// devices, and an error listing the keys that failed.
func (r *fleetDevicesResource) reportWrites(_ context.Context, op, what string, writes []deviceWrite, outcomes []deviceOutcome, diags *diag.Diagnostics) {
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
			"failed; replacing it would create every device again, so the provider refuses to. Run `terraform untaint` " +
			"with the address of this resource, fix the cause, and apply again: only the failed keys are sent again."
	}
	diags.AddError(fmt.Sprintf("%d of %d devices could not be written", len(failed), len(writes)),
		fmt.Sprintf("Some creates or updates of the devices of %s failed:\n%s\n%s", what, detail, next))
}

func (r *fleetDevicesResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if r.data == nil {
		identityFromState(ctx, req.State, resp.Identity, &resp.Diagnostics)
		return
	}
	var state fleetDevicesModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ws, fleet := state.WorkspaceID.ValueString(), state.FleetID.ValueString()
	setIdentity(ctx, resp.Identity, fleetDevicesIdentityModel{WorkspaceID: state.WorkspaceID, FleetID: state.FleetID}, &resp.Diagnostics)
	if state.Parallelism.IsNull() {
		state.Parallelism = types.Int64Value(defaultDeviceParallelism)
	}
	imported := followsImport(ctx, req, &resp.Diagnostics)
	what := describeFleetDevices(ws, fleet)

	// One list answers every device. A failed list is an error: it never
	// means that the devices are gone.
	all, err := r.data.client.ListDevices(ctx, ws)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the devices of "+what,
			"Listing the devices of the workspace failed, so the state is left as it was: "+describeError(err, ws))
		return
	}
	r.data.sawWorkspace(ws) // the list answered: a 404 below means gone
	byID := make(map[string]*client.Device, len(all))
	for i := range all {
		byID[all[i].ID] = &all[i]
	}
	if fleet != "" {
		for i := range all {
			if all[i].FleetID == fleet && all[i].FleetName != "" {
				state.FleetName = types.StringValue(all[i].FleetName)
				break
			}
		}
	}

	var entries map[string]fleetDeviceModel
	if state.DeviceDetails.IsNull() {
		entries = r.importEntries(ctx, req, ws, fleet, all, &state, resp)
		if resp.Diagnostics.HasError() {
			return
		}
		state.Devices = devicesArgValue(entries)
	} else {
		entries = r.refreshEntries(ctx, ws, fleetDeviceEntries(state.DeviceDetails), byID, int(state.Parallelism.ValueInt64()), resp)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	state.DeviceDetails = fleetDeviceMap(entries)

	for _, e := range entries {
		if !e.ID.IsNull() {
			r.data.own("device", e.ID.ValueString())
		}
	}
	if !imported {
		claims := make(map[string]string, len(entries))
		for k, e := range entries {
			if !e.ID.IsNull() {
				claims[e.ID.ValueString()] = "key " + quote(k)
			}
		}
		if lines := r.data.claims.claimDevices(what, claims); len(lines) > 0 {
			resp.Diagnostics.AddWarning(twiceManagedWarning(lines))
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	if imported {
		clearImported(ctx, resp)
		if resp.Private != nil {
			resp.Diagnostics.Append(resp.Private.SetKey(ctx, importKeyByKey, nil)...)
		}
	}
}

// refreshEntries updates the entries from the list of the workspace (byID).
// A device missing from the list is read alone: it leaves the map only when
// that read answers 404 (the list answered, so the workspace is visible).
func (r *fleetDevicesResource) refreshEntries(ctx context.Context, ws string, entries map[string]fleetDeviceModel,
	byID map[string]*client.Device, parallelism int, resp *resource.ReadResponse) map[string]fleetDeviceModel {
	var missing []string
	for k, e := range entries {
		if e.ID.IsNull() {
			continue // a failed create: nothing to read
		}
		if d, ok := byID[e.ID.ValueString()]; ok {
			entries[k] = flattenFleetDevice(d)
		} else {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return entries
	}
	sort.Strings(missing)
	got := make([]*client.Device, len(missing))
	errs := make([]error, len(missing))
	runBounded(ctx, len(missing), parallelism, func(i int) {
		got[i], errs[i] = r.data.client.GetDevice(ctx, ws, entries[missing[i]].ID.ValueString())
	})
	var gone []string
	for i, k := range missing {
		switch err := errs[i]; {
		case err == nil && got[i] != nil:
			entries[k] = flattenFleetDevice(got[i])
		case client.IsNotFound(err):
			if err := r.data.confirmGone(ctx, "device", ws, entries[k].ID.ValueString(), err); err != nil {
				resp.Diagnostics.AddError("Cannot read device "+entries[k].ID.ValueString()+" of workspace "+ws, err.Error())
				continue
			}
			gone = append(gone, fmt.Sprintf("%s (%s)", quote(k), entries[k].ID.ValueString()))
			delete(entries, k)
		case err == nil:
			err = ctx.Err()
			fallthrough
		default:
			resp.Diagnostics.AddError("Cannot read device "+entries[k].ID.ValueString()+" of workspace "+ws,
				"The device is not in the list of its workspace and reading it alone failed, so the state is left as it was: "+
					fmt.Sprint(err))
		}
	}
	if len(gone) > 0 {
		tflog.Warn(ctx, "devices not found; removing them from the map", map[string]any{"workspace_id": ws, "count": len(gone)})
		resp.Diagnostics.AddWarning("Devices no longer exist",
			fmt.Sprintf("%d devices of the map no longer exist in the service (the service answered 404 for each); "+
				"they leave the state, and keys still in the configuration will create new devices: %s.", len(gone), listSome(gone)))
	}
	return entries
}

// importEntries builds the map of an import from the list of the workspace:
// every device of the fleet, keyed by name (or by ID when the import asked
// for it).
func (r *fleetDevicesResource) importEntries(ctx context.Context, req resource.ReadRequest, ws, fleet string, all []client.Device,
	state *fleetDevicesModel, resp *resource.ReadResponse) map[string]fleetDeviceModel {
	byID := false
	if req.Private != nil {
		v, d := req.Private.GetKey(ctx, importKeyByKey)
		resp.Diagnostics.Append(d...)
		byID = string(v) == `"id"`
	}
	entries := map[string]fleetDeviceModel{}
	dups := map[string][]string{}
	for i := range all {
		d := &all[i]
		if d.FleetID != fleet {
			continue
		}
		key := d.Name
		if byID {
			key = d.ID
		}
		dups[key] = append(dups[key], d.ID)
		entries[key] = flattenFleetDevice(d)
	}
	var clash []string
	for _, k := range slices.Sorted(maps.Keys(dups)) {
		if ids := dups[k]; len(ids) > 1 {
			sort.Strings(ids)
			clash = append(clash, fmt.Sprintf("%s (%s)", quote(k), strings.Join(ids, ", ")))
		}
	}
	if len(clash) > 0 {
		resp.Diagnostics.AddError("Cannot import the devices of fleet "+quote(fleet)+": duplicate names",
			fmt.Sprintf("The devices map is keyed by device name, and %d names are used by several devices of the fleet: %s. "+
				"Either give those devices unique names in the service, or import with the ID \"%s/%s/by-id\" to key "+
				"the map by device ID (then write each entry as \"<device_id>\" = { name = \"...\" }).",
				len(clash), listSome(clash), ws, fleet))
		return nil
	}
	if len(entries) == 0 {
		// An empty fleet: check that it exists, and read its name.
		f, err := r.data.client.GetFleet(ctx, ws, fleet)
		switch {
		case client.IsNotFound(err):
			notFoundAtImport(&resp.Diagnostics, "fleet", "fleet "+quote(fleet)+" of workspace "+quote(ws))
			return nil
		case err != nil:
			resp.Diagnostics.AddError("Cannot read fleet "+quote(fleet)+" of workspace "+quote(ws), err.Error())
			return nil
		}
		state.FleetName = types.StringValue(f.Name)
	}
	return entries
}

func (r *fleetDevicesResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if r.data == nil {
		notConfigured(&resp.Diagnostics)
		return
	}
	var plan, prior fleetDevicesModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ws := prior.WorkspaceID.ValueString()
	state := fleetDevicesModel{WorkspaceID: prior.WorkspaceID, FleetID: prior.FleetID, FleetName: prior.FleetName,
		Parallelism: plan.Parallelism, Devices: plan.Devices}
	fleet := prior.FleetID.ValueString()
	if !plan.FleetID.IsUnknown() && !plan.FleetID.IsNull() && plan.FleetID.ValueString() != fleet {
		fleet = plan.FleetID.ValueString()
		f := r.fleetOf(ctx, ws, fleet, &resp.Diagnostics)
		if f == nil {
			return
		}
		state.FleetID, state.FleetName = types.StringValue(f.ID), types.StringValue(f.Name)
	}

	priorEntries := fleetDeviceEntries(prior.DeviceDetails)
	planned := fleetDeviceEntries(plan.DeviceDetails)
	held := make(map[string]bool, len(priorEntries))
	for _, e := range priorEntries {
		if !e.ID.IsNull() {
			held[e.ID.ValueString()] = true
		}
	}
	entries := make(map[string]fleetDeviceModel, len(planned))
	var writes []deviceWrite
	for _, k := range slices.Sorted(maps.Keys(planned)) {
		e := planned[k]
		name := e.Name.ValueString()
		p, ok := priorEntries[k]
		switch {
		case !ok || p.ID.IsNull():
			writes = append(writes, deviceWrite{key: k, name: name, fleet: fleet})
		case p.Name.ValueString() != name || (fleet != "" && p.FleetID.ValueString() != fleet):
			writes = append(writes, deviceWrite{key: k, id: p.ID.ValueString(), name: name, fleet: fleet})
			entries[k] = p // until the update answers
		default:
			entries[k] = p
		}
	}
	res := r.data.writeDevices(ctx, ws, writes, int(plan.Parallelism.ValueInt64()), held)
	for i, w := range writes {
		o := res.outcomes[i]
		if o.device == nil && w.id == "" {
			entries[w.key] = failedFleetDevice(w.name)
		}
		if o.device != nil {
			entries[w.key] = flattenFleetDevice(o.device)
			if o.device.FleetID == fleet && o.device.FleetName != "" {
				state.FleetName = types.StringValue(o.device.FleetName)
			}
		}
	}
	if fleet == "" && res.fleet != "" {
		state.FleetID = types.StringValue(res.fleet)
		for i := range writes {
			if o := res.outcomes[i]; o.device != nil && o.device.FleetID == res.fleet {
				state.FleetName = types.StringValue(o.device.FleetName)
				break
			}
		}
	}
	state.DeviceDetails = fleetDeviceMap(entries)
	tflog.Debug(ctx, "updated the devices of a fleet", map[string]any{"workspace_id": ws, "writes": len(writes)})
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	setIdentity(ctx, resp.Identity, fleetDevicesIdentityModel{WorkspaceID: state.WorkspaceID, FleetID: state.FleetID}, &resp.Diagnostics)
	r.reportWrites(ctx, "update", describeFleetDevices(ws, state.FleetID.ValueString()), writes, res.outcomes, &resp.Diagnostics)
}

func (r *fleetDevicesResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state fleetDevicesModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	entries := fleetDeviceEntries(state.DeviceDetails)
	held := 0
	for _, e := range entries {
		if !e.ID.IsNull() {
			held++
		}
	}
	if replacing(ctx, req, &resp.Diagnostics) && held > 0 && held < len(entries) {
		// A create that failed in part left the object tainted, and
		// Terraform replaces tainted objects: forgetting it here and creating
		// it again would create every device twice.
		resp.Diagnostics.AddError("zdm_fleet_devices was created in part: not replacing it",
			fmt.Sprintf("Only %d of the %d devices of this resource were created, so Terraform marked it as tainted and "+
				"plans to replace it. The API has no delete: a replacement would leave these %d devices behind and "+
				"create them again. Run `terraform untaint` with the address of this resource, then apply again: only "+
				"the missing devices are created. (To stop managing the devices instead, run `terraform state rm` "+
				"with that address.)", held, len(entries), held))
		return
	}
	if held == 0 {
		return
	}
	resp.Diagnostics.AddWarning("The devices were only removed from the Terraform state",
		fmt.Sprintf("The ZDM API has no delete operation: the %d devices of %s stay in the service. Terraform no longer "+
			"manages them; import them again to manage them.", held,
			describeFleetDevices(state.WorkspaceID.ValueString(), state.FleetID.ValueString())))
}

// replacing reports whether a Delete is the first half of a replacement:
// its private state then comes from the plan of the create (see
// plannedCreateKey).
func replacing(ctx context.Context, req resource.DeleteRequest, diags *diag.Diagnostics) bool {
	if req.Private == nil {
		return false
	}
	v, d := req.Private.GetKey(ctx, plannedCreateKey)
	diags.Append(d...)
	return len(v) > 0
}

// ImportState imports the devices of a fleet from "<workspace_id>/<fleet_id>"
// or "<fleet_id>" (in the provider's default workspace), keyed by name; a
// third part "by-id" keys them by device ID. The identity { workspace_id,
// fleet_id } imports by name.
func (r *fleetDevicesResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	format := `expected "<workspace_id>/<fleet_id>", "<fleet_id>" (in the provider's workspace) or ` +
		`"<workspace_id>/<fleet_id>/by-id" (to key the devices by ID)`
	var ws, fleet string
	keyByID := false
	if byIdentity(req) {
		var ident fleetDevicesIdentityModel
		resp.Diagnostics.Append(req.Identity.Get(ctx, &ident)...)
		if resp.Diagnostics.HasError() {
			return
		}
		ws, fleet = ident.WorkspaceID.ValueString(), ident.FleetID.ValueString()
		if strings.TrimSpace(fleet) == "" || (!ident.WorkspaceID.IsNull() && strings.TrimSpace(ws) == "") {
			resp.Diagnostics.AddError("Invalid import identity",
				`The identity of a zdm_fleet_devices needs a non-empty fleet_id: identity = { workspace_id = "<workspace_id>", `+
					`fleet_id = "<fleet_id>" } (workspace_id may be left out to use the provider's workspace_id).`)
			return
		}
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
			resp.Diagnostics.AddError("Invalid import ID", "Import ID "+quote(req.ID)+": "+format+".")
			return
		}
	}
	if ws == "" {
		if r.data == nil || r.data.workspaceID == "" {
			resp.Diagnostics.AddError("Invalid import ID",
				"The import names no workspace and the provider has no workspace_id (nor "+envWorkspaceID+"): "+format+".")
			return
		}
		ws = r.data.workspaceID
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("workspace_id"), ws)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("fleet_id"), fleet)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("parallelism"), defaultDeviceParallelism)...)
	setIdentity(ctx, resp.Identity, fleetDevicesIdentityModel{WorkspaceID: types.StringValue(ws), FleetID: types.StringValue(fleet)},
		&resp.Diagnostics)
	markImported(ctx, resp)
	if keyByID && resp.Private != nil {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, importKeyByKey, []byte(`"id"`))...)
	}
}
