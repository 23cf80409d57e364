package fleets

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
	"github.com/zdm/terraform-provider-zdm/internal/service/scheduling"
)

var (
	_ datasource.DataSource                   = (*fleetStatusDataSource)(nil)
	_ datasource.DataSourceWithConfigure      = (*fleetStatusDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*fleetStatusDataSource)(nil)
)

func NewFleetStatusDataSource() datasource.DataSource {
	return &fleetStatusDataSource{DataSourceBase: objects.DataSourceBase{TypeSuffix: "_fleet_status"}}
}

// fleetStatusDataSource reads the status of a job or of the firmware update
// on every device of a workspace, of fleets or of a set of devices.
type fleetStatusDataSource struct {
	objects.DataSourceBase
}

// fleetStatusModel maps the zdm_fleet_status data source.
type fleetStatusModel struct {
	WorkspaceID      types.String `tfsdk:"workspace_id"`
	FleetIDs         types.Set    `tfsdk:"fleet_ids"`
	DeviceIDs        types.Set    `tfsdk:"device_ids"`
	JobName          types.String `tfsdk:"job_name"`
	FOTA             types.Bool   `tfsdk:"fota"`
	FirmwareID       types.String `tfsdk:"firmware_id"`
	FirmwareVersion  types.String `tfsdk:"firmware_version"`
	Parallelism      types.Int64  `tfsdk:"parallelism"`
	DeviceCount      types.Int64  `tfsdk:"device_count"`
	Devices          types.List   `tfsdk:"devices"`
	StatusCounts     types.Map    `tfsdk:"status_counts"`
	FirmwareCounts   types.List   `tfsdk:"firmware_counts"`
	MissingDeviceIDs types.List   `tfsdk:"missing_device_ids"`
}

