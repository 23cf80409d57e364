package objects

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"

	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
)

// Schema attributes shared by the data sources.

// LookupAttribute is an optional string that selects the object to read.
func LookupAttribute(description string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: description,
		Optional:            true,
		Computed:            true,
		Validators:          validators.NotEmpty(),
	}
}

// WorkspaceLookupAttribute is the workspace_id of data sources that read in
// one workspace.
func WorkspaceLookupAttribute() schema.StringAttribute {
	return LookupAttribute("ID of the workspace to read from; defaults to the provider's `workspace_id`.")
}

// DeviceIDAttribute is the required device_id of the job and firmware data
// sources.
func DeviceIDAttribute(description string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: description,
		Required:            true,
		Validators:          validators.NotEmpty(),
	}
}
