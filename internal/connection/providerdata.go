package connection

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// What resources, data sources, list resources and actions receive from
// the provider's Configure, and the default workspace rules.

// ConfigureData turns the ProviderData handed to Configure of a resource or
// data source (named kind, such as "Resource") into *providerData. It returns
// nil without error before the provider is configured, and when the provider
// configuration had values unknown at plan time.
func ConfigureData(kind string, data any, diags *diag.Diagnostics) *ProviderData {
	if data == nil {
		return nil
	}
	d, ok := data.(*ProviderData)
	if !ok {
		diags.AddError("Unexpected "+kind+" Configure Type",
			fmt.Sprintf("Expected *providerData, got %T. Please report this issue to the provider developers.", data))
		return nil
	}
	return d
}

// NotConfigured is the error of an operation that needs the API before the
// provider could be configured.
func NotConfigured(diags *diag.Diagnostics) {
	diags.AddError("Provider not configured",
		"The zdm provider has no API client: its configuration was not known when this operation ran. "+
			"Make sure base_url and api_key (or ZDM_BASE_URL and ZDM_API_KEY) are known before apply.")
}

// ProviderData is what resources and data sources receive from Configure.
type ProviderData struct {
	Client *client.Client
	// WorkspaceID is the default workspace; empty when not configured.
	WorkspaceID string
	// HasStorage tells whether storage_url was configured.
	HasStorage bool
	// Batch answers reads of devices and fleets from shared list calls.
	Batch batchedReads
	// Visible remembers which workspaces this base_url and key were shown
	// to see (see visibility.go).
	Visible *visibility
	// owned holds the objects the resources manage (see owned.go).
	owned ownedIDs
	// registries hold, per configuration of the provider (one graph walk),
	// what a family remembers between calls: see registry.
	registries sync.Map
}

// Registry returns the registry of type T of this configuration of the
// provider, a zero T on first use. A family keeps there what it must
// remember between calls of one graph walk (devices claimed twice, objects
// created in part, schedulings whose wait failed) without the connection
// knowing what it holds: each family's registry type is its own key.
func Registry[T any](d *ProviderData) *T {
	key := reflect.TypeFor[T]()
	v, ok := d.registries.Load(key)
	if !ok {
		v, _ = d.registries.LoadOrStore(key, new(T))
	}
	r, _ := v.(*T) // stored under its own type's key
	return r
}
