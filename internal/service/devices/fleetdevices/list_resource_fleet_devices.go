package fleetdevices

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/protoval"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

var (
	_ list.ListResource              = (*fleetDevicesListResource)(nil)
	_ list.ListResourceWithConfigure = (*fleetDevicesListResource)(nil)
)

// NewListResource returns the list resource of zdm_fleet_devices.
func NewListResource() list.ListResource {
	return &fleetDevicesListResource{ListResourceBase: objects.ListResourceBase{TypeSuffix: "_fleet_devices"}}
}

// fleetDevicesListResource lists, for terraform query, one zdm_fleet_devices
// per fleet of a workspace: the devices of each fleet keyed by name, from
// one list of the fleets, and one of the devices when the results carry
// their resources.
type fleetDevicesListResource struct {
	objects.ListResourceBase
}

// identityModel is the identity of a zdm_fleet_devices, which the list
// resource sets through the framework.
type identityModel struct {
	WorkspaceID types.String `tfsdk:"workspace_id"`
	FleetID     types.String `tfsdk:"fleet_id"`
}

// fleetDevicesListModel maps the config block of a zdm_fleet_devices list block.
type fleetDevicesListModel struct {
	WorkspaceID types.String `tfsdk:"workspace_id"`
	FleetID     types.String `tfsdk:"fleet_id"`
}

func (r *fleetDevicesListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	filter := validators.NotEmpty()
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the fleets of a workspace as `zdm_fleet_devices` for `terraform query`: one result " +
			"per fleet (the `default` fleet included, and empty fleets), whatever the number of devices, with one API " +
			"call per `list` block (the fleets), and a second one (the devices) with `include_resource = true`. Results come sorted by fleet name, then ID; each is " +
			"identified by `workspace_id` and `fleet_id` and displayed as `name (id)`. With `include_resource = true` " +
			"(implied by `-generate-config-out`) it carries the devices of the fleet keyed by name, as an import by " +
			"identity reads them. A fleet whose devices share a name gets a warning: import it with the ID " +
			"`<workspace_id>/<fleet_id>/by-id` instead.",
		Attributes: map[string]schema.Attribute{
			"workspace_id": schema.StringAttribute{
				MarkdownDescription: "Workspace to list; defaults to the provider's `workspace_id`.",
				Optional:            true,
				Validators:          filter,
			},
			"fleet_id": schema.StringAttribute{
				MarkdownDescription: "Only list this fleet.",
				Optional:            true,
				Validators:          filter,
			},
		},
	}
}

func (r *fleetDevicesListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg fleetDevicesListModel
	ws, ok := objects.ListInWorkspace(ctx, r.Data, req, stream, &cfg, func() types.String { return cfg.WorkspaceID })
	if !ok {
		return
	}
	fleets, ok := objects.ListFleets(ctx, r.Data, ws, stream)
	if !ok {
		return
	}
	var byFleet map[string][]client.Device
	if req.IncludeResource {
		all, err := r.Data.Client.ListDevices(ctx, ws)
		if err != nil {
			objects.ListError(stream, "Cannot list the devices of workspace "+ws, err.Error())
			return
		}
		byFleet = map[string][]client.Device{}
		for _, d := range all {
			byFleet[d.FleetID()] = append(byFleet[d.FleetID()], d)
		}
	}
	only := cfg.FleetID.ValueString()
	stream.Results = objects.StreamResults(ctx, req, fleets,
		func(f *client.Fleet) bool { return only == "" || f.ID == only },
		func(f *client.Fleet) (string, string, any) {
			return f.Name, f.ID, identityModel{WorkspaceID: types.StringValue(ws), FleetID: types.StringValue(f.ID)}
		},
		func(f *client.Fleet, res *tfsdk.Resource) diag.Diagnostics {
			return fillFleetDevices(ws, f, byFleet[f.ID], res)
		})
}

// fillFleetDevices sets res to the zdm_fleet_devices of the devices of
// fleet f, keyed by name, as the read after an import makes it.
func fillFleetDevices(ws string, f *client.Fleet, all []client.Device, res *tfsdk.Resource) diag.Diagnostics {
	var diags diag.Diagnostics
	o := fleetDevicesObject{workspaceID: protoval.KnownString(ws), fleetID: protoval.KnownString(f.ID), fleetName: protoval.KnownString(f.Name),
		allowDuplicates: protoval.Bool{Null: true},
		parallelism:     protoval.Int{N: defaultDeviceParallelism}, includeDetails: protoval.Bool{}, devices: protoval.StringMap{M: map[string]protoval.String{}}}
	found, shared := fleetDevicesByKey(all, f.ID, false)
	if len(shared) > 0 {
		dups := objects.QuoteAll(slices.Sorted(maps.Keys(shared)))
		diags.AddWarning("Devices of fleet "+connection.Quote(f.ID)+" share names",
			fmt.Sprintf("The fleet holds several devices named %s, so its devices cannot be keyed by name: this result "+
				"keeps one device per name. Import the fleet with the ID \"%s/%s/by-id\" to key its devices by ID.",
				devices.ListSome(dups), ws, f.ID))
	}
	o.setFound(found) // as the read after an import by identity
	res.Raw = o.value()
	return diags
}
