package kit

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// Every validator of the provider.

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

// ServiceURL checks base_url and storage_url with checkServiceURL. Plain http
// to a host that is not a loopback address needs insecure_http, read from the
// same configuration (or ZDM_INSECURE_HTTP when the attribute is null).
type ServiceURL struct{}

var _ validator.String = ServiceURL{}

func (ServiceURL) Description(context.Context) string {
	return `must be an absolute http(s) URL with a host and a path that is empty, "/" or "/v3"; ` +
		"plain http needs a loopback host or insecure_http = true"
}

func (v ServiceURL) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (ServiceURL) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	var insecure types.Bool
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("insecure_http"), &insecure)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if insecure.IsUnknown() {
		// Decided at apply time; Configure checks again.
		insecure = types.BoolValue(true)
	}
	allow := insecure.ValueBool()
	if insecure.IsNull() {
		if env, ok := os.LookupEnv(connection.EnvInsecureHTTP); ok {
			// An unreadable value is reported by Configure.
			allow, _ = connection.ParseBool(env)
		}
	}
	if err := connection.CheckServiceURL(req.ConfigValue.ValueString(), allow); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			"The value of "+req.Path.String()+" "+err.Error()+".")
	}
}

// Duration checks a duration option (connection.ParseDuration), at least
// Min when it is set.
type Duration struct {
	// Min is the shortest value allowed, and Why the reason told to users
	// of a shorter one.
	Min time.Duration
	Why string
}

// PollInterval checks a poll_interval: at least connection.MinPollInterval.
var PollInterval = Duration{Min: connection.MinPollInterval, Why: "each poll reads every device still awaited, " +
	"so polling more often only spends the API's request quota"}

var _ validator.String = Duration{}

func (v Duration) Description(context.Context) string {
	if v.Min > 0 {
		return fmt.Sprintf(`must be a duration of at least %q, such as "30s" or "2m"`, v.Min.String())
	}
	return `must be a positive duration such as "30s" or "2m"`
}

func (v Duration) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v Duration) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := connection.ParseDuration(req.ConfigValue.ValueString())
	if err == nil && d < v.Min {
		err = fmt.Errorf("%q is shorter than the minimum, %q: %s", req.ConfigValue.ValueString(), v.Min.String(), v.Why)
	}
	if err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			"The value of "+req.Path.String()+" "+err.Error()+".")
	}
}

// MaxRequestsPerSecond validates max_requests_per_second
// (connection.CheckMaxRequestsPerSecond).
type MaxRequestsPerSecond struct{}

var _ validator.Float64 = MaxRequestsPerSecond{}

func (MaxRequestsPerSecond) Description(context.Context) string {
	return "must be a number greater than 0"
}

func (v MaxRequestsPerSecond) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (MaxRequestsPerSecond) ValidateFloat64(_ context.Context, req validator.Float64Request, resp *validator.Float64Response) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := connection.CheckMaxRequestsPerSecond(req.ConfigValue.ValueFloat64()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			"The value of "+req.Path.String()+" "+err.Error()+".")
	}
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
			"The value of "+req.Path.String()+", "+connection.Quote(req.ConfigValue.ValueString())+", "+v.Description(ctx)+".")
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
