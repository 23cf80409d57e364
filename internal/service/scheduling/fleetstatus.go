package scheduling

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/fleetstatus"
)

// This file holds what the Terraform side of the fleet-wide status reads of
// package fleetstatus (one list of the devices, then bounded concurrent
// per-device GETs) shares: the logged read, the parallelism attributes'
// limits and the counts by status. The fleet-wide scheduling resources'
// read-back and their gate read through ReadFleetStatus, and so does
// zdm_fleet_status (package fleets); the rollouts (package rollouts) read
// per wave through fleetstatus itself.

// ReadFleetStatus reads the status of kind (a job name, or the firmware
// update) on every device of scope, parallel reads at a time (0: the
// default, 16), sorted by device ID. It logs the size and duration of the
// read.
func ReadFleetStatus(ctx context.Context, c *client.Client, scope fleetstatus.Scope, kind fleetstatus.Kind, parallel int) (*fleetstatus.Result, error) {
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

// CountsMap is a map value of counts.
func CountsMap(counts map[string]int) types.Map {
	elems := make(map[string]attr.Value, len(counts))
	for k, n := range counts {
		elems[k] = types.Int64Value(int64(n))
	}
	return types.MapValueMust(types.Int64Type, elems)
}
