package scheduling

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
)

// This file turns the fleet-wide status reads of package fleetstatus (one
// list of the devices, then bounded concurrent per-device GETs) into
// Terraform values. zdm_fleet_status, the fleet-wide scheduling resources'
// read-back and their gate read through it; the rollouts (package
// rollouts) read per wave through fleetstatus itself.

// readFleetStatus reads the status of kind (a job name, or the firmware
// update) on every device of scope, parallel reads at a time (0: the
// default, 16), sorted by device ID. It logs the size and duration of the
// read.
func readFleetStatus(ctx context.Context, c *client.Client, scope fleetstatus.Scope, kind fleetstatus.Kind, parallel int) (*fleetstatus.Result, error) {
	start := time.Now()
	res, err := fleetstatus.Read(ctx, c, scope, kind, parallel)
	if err != nil {
		return nil, err
	}
	tflog.Debug(ctx, "read fleet status", map[string]any{
		"workspace_id": scope.WorkspaceID, "what": kind.String(), "devices": len(res.Devices),
		"parallelism": parallel, "duration_ms": time.Since(start).Milliseconds(),
	})
	return res, nil
}

// Limits of the parallelism attributes.
const (
	defaultStatusParallelism = fleetstatus.DefaultParallelism
	MaxStatusParallelism     = fleetstatus.MaxParallelism
)

// StatusParallelism returns the configured parallelism, or the default.
func StatusParallelism(v types.Int64) int {
	if v.IsNull() || v.IsUnknown() || v.ValueInt64() < 1 {
		return defaultStatusParallelism
	}
	return int(min(v.ValueInt64(), MaxStatusParallelism))
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

// CountsMap is a map value of counts.
func CountsMap(counts map[string]int) types.Map {
	elems := make(map[string]attr.Value, len(counts))
	for k, n := range counts {
		elems[k] = types.Int64Value(int64(n))
	}
	return types.MapValueMust(types.Int64Type, elems)
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
