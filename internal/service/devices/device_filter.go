package devices

import (
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
)

// The device filters of the zdm_devices data source and the zdm_device list
// resource: one model, one set of descriptions and validators, one match.

// deviceFilterModel holds the filter arguments; both models embed it.
type deviceFilterModel struct {
	FleetID    types.String `tfsdk:"fleet_id"`
	Name       types.String `tfsdk:"name"`
	NamePrefix types.String `tfsdk:"name_prefix"`
	NameRegex  types.String `tfsdk:"name_regex"`
	PhysID     types.String `tfsdk:"phys_id"`
}

// deviceFilterArg describes one filter argument in either schema package.
type deviceFilterArg struct {
	Description string
	Validators  []validator.String
}

// deviceFilterArgs are the filter arguments by name.
func deviceFilterArgs() map[string]deviceFilterArg {
	notEmpty := validators.NotEmpty()
	return map[string]deviceFilterArg{
		"fleet_id": {Description: "Only the devices of this fleet.", Validators: notEmpty},
		"name": {
			Description: "Only the devices with exactly this name. Conflicts with `name_prefix` and `name_regex`.",
			Validators:  notEmpty,
		},
		"name_prefix": {
			Description: "Only the devices whose name starts with this prefix (case-sensitive). Conflicts with " +
				"`name` and `name_regex`.",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"name_regex": {
			Description: "Only the devices whose name matches this regular expression " +
				"([RE2 syntax](https://github.com/google/re2/wiki/Syntax), unanchored: use `^...$` to match " +
				"the whole name). Checked before any API call. Conflicts with `name` and `name_prefix`.",
			Validators: []validator.String{validators.RegexString{}},
		},
		"phys_id": {
			Description: "Only the devices with exactly this physical ID (`phys_id`, the ID printed on the hardware).",
			Validators:  notEmpty,
		},
	}
}

// deviceNameFilters are the filters that conflict with each other.
func deviceNameFilters() []path.Expression {
	return []path.Expression{path.MatchRoot("name"), path.MatchRoot("name_prefix"), path.MatchRoot("name_regex")}
}

// matcher returns the filter as a function; every filter that is set must
// match. The error is that of an invalid name_regex.
func (f deviceFilterModel) matcher() (func(*client.Device) bool, error) {
	fleet, name, prefix, phys := f.FleetID.ValueString(), f.Name.ValueString(), f.NamePrefix.ValueString(),
		f.PhysID.ValueString()
	var re *regexp.Regexp
	if !f.NameRegex.IsNull() {
		var err error
		if re, err = regexp.Compile(f.NameRegex.ValueString()); err != nil {
			return nil, err
		}
	}
	return func(d *client.Device) bool {
		return (fleet == "" || d.FleetID() == fleet) &&
			(name == "" || d.Name == name) &&
			(prefix == "" || strings.HasPrefix(d.Name, prefix)) &&
			(re == nil || re.MatchString(d.Name)) &&
			(phys == "" || d.PhysID == phys)
	}, nil
}