func (d *fleetStatusDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	notEmpty := validators.NotEmpty()
	idSet := func(description string) schema.SetAttribute {
		return schema.SetAttribute{
			MarkdownDescription: description,
			ElementType:         types.StringType,
			Optional:            true,
			Validators:          validators.NotEmptySet(),
		}
	}
	computed := func(description string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: description, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads, on every device of a workspace (or of some of its fleets, or some devices), " +
			"the status of one job (`job_name`) or of the firmware update (`fota = true`): per device, the status, " +
			"when it was scheduled and its value or firmware; counts by status and by firmware; and the devices " +
			"that never got it. It is made for `check` blocks and postconditions, such as \"every device of fleet " +
			"X runs firmware 2.1\".\n\n" +
			"The devices are listed with one API call (plus one list of the fleets when `fleet_ids` is set), then " +
			"read with one call each, `parallelism` at a time; every call retries like the provider's other calls. " +
			"Devices are sorted by ID.",
		Attributes: map[string]schema.Attribute{
			"workspace_id": objects.WorkspaceLookupAttribute(),
			"fleet_ids": idSet("Only read the devices of these fleets. An ID the workspace does not hold is an " +
				"error (an empty fleet is not)."),
			"device_ids": idSet("Only read these devices. An ID the workspace does not hold is an error. With " +
				"`fleet_ids`, a device must be in both."),
			"job_name": schema.StringAttribute{
				MarkdownDescription: "Name of the job to read on each device. Exactly one of `job_name` and " +
					"`fota = true` must be set.",
				Optional:   true,
				Validators: notEmpty,
			},
			"fota": schema.BoolAttribute{
				MarkdownDescription: "Read the firmware-over-the-air update of each device instead of a job.",
				Optional:            true,
			},
			"firmware_id": schema.StringAttribute{
				MarkdownDescription: "With `fota = true` and `firmware_version`: the firmware expected. Devices " +
					"whose current update is another firmware are then listed in `missing_device_ids`.",
				Optional: true,
				Validators: append(notEmpty,
					stringvalidator.AlsoRequires(path.MatchRoot("firmware_version"), path.MatchRoot("fota"))),
			},
			"firmware_version": schema.StringAttribute{
				MarkdownDescription: "Version of `firmware_id` expected.",
				Optional:            true,
				Validators: append(notEmpty,
					stringvalidator.AlsoRequires(path.MatchRoot("firmware_id"), path.MatchRoot("fota"))),
			},
			"parallelism": schema.Int64Attribute{
				MarkdownDescription: "How many devices are read at once (1 to 64; default 16). Raise it for large " +
					"fleets on a slow network, lower it when the service rate-limits the key.",
				Optional:   true,
				Computed:   true,
				Validators: []validator.Int64{int64validator.Between(1, scheduling.MaxStatusParallelism)},
			},
			"device_count": schema.Int64Attribute{
				MarkdownDescription: "Number of devices read.",
				Computed:            true,
			},
			"devices": schema.ListNestedAttribute{
				MarkdownDescription: "One entry per device, sorted by device ID.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"device_id":   computed("Device ID."),
					"device_name": computed("Device name."),
					"fleet_id":    computed("Fleet of the device."),
					"scheduled": schema.BoolAttribute{
						MarkdownDescription: "Whether the device has the job (or a firmware update); `false` when " +
							"it never got one, and then the attributes below are null.",
						Computed: true,
					},
					"status": computed("Status as the service reports it: `pending`, then `done` for jobs; " +
						"firmware updates may report other values, such as `failed`."),
					"scheduled_at":     computed("When it was scheduled (RFC 3339)."),
					"value":            computed("The job's argument object as JSON text (jobs only)."),
					"firmware_id":      computed("Firmware of the current update (`fota` only)."),
					"firmware_version": computed("Version of the current update (`fota` only)."),
				}},
			},
			"status_counts": schema.MapAttribute{
				MarkdownDescription: "Number of devices per status, for example `{ done = 40, pending = 2 }`. " +
					"Devices without the job or update are not counted here: see `missing_device_ids`. With " +
					"`firmware_id` and `firmware_version`, only the devices whose current update is that firmware are " +
					"counted (the others are in `missing_device_ids`): `status_counts[\"done\"] == device_count` then " +
					"means every device finished the requested firmware.",
				ElementType: types.Int64Type,
				Computed:    true,
			},
			"firmware_counts": schema.ListNestedAttribute{
				MarkdownDescription: "With `fota = true`: number of devices per firmware of their current update, " +
					"sorted by firmware ID then version. Empty for a job.",
				Computed: true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"firmware_id":      computed("Firmware ID."),
					"firmware_version": computed("Firmware version."),
					"devices": schema.Int64Attribute{
						MarkdownDescription: "Number of devices whose current update is this firmware.",
						Computed:            true,
					},
				}},
			},
			"missing_device_ids": schema.ListAttribute{
				MarkdownDescription: "Devices that never got the job or any firmware update, sorted; with " +
					"`firmware_id` and `firmware_version`, also the devices whose current update is another firmware.",
				ElementType: types.StringType,
				Computed:    true,
			},
		},
	}
}

func (d *fleetStatusDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var cfg fleetStatusModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() || cfg.JobName.IsUnknown() || cfg.FOTA.IsUnknown() {
		return
	}
	job, fota := !cfg.JobName.IsNull(), cfg.FOTA.ValueBool()
	switch {
	case job && fota:
		resp.Diagnostics.AddAttributeError(path.Root("job_name"), "Conflicting job_name and fota",
			"Set job_name to read a job, or fota = true to read the firmware update, not both.")
	case !job && !fota:
		resp.Diagnostics.AddAttributeError(path.Root("job_name"), "Missing job_name or fota",
			"Say what to read: job_name = \"<job>\" for a job, or fota = true for the firmware update.")
	}
}

