package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/zdm/terraform-provider-zdm/internal/service/devices/fleetdevices"
)

// The provider's protocol server: the framework's server, with the
// resources that must scale past what the framework's value handling
// allows served at the protocol level (see DESIGN.md, "Many devices as one
// resource"). Such a resource still declares its schema, identity schema
// and documentation through the framework; its validation, state upgrade,
// reads, plans, applies and imports come here instead, and work on its
// values directly, converting them once.

// directResource serves the protocol calls of one resource type.
type directResource interface {
	ValidateResourceConfig(context.Context, *tfprotov6.ValidateResourceConfigRequest) *tfprotov6.ValidateResourceConfigResponse
	UpgradeResourceState(context.Context, *tfprotov6.UpgradeResourceStateRequest) *tfprotov6.UpgradeResourceStateResponse
	ReadResource(context.Context, *tfprotov6.ReadResourceRequest) *tfprotov6.ReadResourceResponse
	PlanResourceChange(context.Context, *tfprotov6.PlanResourceChangeRequest) *tfprotov6.PlanResourceChangeResponse
	ApplyResourceChange(context.Context, *tfprotov6.ApplyResourceChangeRequest) *tfprotov6.ApplyResourceChangeResponse
	ImportResourceState(context.Context, *tfprotov6.ImportResourceStateRequest) *tfprotov6.ImportResourceStateResponse
}

// NewServer returns a constructor of the provider's protocol server;
// version is as in New. main.go serves it, and the acceptance tests use it.
func NewServer(version string) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		p := &zdmProvider{version: version}
		ps, err := providerserver.NewProtocol6WithError(p)()
		if err != nil {
			return nil, err
		}
		fw, ok := ps.(frameworkServer)
		if !ok {
			return nil, fmt.Errorf("the framework's server (%T) does not serve list resources and actions", ps)
		}
		return &server{
			frameworkServer: fw,
			direct: map[string]directResource{
				fleetdevices.TypeName: fleetdevices.NewServer(p.data.Load),
			},
		}, nil
	}
}

// frameworkServer is every call the framework's server answers, list
// resources and actions included: tf6server finds those by type assertion,
// so the wrapper must have them too.
type frameworkServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer
	tfprotov6.ActionServer
}

// server is the framework's server with the direct resources.
type server struct {
	frameworkServer
	direct map[string]directResource
}

func (s *server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	if r, ok := s.direct[req.TypeName]; ok {
		return r.ValidateResourceConfig(ctx, req), nil
	}
	return s.frameworkServer.ValidateResourceConfig(ctx, req)
}

func (s *server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	if r, ok := s.direct[req.TypeName]; ok {
		return r.UpgradeResourceState(ctx, req), nil
	}
	return s.frameworkServer.UpgradeResourceState(ctx, req)
}

func (s *server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	if r, ok := s.direct[req.TypeName]; ok {
		return r.ReadResource(ctx, req), nil
	}
	return s.frameworkServer.ReadResource(ctx, req)
}

func (s *server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	if r, ok := s.direct[req.TypeName]; ok {
		return r.PlanResourceChange(ctx, req), nil
	}
	return s.frameworkServer.PlanResourceChange(ctx, req)
}

func (s *server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	if r, ok := s.direct[req.TypeName]; ok {
		return r.ApplyResourceChange(ctx, req), nil
	}
	return s.frameworkServer.ApplyResourceChange(ctx, req)
}

func (s *server) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	if r, ok := s.direct[req.TypeName]; ok {
		return r.ImportResourceState(ctx, req), nil
	}
	return s.frameworkServer.ImportResourceState(ctx, req)
}
