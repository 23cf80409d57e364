package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
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
				fleetDevicesTypeName: &fleetDevicesServer{provider: p},
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

// protoDiagnostics converts the framework's diagnostics of a direct
// resource to the protocol's, with their attribute paths.
func protoDiagnostics(diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	if len(diags) == 0 {
		return nil
	}
	out := make([]*tfprotov6.Diagnostic, 0, len(diags))
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityWarning, Summary: d.Summary(), Detail: d.Detail()}
		if d.Severity() == diag.SeverityError {
			pd.Severity = tfprotov6.DiagnosticSeverityError
		}
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			pd.Attribute = protoPath(wp.Path())
		}
		out = append(out, pd)
	}
	return out
}

// protoPath converts an attribute path of attribute names and string map
// keys, the only steps the direct resources use.
func protoPath(p path.Path) *tftypes.AttributePath {
	out := tftypes.NewAttributePath()
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case path.PathStepAttributeName:
			out = out.WithAttributeName(string(s))
		case path.PathStepElementKeyString:
			out = out.WithElementKeyString(string(s))
		case path.PathStepElementKeyInt:
			out = out.WithElementKeyInt(int(s))
		}
	}
	return out
}

// errorDiagnostics is the one error of a call that cannot go on.
func errorDiagnostics(summary, detail string) []*tfprotov6.Diagnostic {
	return []*tfprotov6.Diagnostic{{Severity: tfprotov6.DiagnosticSeverityError, Summary: summary, Detail: detail}}
}
