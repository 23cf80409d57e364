package connection

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The validators of the connection settings (base_url, storage_url,
// max_requests_per_second, the poll intervals): each calls the check that
// Configure also applies, so a plan fails with the same message.

// ServiceURLValidator checks base_url and storage_url with checkServiceURL. Plain http
// to a host that is not a loopback address needs insecure_http, read from the
// same configuration (or ZDM_INSECURE_HTTP when the attribute is null).
type ServiceURLValidator struct{}

var _ validator.String = ServiceURLValidator{}

func (ServiceURLValidator) Description(context.Context) string {
	return `must be an absolute http(s) URL with a host and a path that is empty, "/" or "/v3"; ` +
		"plain http needs a loopback host or insecure_http = true"
}

func (v ServiceURLValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (ServiceURLValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
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
		if env, ok := os.LookupEnv(EnvInsecureHTTP); ok {
			// An unreadable value is reported by Configure.
			allow, _ = ParseBool(env)
		}
	}
	if err := CheckServiceURL(req.ConfigValue.ValueString(), allow); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			"The value of "+req.Path.String()+" "+err.Error()+".")
	}
}

// DurationValidator checks a duration option (ParseDuration), at least
// Min when it is set.
type DurationValidator struct {
	// Min is the shortest value allowed, and Why the reason told to users
	// of a shorter one.
	Min time.Duration
	Why string
}

// PollIntervalValidator checks a poll_interval: at least MinPollInterval.
var PollIntervalValidator = DurationValidator{Min: MinPollInterval, Why: "each poll reads every device still awaited, " +
	"so polling more often only spends the API's request quota"}

var _ validator.String = DurationValidator{}

func (v DurationValidator) Description(context.Context) string {
	if v.Min > 0 {
		return fmt.Sprintf(`must be a duration of at least %q, such as "30s" or "2m"`, v.Min.String())
	}
	return `must be a positive duration such as "30s" or "2m"`
}

func (v DurationValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v DurationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := ParseDuration(req.ConfigValue.ValueString())
	if err == nil && d < v.Min {
		err = fmt.Errorf("%q is shorter than the minimum, %q: %s", req.ConfigValue.ValueString(), v.Min.String(), v.Why)
	}
	if err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			"The value of "+req.Path.String()+" "+err.Error()+".")
	}
}

// MaxRequestsPerSecondValidator validates max_requests_per_second
// (CheckMaxRequestsPerSecond).
type MaxRequestsPerSecondValidator struct{}

var _ validator.Float64 = MaxRequestsPerSecondValidator{}

func (MaxRequestsPerSecondValidator) Description(context.Context) string {
	return "must be a number greater than 0"
}

func (v MaxRequestsPerSecondValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (MaxRequestsPerSecondValidator) ValidateFloat64(_ context.Context, req validator.Float64Request, resp *validator.Float64Response) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := CheckMaxRequestsPerSecond(req.ConfigValue.ValueFloat64()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+req.Path.String(),
			"The value of "+req.Path.String()+" "+err.Error()+".")
	}
}
