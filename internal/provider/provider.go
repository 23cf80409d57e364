// Package provider implements the zdm Terraform provider: its configuration,
// resources and data sources.
package provider

import (
	"context"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices"
	"github.com/zdm/terraform-provider-zdm/internal/service/devices/fleetdevices"
	"github.com/zdm/terraform-provider-zdm/internal/service/firmware"
	"github.com/zdm/terraform-provider-zdm/internal/service/fleets"
	"github.com/zdm/terraform-provider-zdm/internal/service/jobs"
	"github.com/zdm/terraform-provider-zdm/internal/service/rollouts"
	"github.com/zdm/terraform-provider-zdm/internal/service/timeseries"
)

var (
	_ provider.Provider                  = (*zdmProvider)(nil)
	_ provider.ProviderWithListResources = (*zdmProvider)(nil)
	_ provider.ProviderWithActions       = (*zdmProvider)(nil)
)

// New returns a constructor of the provider; version is the release version
// ("dev" for local builds, "test" in acceptance tests).
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &zdmProvider{version: version}
	}
}

// zdmProvider is the zdm provider.
type zdmProvider struct {
	version string
	// data is what Configure made, for the resources served at the
	// protocol level (server.go); nil before configuration.
	data atomic.Pointer[connection.ProviderData]
}

func (p *zdmProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "zdm"
	resp.Version = p.version
}

// Resources lists the resources of the provider, one constructor per line.
func (p *zdmProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		fleets.NewWorkspaceResource,
		fleets.NewFleetResource,
		devices.NewDeviceResource,
		jobs.NewDeviceJobResource,
		firmware.NewFOTAResource,
		jobs.NewFleetJobResource,
		rollouts.NewFOTARolloutResource,
		rollouts.NewJobRolloutResource,
		fleetdevices.NewResource,
	}
}

// DataSources lists the data sources of the provider, one constructor per line.
func (p *zdmProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		fleets.NewWorkspaceDataSource,
		fleets.NewWorkspacesDataSource,
		fleets.NewFleetDataSource,
		fleets.NewFleetsDataSource,
		devices.NewDeviceDataSource,
		devices.NewDevicesDataSource,
		jobs.NewDeviceJobsDataSource,
		jobs.NewDeviceJobDataSource,
		firmware.NewFOTAStatusDataSource,
		fleets.NewFleetStatusDataSource,
		timeseries.NewTimeseriesDataSource,
	}
}

// ListResources lists the list resources of the provider, one constructor per line.
func (p *zdmProvider) ListResources(context.Context) []func() list.ListResource {
	return []func() list.ListResource{
		fleets.NewWorkspaceListResource,
		fleets.NewFleetListResource,
		devices.NewDeviceListResource,
		jobs.NewDeviceJobListResource,
		fleetdevices.NewListResource,
	}
}

// Actions lists the actions of the provider, one constructor per line.
func (p *zdmProvider) Actions(context.Context) []func() action.Action {
	return []func() action.Action{
		jobs.NewScheduleJobAction,
		firmware.NewScheduleFOTAAction,
		rollouts.NewFOTARolloutAction,
		rollouts.NewJobRolloutAction,
	}
}
