package kit

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
)

// Schema attributes shared by the data sources.

// WorkspaceAttributes are the read-only attributes of a workspace in data
// sources; lookup attributes are made optional by the caller.
func WorkspaceAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":          schema.StringAttribute{MarkdownDescription: "Workspace ID.", Computed: true},
		"name":        schema.StringAttribute{MarkdownDescription: "Workspace name.", Computed: true},
		"description": schema.StringAttribute{MarkdownDescription: "Workspace description.", Computed: true},
		"account_id":  schema.StringAttribute{MarkdownDescription: "ID of the account that owns the workspace.", Computed: true},
		"created_at":  schema.StringAttribute{MarkdownDescription: "Creation time (RFC 3339).", Computed: true},
	}
}

// LookupAttribute is an optional string that selects the object to read.
func LookupAttribute(description string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: description,
		Optional:            true,
		Computed:            true,
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1), validators.NotBlank{}},
	}
}

// FleetAttributes are the read-only attributes of a fleet in data sources.
func FleetAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":           schema.StringAttribute{MarkdownDescription: "Fleet ID.", Computed: true},
		"workspace_id": schema.StringAttribute{MarkdownDescription: "ID of the workspace of the fleet.", Computed: true},
		"name":         schema.StringAttribute{MarkdownDescription: "Fleet name.", Computed: true},
		"description":  schema.StringAttribute{MarkdownDescription: "Fleet description.", Computed: true},
		"account_id":   schema.StringAttribute{MarkdownDescription: "ID of the account that owns the fleet.", Computed: true},
		"created_at":   schema.StringAttribute{MarkdownDescription: "Creation time (RFC 3339).", Computed: true},
	}
}

// WorkspaceLookupAttribute is the workspace_id of data sources that read in
// one workspace.
func WorkspaceLookupAttribute() schema.StringAttribute {
	return LookupAttribute("ID of the workspace to read from; defaults to the provider's `workspace_id`.")
}

// DeviceAttributes are the read-only attributes of a device in data sources.
func DeviceAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id":             schema.StringAttribute{MarkdownDescription: "Device ID.", Computed: true},
		"workspace_id":   schema.StringAttribute{MarkdownDescription: "ID of the workspace of the device.", Computed: true},
		"name":           schema.StringAttribute{MarkdownDescription: "Device name.", Computed: true},
		"fleet_id":       schema.StringAttribute{MarkdownDescription: "ID of the fleet of the device.", Computed: true},
		"fleet_name":     schema.StringAttribute{MarkdownDescription: "Name of the fleet of the device.", Computed: true},
		"workspace_name": schema.StringAttribute{MarkdownDescription: "Name of the workspace of the device.", Computed: true},
		"account_id":     schema.StringAttribute{MarkdownDescription: "ID of the account that owns the device.", Computed: true},
		"created_at":     schema.StringAttribute{MarkdownDescription: "Creation time (RFC 3339).", Computed: true},
		"phys_id":        schema.StringAttribute{MarkdownDescription: "Physical device ID.", Computed: true},
		"identities": schema.StringAttribute{
			MarkdownDescription: "Identities of the device as a JSON array (decode it with `jsondecode`); null when it has none.",
			Computed:            true,
		},
	}
}

// DeviceIDAttribute is the required device_id of the job and firmware data
// sources.
func DeviceIDAttribute(description string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: description,
		Required:            true,
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1), validators.NotBlank{}},
	}
}

// JobItemAttributes are the read-only attributes of a job in data sources.
func JobItemAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"name": schema.StringAttribute{MarkdownDescription: "Job name.", Computed: true},
		"status": schema.StringAttribute{
			MarkdownDescription: "Job status: `pending` until the device has run the job, then `done`.",
			Computed:            true,
		},
		"scheduled_at": schema.StringAttribute{
			MarkdownDescription: "When the job was (last) scheduled (RFC 3339).",
			Computed:            true,
		},
		"value": schema.StringAttribute{
			MarkdownDescription: "Arguments of the job, as compact JSON text with the keys of every object sorted (the " +
				"same text whatever order the service answers them in; decode it with `jsondecode`); `null` when " +
				"the service does not echo them.",
			Computed: true,
		},
	}
}
