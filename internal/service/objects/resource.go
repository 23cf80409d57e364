package objects

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
)

// ResourceBase gives a resource its type name and the provider's
// configuration: a resource embeds it and sets TypeSuffix.
type ResourceBase struct {
	// TypeSuffix follows the provider's type name: "_fleet".
	TypeSuffix string
	// Data is what the provider's Configure made; nil before it is known.
	Data *connection.ProviderData
}

// Metadata implements resource.Resource.
func (b *ResourceBase) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + b.TypeSuffix
}

// Configure implements resource.ResourceWithConfigure.
func (b *ResourceBase) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	b.Data = connection.ConfigureData("Resource", req.ProviderData, &resp.Diagnostics)
}

// DataSourceBase gives a data source its type name and the provider's
// configuration: a data source embeds it and sets TypeSuffix.
type DataSourceBase struct {
	// TypeSuffix follows the provider's type name: "_fleet".
	TypeSuffix string
	// Data is what the provider's Configure made; nil before it is known.
	Data *connection.ProviderData
}

// Metadata implements datasource.DataSource.
func (b *DataSourceBase) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + b.TypeSuffix
}

// Configure implements datasource.DataSourceWithConfigure.
func (b *DataSourceBase) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	b.Data = connection.ConfigureData("Data Source", req.ProviderData, &resp.Diagnostics)
}

// ObjectResourceInterfaces are the interfaces of the resource of an object
// the service creates and reads but cannot delete (zdm_workspace,
// zdm_fleet, zdm_device).
type ObjectResourceInterfaces interface {
	resource.ResourceWithConfigure
	resource.ResourceWithImportState
	resource.ResourceWithModifyPlan
	resource.ResourceWithIdentity
}

// The attributes that the resources of objects share; what names the
// object in their descriptions ("fleet"), What the same capitalized.

// IDAttribute is the id that the service assigns.
func IDAttribute(What string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: What + " ID, assigned by the service.",
		Computed:            true,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

// AccountIDAttribute is the account that owns the object.
func AccountIDAttribute(what string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "ID of the account that owns the " + what + ".",
		Computed:            true,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

// CreatedAtAttribute is the creation time of the object.
func CreatedAtAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "Creation time (RFC 3339).",
		Computed:            true,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

// ReplacingNameAttribute is a name whose change replaces the object.
func ReplacingNameAttribute(what, What string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: What + " name; must not be blank. Changing it **replaces** the " + what + " " +
			"(the old one stays in the service).",
		Required:      true,
		Validators:    validators.NotEmpty(),
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
}

// ReplacingDescriptionAttribute is a description whose change replaces the
// object.
func ReplacingDescriptionAttribute(what, What string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: What + " description; defaults to the empty string. Changing it **replaces** " +
			"the " + what + " (the old one stays in the service, with the same name), so the plan refuses the change " +
			"unless `" + AllowDuplicateNamesAttr + "` is `true`: keep the description, or give the new " + what +
			" another name too.",
		Optional:      true,
		Computed:      true,
		Default:       stringdefault.StaticString(""),
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
}

// WorkspaceIDAttribute is the workspace of an object in a workspace: the
// provider's by default, used only at creation (see PlanWorkspace).
func WorkspaceIDAttribute(what string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "ID of the workspace of the " + what + "; defaults to the provider's `workspace_id`. " +
			"The provider's `workspace_id` is used only when the " + what + " is created: a later change of it never " +
			"moves nor replaces the " + what + " (a plan-time warning names both workspaces). Changing this attribute " +
			"**replaces** the " + what + " (the old one stays in the service). An API key is bound to one workspace: " +
			"a workspace other than the provider's needs a provider alias with that workspace's key.",
		Optional:   true,
		Computed:   true,
		Validators: validators.NotEmpty(),
		PlanModifiers: []planmodifier.String{
			stringplanmodifier.UseStateForUnknown(),
			stringplanmodifier.RequiresReplace(),
		},
	}
}

// NamedObjectAttributes are the attributes of an object that the service
// names and describes and that a change of either replaces (a workspace, a
// fleet): id, name, description, account_id and created_at, with more.
func NamedObjectAttributes(what, What string, more map[string]schema.Attribute) map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"id":          IDAttribute(What),
		"name":        ReplacingNameAttribute(what, What),
		"description": ReplacingDescriptionAttribute(what, What),
		"account_id":  AccountIDAttribute(what),
		"created_at":  CreatedAtAttribute(),
	}
	for k, a := range more {
		attrs[k] = a
	}
	return attrs
}
