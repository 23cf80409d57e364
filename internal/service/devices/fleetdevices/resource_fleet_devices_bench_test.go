package fleetdevices

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// BenchmarkFleetDevicesProtocol measures the provider's own cost of a
// refresh (ReadResource) and a no-op plan (PlanResourceChange) of one
// zdm_fleet_devices of N devices, called at the protocol level against the
// local server, without a Terraform CLI:
//
//	go test ./internal/service/devices/fleetdevices -run '^$' -bench FleetDevicesProtocol -benchtime 1x
//
// It shows how the cost grows with N (the framework walks the whole value
// of the resource with per-element work).
func BenchmarkFleetDevicesProtocol(b *testing.B) {
	for _, n := range []int{1000, 4000, 10000} {
		b.Run(fmt.Sprintf("devices=%d", n), func(b *testing.B) {
			ps, state := fleetDevicesProtocolFixture(b, n)
			b.ResetTimer()
			for b.Loop() {
				rr, err := ps.ReadResource(b.Context(), &tfprotov6.ReadResourceRequest{TypeName: "zdm_fleet_devices", CurrentState: state})
				if err != nil || hasErrorDiag(rr.Diagnostics) {
					b.Fatalf("read: %v %v", err, rr.Diagnostics)
				}
				pr, err := ps.PlanResourceChange(b.Context(), &tfprotov6.PlanResourceChangeRequest{TypeName: "zdm_fleet_devices",
					PriorState: rr.NewState, ProposedNewState: rr.NewState, Config: rr.NewState})
				if err != nil || hasErrorDiag(pr.Diagnostics) {
					b.Fatalf("plan: %v %v", err, pr.Diagnostics)
				}
			}
		})
	}
}

func hasErrorDiag(diags []*tfprotov6.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// fleetDevicesProtocolFixture starts a local server holding n devices, a
// configured provider server, and the state of a zdm_fleet_devices that
// holds them.
func fleetDevicesProtocolFixture(b *testing.B, n int) (tfprotov6.ProviderServer, *tfprotov6.DynamicValue) {
	b.Helper()
	srv := localzdm.StartTest(b)
	boot, err := srv.Bootstrap("bench")
	if err != nil {
		b.Fatal(err)
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("d-%05d", i)
	}
	ids, err := srv.CreateDevices(boot.WorkspaceID, "", names)
	if err != nil {
		b.Fatal(err)
	}
	c, err := client.New(client.Config{BaseURL: srv.BaseURL(), APIKey: boot.APIKey})
	if err != nil {
		b.Fatal(err)
	}
	listed, err := c.ListDevices(context.Background(), boot.WorkspaceID)
	if err != nil || len(listed) == 0 {
		b.Fatalf("list: %v (%d devices)", err, len(listed))
	}
	ps := acctest.MustServer(b)
	ctx := context.Background()
	sch, err := ps.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		b.Fatal(err)
	}
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	ptyp, ok := sch.Provider.ValueType().(tftypes.Object)
	if !ok {
		b.Fatalf("provider schema type %T, want an object", sch.Provider.ValueType())
	}
	pvals := map[string]tftypes.Value{}
	for name, t := range ptyp.AttributeTypes {
		pvals[name] = tftypes.NewValue(t, nil)
	}
	pvals["base_url"], pvals["api_key"], pvals["workspace_id"] = str(srv.BaseURL()), str(boot.APIKey), str(boot.WorkspaceID)
	pcfg, err := tfprotov6.NewDynamicValue(ptyp, tftypes.NewValue(ptyp, pvals))
	if err != nil {
		b.Fatal(err)
	}
	if cr, err := ps.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &pcfg}); err != nil || hasErrorDiag(cr.Diagnostics) {
		b.Fatalf("configure: %v %v", err, cr.Diagnostics)
	}
	names2 := make(map[string]tftypes.Value, n)
	ids2 := make(map[string]tftypes.Value, n)
	for i, name := range names {
		names2[name] = str(name)
		ids2[name] = str(ids[i])
	}
	strMap := tftypes.Map{ElementType: tftypes.String}
	state, err := tfprotov6.NewDynamicValue(fleetDevicesType, tftypes.NewValue(fleetDevicesType, map[string]tftypes.Value{
		"workspace_id": str(boot.WorkspaceID), "fleet_id": str(listed[0].FleetID()), "fleet_name": str("default"),
		"parallelism":       tftypes.NewValue(tftypes.Number, defaultDeviceParallelism),
		"include_details":   tftypes.NewValue(tftypes.Bool, false),
		"devices":           tftypes.NewValue(strMap, names2),
		"device_ids":        tftypes.NewValue(strMap, ids2),
		"devices_elsewhere": tftypes.NewValue(strMap, map[string]tftypes.Value{}),
		"device_details":    tftypes.NewValue(tftypes.Map{ElementType: fleetDeviceDetailType}, nil),

		"allow_duplicate_names": tftypes.NewValue(tftypes.Bool, nil),
	}))
	if err != nil {
		b.Fatal(err)
	}
	return ps, &state
}
