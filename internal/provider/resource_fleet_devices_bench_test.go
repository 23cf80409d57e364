package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

// BenchmarkFleetDevicesProtocol measures the provider's own cost of a
// refresh (ReadResource) and a no-op plan (PlanResourceChange) of one
// zdm_fleet_devices of N devices, called at the protocol level against the
// local server, without a Terraform CLI:
//
//	go test ./internal/provider -run '^$' -bench FleetDevicesProtocol -benchtime 1x
//
// It shows how the cost grows with N (the framework walks the whole value
// of the resource with per-element work).
func BenchmarkFleetDevicesProtocol(b *testing.B) {
	for _, n := range []int{500, 1000, 2000, 4000} {
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
	ps, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		b.Fatal(err)
	}
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
	rtyp, ok := sch.ResourceSchemas["zdm_fleet_devices"].ValueType().(tftypes.Object)
	if !ok {
		b.Fatal("zdm_fleet_devices schema type is not an object")
	}
	detT, ok := rtyp.AttributeTypes["device_details"].(tftypes.Map)
	if !ok {
		b.Fatal("device_details is not a map")
	}
	objT, ok := detT.ElementType.(tftypes.Object)
	if !ok {
		b.Fatal("device_details elements are not objects")
	}
	empty := tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}
	argTypes := make(map[string]tftypes.Type, n)
	args := make(map[string]tftypes.Value, n)
	details := make(map[string]tftypes.Value, n)
	for i, name := range names {
		argTypes[name] = empty
		args[name] = tftypes.NewValue(empty, map[string]tftypes.Value{})
		details[name] = tftypes.NewValue(objT, map[string]tftypes.Value{
			"id": str(ids[i]), "name": str(name), "fleet_id": str("f"), "phys_id": str("p"), "created_at": str("c"),
			"identities": tftypes.NewValue(tftypes.String, nil),
		})
	}
	state, err := tfprotov6.NewDynamicValue(rtyp, tftypes.NewValue(rtyp, map[string]tftypes.Value{
		"workspace_id": str(boot.WorkspaceID), "fleet_id": str("f"), "fleet_name": str("default"),
		"parallelism":    tftypes.NewValue(tftypes.Number, defaultDeviceParallelism),
		"devices":        tftypes.NewValue(tftypes.Object{AttributeTypes: argTypes}, args),
		"device_details": tftypes.NewValue(detT, details),
	}))
	if err != nil {
		b.Fatal(err)
	}
	return ps, &state
}
