package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/zdm/terraform-provider-zdm/internal/logging"
	zdm "github.com/zdm/terraform-provider-zdm/internal/provider"
)

// The null provider is the plugin floor: a provider named zdm whose
// zdm_device has the real resource's schema (attributes, validators, plan
// modifiers) and identity schema, but whose operations call no API and do
// no work. Terraform,
// the plugin protocol and the framework cost it what they cost the real
// provider; the difference is the provider's own work.
//
// The benchmark binary serves it when started under the provider's binary
// name (a symbolic link in the null provider's dev_overrides directory).

// isNullProvider tells whether this process was started as the null provider.
func isNullProvider() bool {
	base := os.Args[0]
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	return base == providerBinary
}

func serveNullProvider() error {
	fs := flag.NewFlagSet(providerBinary, flag.ContinueOnError)
	debug := fs.Bool("debug", false, "serve in debug mode")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return err
	}
	if !*debug {
		// As the real provider does.
		if err := logging.QuietUnreadLogs(os.Environ(), os.Setenv); err != nil {
			return err
		}
	}
	var opts []tf6server.ServeOpt
	if *debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	return tf6server.Serve(providerAddress, newNullServer, opts...)
}

type nullProvider struct{}

func (nullProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "zdm"
}

func (nullProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}

func (nullProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (nullProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		func() resource.Resource { return &nullDevice{} },
		func() resource.Resource { return nullFleetDevices{} },
	}
}

func (nullProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

// nullDevice is zdm_device without the provider's work.
type nullDevice struct {
	seq atomic.Int64
}

func (r *nullDevice) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = "zdm_device"
}

// realDevice returns the provider's zdm_device.
func realDevice(ctx context.Context) resource.Resource { return realResource(ctx, "zdm_device") }

// realResource returns the provider's resource of a type.
func realResource(ctx context.Context, typeName string) resource.Resource {
	for _, newResource := range zdm.New("bench")().Resources(ctx) {
		res := newResource()
		var md resource.MetadataResponse
		res.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "zdm"}, &md)
		if md.TypeName == typeName {
			return res
		}
	}
	return nil
}

// Schema is the schema of the real zdm_device.
func (r *nullDevice) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	if res := realDevice(ctx); res != nil {
		res.Schema(ctx, req, resp)
		return
	}
	resp.Diagnostics.AddError("No zdm_device", "The provider has no zdm_device resource.")
}

// IdentitySchema is the identity schema of the real zdm_device.
func (r *nullDevice) IdentitySchema(ctx context.Context, req resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	if res, ok := realDevice(ctx).(resource.ResourceWithIdentity); ok {
		res.IdentitySchema(ctx, req, resp)
	}
}

func (r *nullDevice) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	v, err := r.known(req.Plan.Raw)
	if err == nil {
		resp.State.Raw = v
		err = setNullIdentity(ctx, v, resp.Identity)
	}
	if err != nil {
		resp.Diagnostics.AddError("null provider", err.Error())
	}
}

// Read keeps the state as it is.
func (r *nullDevice) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	if resp.Identity != nil && resp.Identity.Raw.IsNull() {
		if err := setNullIdentity(ctx, req.State.Raw, resp.Identity); err != nil {
			resp.Diagnostics.AddError("null provider", err.Error())
		}
	}
}

func (r *nullDevice) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	v, err := r.known(req.Plan.Raw)
	if err == nil {
		resp.State.Raw = v
		err = setNullIdentity(ctx, v, resp.Identity)
	}
	if err != nil {
		resp.Diagnostics.AddError("null provider", err.Error())
	}
}

// setNullIdentity sets the identity to the state's attributes of the same
// names.
func setNullIdentity(ctx context.Context, state tftypes.Value, identity *tfsdk.ResourceIdentity) error {
	if identity == nil {
		return nil
	}
	typ, ok := identity.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		return errors.New("the identity is not an object")
	}
	var attrs map[string]tftypes.Value
	if err := state.As(&attrs); err != nil {
		return err
	}
	vals := make(map[string]tftypes.Value, len(typ.AttributeTypes))
	for name := range typ.AttributeTypes {
		vals[name] = attrs[name]
	}
	identity.Raw = tftypes.NewValue(typ, vals)
	return nil
}

func (r *nullDevice) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// known replaces the unknown strings of a planned object by values.
func (r *nullDevice) known(v tftypes.Value) (tftypes.Value, error) {
	return tftypes.Transform(v, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if v.IsKnown() {
			return v, nil
		}
		if !v.Type().Is(tftypes.String) {
			return tftypes.Value{}, errors.New("unknown value of a type other than string")
		}
		return tftypes.NewValue(tftypes.String, "null-"+strconv.FormatInt(r.seq.Add(1), 10)), nil
	})
}
