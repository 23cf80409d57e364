package fleetdevices

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices"
)

var (
	_ resource.Resource             = (*fleetDevicesResource)(nil)
	_ resource.ResourceWithIdentity = (*fleetDevicesResource)(nil)
)

// The zdm_fleet_devices resource: its schema and identity, declared through
// the framework for GetProviderSchema and the documentation. Everything
// else (validation, state upgrade, read, plan, apply, import) is served at
// the protocol level by fleetDevicesServer (resource_fleet_devices_protocol.go),
// to which the provider's server (internal/provider/server.go) routes every
// call of this type: the framework's handling of one value of 10,000
// devices costs seconds of CPU per call.

// TypeName is the resource's type name.
const TypeName = "zdm_fleet_devices"

// Bounds and default of the parallelism of the writes of many devices
// (zdm_fleet_devices) and of the reads of its list resource.
const (
	defaultDeviceParallelism = 16
	maxDeviceParallelism     = 64
)

// NewResource declares zdm_fleet_devices to the framework; NewServer serves
// it. The provider registers both.
func NewResource() resource.Resource {
	return &fleetDevicesResource{}
}

// fleetDevicesResource declares zdm_fleet_devices.
type fleetDevicesResource struct{}

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
			"`devices` maps a stable key of your choice (such as a serial number) to the device name. A new key " +
			"creates a device; a changed name renames the device in place; a changed `fleet_id` moves every device " +
			"in place; a key renamed with its name kept keeps its device (the plan refuses when several new keys " +
			"share a removed device's name). The API has no delete: a key removed from the map, or the destroy of " +
			"the resource, only stops managing the devices (a warning at plan time names them). A device must be managed by one resource only: " +
			"never put a device in two `zdm_fleet_devices` maps, or in a map and a `zdm_device`.\n\n" +
			"When some requests of an apply fail, the state keeps every device that exists and the error lists the " +
			"keys that failed and why; applying again finishes the job without duplicates, even after you changed " +
			"names, keys, `fleet_id` or `parallelism` meanwhile.\n\n" +
			"A plan that would create a device whose name already exists in the target fleet, held by no key this " +
			"plan keeps (after `terraform taint`, `-replace`, a renamed `for_each` key, a changed resource address or " +
			"an apply killed before it saved the state), or rename or move a device to such a name, fails before " +
			"anything is sent and says how to keep the devices (with the import block to paste); see " +
			"`allow_duplicate_names`.\n\n" +
			"To key managed devices otherwise, change the keys in place (each new key takes the device of its name), " +
			"or `terraform state rm` the resource and import its fleet: the import keys the devices by name, and the " +
			"next apply gives each key of the configuration the device of its name, creating only names the fleet " +
			"lacks.\n\n" +
			"A refresh costs one list call for the whole workspace, whatever the number of devices.",
		Attributes: map[string]schema.Attribute{
			"workspace_id": schema.StringAttribute{
				MarkdownDescription: "ID of the workspace of the devices; defaults to the provider's `workspace_id`. " +
					"Changing it **replaces** the resource: new devices are created there and the old ones stay in " +
					"the service, no longer managed.",
				Optional: true,
				Computed: true,
			},
			"fleet_id": schema.StringAttribute{
				MarkdownDescription: "ID of the fleet of the devices, in the same workspace. When not set, the devices " +
					"go to the workspace's default fleet (the fleet is then recorded here and kept). Changing it " +
					"moves every device in place.",
				Optional: true,
				Computed: true,
			},
			"fleet_name": schema.StringAttribute{
				MarkdownDescription: "Name of the fleet of the devices; null while the fleet is not known.",
				Computed:            true,
			},
			"parallelism": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("How many API requests are in flight at once during an apply, "+
					"from 1 to %d. Defaults to %d.", maxDeviceParallelism, defaultDeviceParallelism),
				Optional: true,
				Computed: true,
			},
			"devices": schema.MapAttribute{
				MarkdownDescription: "The devices: a map from a stable key of your choice (such as a serial number) to " +
					"the device name, such as `{ \"SN-1\" = \"SN-1\", \"SN-2\" = \"roof\" }`. The key never reaches the " +
					"service: keep it when renaming a device. A new key creates a device, unless it replaces a removed " +
					"key of the same name, whose device it then keeps; a changed name renames the device in place; a " +
					"removed key is forgotten (the device stays in the service). A refresh records the " +
					"names the service shows, so a device renamed outside Terraform is renamed back.",
				Required:    true,
				ElementType: types.StringType,
			},
			"device_ids": schema.MapAttribute{
				MarkdownDescription: "The ID the service assigned to each device, by the keys of `devices`. A key whose " +
					"create failed is missing until an apply creates its device.",
				Computed:    true,
				ElementType: types.StringType,
			},
			"devices_elsewhere": schema.MapAttribute{
				MarkdownDescription: "Devices of the map that the last refresh found in another fleet (moved outside " +
					"Terraform), by key, with the ID of that fleet. The next apply moves them back. Empty normally.",
				Computed:    true,
				ElementType: types.StringType,
			},
			"include_details": schema.BoolAttribute{
				MarkdownDescription: "Also record every device as the service shows it in `device_details`. Defaults " +
					"to `false`: the details multiply the size of the state, and Terraform's own time per plan grows " +
					"with it (at 10,000 devices, more than double). The `zdm_devices` data source reads the same details " +
					"with one list call.",
				Optional: true,
				Computed: true,
			},
			devices.AllowDuplicateNamesAttr: schema.BoolAttribute{
				MarkdownDescription: devices.AllowDuplicateNamesDescription,
				Optional:            true,
			},
			"device_details": schema.MapAttribute{
				MarkdownDescription: "With `include_details = true`, the devices as the service shows them, by the keys " +
					"of `devices`: `id`, `name`, `fleet_id`, `phys_id`, `created_at` (RFC 3339) and `identities` (a JSON " +
					"array, null when the device has none). Null otherwise.",
				Computed:    true,
				ElementType: types.ObjectType{AttrTypes: fleetDeviceDetailAttrTypes},
			},
		},
	}
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

// fleetDeviceDetailAttrTypes are the attributes of an element of
// device_details.
var fleetDeviceDetailAttrTypes = map[string]attr.Type{
	"id": types.StringType, "name": types.StringType, "fleet_id": types.StringType,
	"phys_id": types.StringType, "created_at": types.StringType, "identities": types.StringType,
}

// errServedDirectly is the answer of the framework's entry points, which
// the provider's server.go never calls for this type.
var errServedDirectly = errors.New("zdm_fleet_devices is served by the provider's protocol server (NewServer), " +
	"not by the framework's; serve the provider with provider.NewServer")

func (r *fleetDevicesResource) Create(_ context.Context, _ resource.CreateRequest, resp *resource.CreateResponse) {
	resp.Diagnostics.AddError("Internal error", errServedDirectly.Error())
}

func (r *fleetDevicesResource) Read(_ context.Context, _ resource.ReadRequest, resp *resource.ReadResponse) {
	resp.Diagnostics.AddError("Internal error", errServedDirectly.Error())
}

func (r *fleetDevicesResource) Update(_ context.Context, _ resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.AddError("Internal error", errServedDirectly.Error())
}

func (r *fleetDevicesResource) Delete(_ context.Context, _ resource.DeleteRequest, resp *resource.DeleteResponse) {
	resp.Diagnostics.AddError("Internal error", errServedDirectly.Error())
}
