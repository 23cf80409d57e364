package validators

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// The validators of values that mean the same in any provider. Those of the
// connection settings are in package connection (validators.go).

// NotBlank rejects strings made only of white space.
type NotBlank struct{}

var _ validator.String = NotBlank{}

func (NotBlank) Description(context.Context) string {
	return "must contain at least one character that is not white space"
}

func (v NotBlank) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v NotBlank) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if strings.TrimSpace(req.ConfigValue.ValueString()) == "" {
		AddBlankValueError(req.Path, &resp.Diagnostics)
	}
}

// AddBlankValueError reports a value of the attribute at p made only of
// white space (notBlank's error, also raised by checks outside the
// framework's validators).
func AddBlankValueError(p path.Path, diags *diag.Diagnostics) {
	diags.AddAttributeError(p, "Blank value", "The value of "+p.String()+" "+NotBlank{}.Description(context.Background())+".")
}

// Rfc3339 validates a time in RFC 3339 format.
type Rfc3339 struct{}

var _ validator.String = Rfc3339{}

func (Rfc3339) Description(context.Context) string {
	return `must be a time in RFC 3339 format, such as "2025-01-31T12:00:00Z"`
}

func (v Rfc3339) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v Rfc3339) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := ParseRFC3339(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			"The value of "+req.Path.String()+", "+quote(req.ConfigValue.ValueString())+", "+v.Description(ctx)+".")
	}
}

func ParseRFC3339(s string) (time.Time, error) {
	return time.Parse(time.RFC3339Nano, s)
}

// RegexString checks that a string is a valid RE2 regular expression.
type RegexString struct{}

var _ validator.String = RegexString{}

func (RegexString) Description(context.Context) string {
	return "must be a valid regular expression (RE2 syntax)"
}

func (v RegexString) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v RegexString) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := regexp.Compile(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			"The value of "+req.Path.String()+" "+v.Description(ctx)+": "+err.Error()+".")
	}
}

// quote returns s in Go syntax, as the messages of the provider quote values.
func quote(s string) string {
	return fmt.Sprintf("%q", s)
}

// NotEmpty are the validators of a string that must hold a character that
// is not white space: the framework's own message for an empty string,
// NotBlank's for a blank one.
func NotEmpty() []validator.String {
	return []validator.String{stringvalidator.LengthAtLeast(1), NotBlank{}}
}

// NotEmptySet are the validators of a set of NotEmpty strings that must
// hold at least one.
func NotEmptySet() []validator.Set {
	return []validator.Set{setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(NotEmpty()...)}
}