func (d *fleetStatusDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	cfg, ok := connection.Decode[fleetStatusModel](ctx, d.Data, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	ws := objects.WorkspaceOrDefault(d.Data, cfg.WorkspaceID, path.Root("workspace_id"), &resp.Diagnostics)
	scope := fleetstatus.Scope{
		WorkspaceID: ws,
		FleetIDs:    values.SetStrings(ctx, cfg.FleetIDs, &resp.Diagnostics),
		DeviceIDs:   values.SetStrings(ctx, cfg.DeviceIDs, &resp.Diagnostics),
	}
	if resp.Diagnostics.HasError() {
		return
	}
	kind := fleetstatus.FOTA
	if !cfg.JobName.IsNull() {
		kind = fleetstatus.Job(cfg.JobName.ValueString())
	}
	parallel := scheduling.StatusParallelism(cfg.Parallelism)
	res, err := scheduling.ReadFleetStatus(ctx, d.Data.Client, scope, kind, parallel)
	if err != nil {
		summary := "Cannot read the " + kind.String() + " of the devices of workspace " + ws
		detail := err.Error()
		if strings.Contains(detail, "has no fleet") || strings.Contains(detail, "has no device") {
			detail += ". Check fleet_ids and device_ids."
		}
		resp.Diagnostics.AddError(summary, detail)
		return
	}
	var want *fleetstatus.Firmware
	if !cfg.FirmwareID.IsNull() && !cfg.FirmwareVersion.IsNull() {
		want = &fleetstatus.Firmware{ID: cfg.FirmwareID.ValueString(), Version: cfg.FirmwareVersion.ValueString()}
	}
	cfg.WorkspaceID = types.StringValue(ws)
	cfg.Parallelism = types.Int64Value(int64(parallel))
	cfg.DeviceCount = types.Int64Value(int64(len(res.Devices)))
	cfg.Devices = deviceStatusList(kind, res.Devices)
	cfg.StatusCounts = scheduling.CountsMap(res.StatusCounts(want))
	cfg.FirmwareCounts = firmwareCountsList(res.FirmwareCounts())
	cfg.MissingDeviceIDs = values.StringList(res.Missing(want))
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

// deviceStatusAttrTypes are the attributes of one device's status.
var deviceStatusAttrTypes = map[string]attr.Type{
	"device_id":        types.StringType,
	"device_name":      types.StringType,
	"fleet_id":         types.StringType,
	"scheduled":        types.BoolType,
	"status":           types.StringType,
	"scheduled_at":     types.StringType,
	"value":            types.StringType,
	"firmware_id":      types.StringType,
	"firmware_version": types.StringType,
}

// deviceStatusList is the list value of device statuses, in their order.
// value is set for jobs, firmware_id and firmware_version for firmware
// updates; all three, status and scheduled_at are null on a device that
// never got the job or update.
func deviceStatusList(kind fleetstatus.Kind, devices []fleetstatus.Device) types.List {
	objType := types.ObjectType{AttrTypes: deviceStatusAttrTypes}
	elems := make([]attr.Value, len(devices))
	for i, d := range devices {
		optional := func(s string, set bool) types.String {
			if !set {
				return types.StringNull()
			}
			return types.StringValue(s)
		}
		value := types.StringNull()
		if d.Found && !kind.IsFOTA() {
			value = types.StringValue(values.CompactJSON(d.Value))
		}
		elems[i] = types.ObjectValueMust(deviceStatusAttrTypes, map[string]attr.Value{
			"device_id":        types.StringValue(d.ID),
			"device_name":      optional(d.Name, d.Name != ""),
			"fleet_id":         optional(d.FleetID, d.FleetID != ""),
			"scheduled":        types.BoolValue(d.Found),
			"status":           optional(d.Status, d.Found),
			"scheduled_at":     optional(d.ScheduledAt, d.Found),
			"value":            value,
			"firmware_id":      optional(d.FirmwareID, d.Found && kind.IsFOTA()),
			"firmware_version": optional(d.FirmwareVersion, d.Found && kind.IsFOTA()),
		})
	}
	return types.ListValueMust(objType, elems)
}

// firmwareCountAttrTypes are the attributes of one firmware count.
var firmwareCountAttrTypes = map[string]attr.Type{
	"firmware_id":      types.StringType,
	"firmware_version": types.StringType,
	"devices":          types.Int64Type,
}

// firmwareCountsList is the list value of firmware counts, in their order.
func firmwareCountsList(counts []fleetstatus.FirmwareCount) types.List {
	elems := make([]attr.Value, len(counts))
	for i, c := range counts {
		elems[i] = types.ObjectValueMust(firmwareCountAttrTypes, map[string]attr.Value{
			"firmware_id":      types.StringValue(c.ID),
			"firmware_version": types.StringValue(c.Version),
			"devices":          types.Int64Value(int64(c.Devices)),
		})
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: firmwareCountAttrTypes}, elems)
}
