// Package connection holds what the provider's configuration makes and every
// resource, data source, list resource and action shares at run time: the
// configured API client (ProviderData), the batched reads of devices and
// fleets, the proof that a workspace is visible before a 404 counts, the
// objects the resources own, the registries a family keeps per
// configuration (Registry), the option rules (durations, environment
// variable names), and the quoting every message uses. It knows no resource:
// nothing here names a Terraform type of the provider.
package connection
