package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Schema attributes shared by the resources.

// jobValueAttribute is the value attribute of the job resources.
func jobValueAttribute(what string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "Arguments of the job: a JSON object, best written with `jsonencode({...})`; `{}` when " +
			"not set. The JSON is checked at plan time. Changing the value " + what + " with the new value; " +
			"reformatting it (white space, order of keys) changes nothing.",
		Optional:      true,
		Computed:      true,
		Validators:    []validator.String{jsonObject{}},
		PlanModifiers: []planmodifier.String{jsonValuePlan{}},
	}
}

// triggersAttribute is the triggers attribute of the scheduling resources.
func triggersAttribute(what string) schema.MapAttribute {
	return schema.MapAttribute{
		MarkdownDescription: "Arbitrary strings (such as a release tag or a timestamp) that " + what + " again, in " +
			"place, whenever any of them changes; the service does not see them.",
		ElementType: types.StringType,
		Optional:    true,
	}
}

// fleetIDsAttribute is the fleet_ids attribute of the fleet-wide resources.
func fleetIDsAttribute(description string) schema.SetAttribute {
	return schema.SetAttribute{
		MarkdownDescription: description,
		ElementType:         types.StringType,
		Optional:            true,
		Validators: []validator.Set{
			setvalidator.SizeAtLeast(1),
			setvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1), notBlank{}),
		},
	}
}

// allFleetsAttribute is the all_fleets attribute of the fleet-wide
// scheduling resources; what names what is scheduled ("the job").
func allFleetsAttribute(what string) schema.BoolAttribute {
	return schema.BoolAttribute{
		MarkdownDescription: "Set to `true` to schedule " + what + " on every fleet of `workspace_id`. It is never " +
			"implied: without it, `fleet_ids` must name the fleets. Setting it on a resource scheduled on every " +
			"fleet before it existed sends nothing again.",
		Optional: true,
	}
}
