package main

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The null provider's zdm_fleet_devices: the real resource's schema, served
// at the protocol level as the real one is, with no work but what a plan
// must do to look like the real one's (an ID per device). Terraform and the
// plugin protocol cost it what they cost the real resource: it is
// Terraform's floor for one resource of N devices.

// nullFleetDevices declares the schema; nullFleetDevicesServer serves it.
type nullFleetDevices struct{}

func (nullFleetDevices) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = "zdm_fleet_devices"
}

func (nullFleetDevices) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	if res := realResource(ctx, "zdm_fleet_devices"); res != nil {
		res.Schema(ctx, req, resp)
		return
	}
	resp.Diagnostics.AddError("No zdm_fleet_devices", "The provider has no zdm_fleet_devices resource.")
}

func (nullFleetDevices) IdentitySchema(ctx context.Context, req resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	if res, ok := realResource(ctx, "zdm_fleet_devices").(resource.ResourceWithIdentity); ok {
		res.IdentitySchema(ctx, req, resp)
	}
}

var errNullServed = errors.New("served at the protocol level")

func (nullFleetDevices) Create(_ context.Context, _ resource.CreateRequest, resp *resource.CreateResponse) {
	resp.Diagnostics.AddError("null provider", errNullServed.Error())
}

func (nullFleetDevices) Read(_ context.Context, _ resource.ReadRequest, resp *resource.ReadResponse) {
	resp.Diagnostics.AddError("null provider", errNullServed.Error())
}

func (nullFleetDevices) Update(_ context.Context, _ resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.AddError("null provider", errNullServed.Error())
}

func (nullFleetDevices) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// nullFrameworkServer is what the framework's server answers.
type nullFrameworkServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer
	tfprotov6.ActionServer
}

// nullServer is the null provider's framework server, with
// zdm_fleet_devices served at the protocol level.
type nullServer struct {
	nullFrameworkServer
	typ           tftypes.Object
	identityType  tftypes.Object
	identityAttrs []string
}

func newNullServer() tfprotov6.ProviderServer {
	ps := providerserver.NewProtocol6(nullProvider{})()
	fw, ok := ps.(nullFrameworkServer)
	if !ok {
		panic(fmt.Sprintf("the framework's server %T lacks list resources or actions", ps))
	}
	s := &nullServer{nullFrameworkServer: fw}
	ctx := context.Background()
	sch, err := fw.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || sch.ResourceSchemas[nullFleetDevicesType] == nil {
		panic(fmt.Sprintf("null provider schema: %v", err))
	}
	s.typ, _ = sch.ResourceSchemas[nullFleetDevicesType].ValueType().(tftypes.Object)
	ids, err := fw.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err == nil && ids.IdentitySchemas[nullFleetDevicesType] != nil {
		s.identityType, _ = ids.IdentitySchemas[nullFleetDevicesType].ValueType().(tftypes.Object)
		for name := range s.identityType.AttributeTypes {
			s.identityAttrs = append(s.identityAttrs, name)
		}
	}
	return s
}

const nullFleetDevicesType = "zdm_fleet_devices"

func nullDiags(err error) []*tfprotov6.Diagnostic {
	return []*tfprotov6.Diagnostic{{Severity: tfprotov6.DiagnosticSeverityError, Summary: "null provider", Detail: err.Error()}}
}

func (s *nullServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	if req.TypeName != nullFleetDevicesType {
		return s.nullFrameworkServer.ValidateResourceConfig(ctx, req)
	}
	return &tfprotov6.ValidateResourceConfigResponse{}, nil
}

func (s *nullServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	if req.TypeName != nullFleetDevicesType {
		return s.nullFrameworkServer.UpgradeResourceState(ctx, req)
	}
	// No work: Terraform reads the state's JSON itself.
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &tfprotov6.DynamicValue{JSON: req.RawState.JSON}}, nil
}

// identity is the identity of a state: its attributes of the same names.
func (s *nullServer) identity(state *tfprotov6.DynamicValue) (*tfprotov6.ResourceIdentityData, error) {
	if len(s.identityAttrs) == 0 || state == nil {
		return nil, nil
	}
	v, err := state.Unmarshal(s.typ)
	if err != nil || v.IsNull() {
		return nil, err
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		return nil, err
	}
	vals := make(map[string]tftypes.Value, len(s.identityAttrs))
	for _, name := range s.identityAttrs {
		vals[name] = attrs[name]
	}
	dv, err := tfprotov6.NewDynamicValue(s.identityType, tftypes.NewValue(s.identityType, vals))
	return &tfprotov6.ResourceIdentityData{IdentityData: &dv}, err
}

func (s *nullServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	if req.TypeName != nullFleetDevicesType {
		return s.nullFrameworkServer.ReadResource(ctx, req)
	}
	ident, err := s.identity(req.CurrentState)
	if err != nil {
		return &tfprotov6.ReadResourceResponse{Diagnostics: nullDiags(err)}, nil
	}
	return &tfprotov6.ReadResourceResponse{NewState: req.CurrentState, Private: req.Private, NewIdentity: ident}, nil
}

// PlanResourceChange completes the proposed state as the real resource
// does, without its checks: defaults, an ID per device, the fleet.
func (s *nullServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	if req.TypeName != nullFleetDevicesType {
		return s.nullFrameworkServer.PlanResourceChange(ctx, req)
	}
	resp := &tfprotov6.PlanResourceChangeResponse{PlannedState: req.ProposedNewState, PlannedIdentity: req.PriorIdentity}
	v, err := req.ProposedNewState.Unmarshal(s.typ)
	if err != nil || v.IsNull() {
		if err != nil {
			resp.Diagnostics = nullDiags(err)
		}
		return resp, nil
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		resp.Diagnostics = nullDiags(err)
		return resp, nil
	}
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	strMap := tftypes.Map{ElementType: tftypes.String}
	var devices map[string]tftypes.Value
	if err := attrs["devices"].As(&devices); err != nil {
		resp.Diagnostics = nullDiags(err)
		return resp, nil
	}
	ids := make(map[string]tftypes.Value, len(devices))
	for k := range devices {
		ids[k] = str("null-" + k)
	}
	attrs["device_ids"] = tftypes.NewValue(strMap, ids)
	attrs["devices_elsewhere"] = tftypes.NewValue(strMap, map[string]tftypes.Value{})
	for name, def := range map[string]tftypes.Value{
		"workspace_id": str("null-workspace"), "fleet_id": str("null-fleet"), "fleet_name": str("null"),
		"parallelism": tftypes.NewValue(tftypes.Number, big.NewFloat(16)), "include_details": tftypes.NewValue(tftypes.Bool, false),
	} {
		if attrs[name].IsNull() {
			attrs[name] = def
		}
	}
	planned, err := tfprotov6.NewDynamicValue(s.typ, tftypes.NewValue(s.typ, attrs))
	if err != nil {
		resp.Diagnostics = nullDiags(err)
		return resp, nil
	}
	resp.PlannedState = &planned
	return resp, nil
}

func (s *nullServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	if req.TypeName != nullFleetDevicesType {
		return s.nullFrameworkServer.ApplyResourceChange(ctx, req)
	}
	ident, err := s.identity(req.PlannedState)
	if err != nil {
		return &tfprotov6.ApplyResourceChangeResponse{Diagnostics: nullDiags(err)}, nil
	}
	return &tfprotov6.ApplyResourceChangeResponse{NewState: req.PlannedState, Private: req.PlannedPrivate, NewIdentity: ident}, nil
}
