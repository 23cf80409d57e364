package provider

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
)

// providerModel maps the provider block.
type providerModel struct {
	BaseURL        types.String  `tfsdk:"base_url"`
	StorageURL     types.String  `tfsdk:"storage_url"`
	APIKey         types.String  `tfsdk:"api_key"`
	WorkspaceID    types.String  `tfsdk:"workspace_id"`
	RequestTimeout types.String  `tfsdk:"request_timeout"`
	MaxRetries     types.Int64   `tfsdk:"max_retries"`
	InsecureHTTP   types.Bool    `tfsdk:"insecure_http"`
	MaxRequests    types.Float64 `tfsdk:"max_requests_per_second"`
}

func (p *zdmProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	urlValidators := []validator.String{connection.ServiceURLValidator{}}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Manages workspaces, fleets and devices of the ZDM device management service " +
			"and reads them back. Every attribute falls back to an environment variable when it is not set.",
		Attributes: map[string]schema.Attribute{
			"base_url": schema.StringAttribute{
				MarkdownDescription: "Address of the device management service, such as `https://api.example.com` " +
					"(with or without the `/v3` version segment). Falls back to `" + connection.EnvBaseURL + "`. Required " +
					"in one of the two places. Plain `http` is accepted for loopback hosts, or for any host with `insecure_http`.",
				Optional:   true,
				Validators: urlValidators,
			},
			"storage_url": schema.StringAttribute{
				MarkdownDescription: "Address of the time-series storage service (with or without `/v3`). " +
					"Falls back to `" + connection.EnvStorageURL + "`. May be omitted when no data source reads stored data.",
				Optional:   true,
				Validators: urlValidators,
			},
			"api_key": schema.StringAttribute{
				MarkdownDescription: "API key sent in the `X-API-KEY` header. A key is bound to one workspace. " +
					"Falls back to `" + connection.EnvAPIKey + "`. Required in one of the two places. Never logged nor stored in state.",
				Optional:   true,
				Sensitive:  true,
				Validators: validators.NotEmpty(),
			},
			"workspace_id": schema.StringAttribute{
				MarkdownDescription: "Default workspace of resources and data sources that take a `workspace_id`; " +
					"normally the workspace the API key is bound to. Falls back to `" + connection.EnvWorkspaceID + "`.",
				Optional:   true,
				Validators: validators.NotEmpty(),
			},
			"request_timeout": schema.StringAttribute{
				MarkdownDescription: "Time limit of one HTTP attempt, as a duration such as `\"60s\"` or `\"2m\"`. " +
					"Defaults to `60s`. Falls back to `" + connection.EnvRequestTimeout + "`.",
				Optional:   true,
				Validators: []validator.String{connection.DurationValidator{}},
			},
			"max_retries": schema.Int64Attribute{
				MarkdownDescription: "How many times a request is retried after a rate limit (429), an unavailable " +
					"service (503) or a connection error, from 0 to 20. Defaults to 5. Falls back to `" + connection.EnvMaxRetries + "`.",
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(connection.MinRetries, connection.MaxRetries)},
			},
			"max_requests_per_second": schema.Float64Attribute{
				MarkdownDescription: "The most requests a second this provider configuration sends, both services together, " +
					"whether or not the service refuses any: requests start at least `1 / max_requests_per_second` seconds apart. " +
					"For jobs that share one API key, and so its rate limit, without seeing each other: give each the limit " +
					"divided by the jobs that run at once (a limit of 20 requests a second shared by 8 jobs: `2.5`). " +
					"A number greater than 0. Unset, the provider sends as fast as the service accepts, and paces itself to its " +
					"rate limit once it refuses a request or says what is left of it. Falls back to `" + connection.EnvMaxRequests + "`.",
				Optional:   true,
				Validators: []validator.Float64{connection.MaxRequestsPerSecondValidator{}},
			},
			"insecure_http": schema.BoolAttribute{
				MarkdownDescription: "Allow plain `http` addresses for hosts that are not loopback addresses. " +
					"Defaults to `false`. Falls back to `" + connection.EnvInsecureHTTP + "`.",
				Optional: true,
			},
		},
	}
}

func (p *zdmProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if cfg.BaseURL.IsUnknown() || cfg.StorageURL.IsUnknown() || cfg.APIKey.IsUnknown() ||
		cfg.WorkspaceID.IsUnknown() || cfg.RequestTimeout.IsUnknown() || cfg.MaxRetries.IsUnknown() ||
		cfg.InsecureHTTP.IsUnknown() || cfg.MaxRequests.IsUnknown() {
		// Known only at apply time: Terraform configures the provider again then.
		tflog.Debug(ctx, "provider configuration has unknown values; configuring later")
		return
	}

	settings, diags := resolveSettings(cfg, os.LookupEnv)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}

	key := settings.apiKey
	ctx = maskKey(ctx, key)
	c, err := client.New(client.Config{
		BaseURL:              settings.baseURL,
		StorageURL:           settings.storageURL,
		APIKey:               key,
		UserAgent:            userAgent(p.version, req.TerraformVersion, os.Getenv("TF_APPEND_USER_AGENT")),
		RequestTimeout:       settings.requestTimeout,
		MaxRetries:           settings.clientRetries(),
		Logger:               clientLogger(key),
		MaxRequestsPerSecond: settings.maxRequests,
	})
	if err != nil {
		resp.Diagnostics.AddError("Cannot create the ZDM client", err.Error())
		return
	}
	tflog.Debug(ctx, "configured the ZDM client", map[string]any{
		"base_url":                settings.baseURL,
		"storage_url":             settings.storageURL,
		"workspace_id":            settings.workspaceID,
		"max_retries":             settings.maxRetries,
		"max_requests_per_second": settings.maxRequests,
	})

	data := &connection.ProviderData{Client: c, WorkspaceID: settings.workspaceID, HasStorage: settings.storageURL != "",
		Visible: connection.NewVisibility(c)}
	data.Batch = connection.NewBatchedReads(c, data.SawWorkspace)
	p.data.Store(data)
	resp.ResourceData = data
	resp.DataSourceData = data
	resp.ListResourceData = data
	resp.ActionData = data
}

// settings are the provider values after the environment fallbacks.
type settings struct {
	baseURL, storageURL, apiKey, workspaceID string
	requestTimeout                           time.Duration // 0: client default
	maxRetries                               int
	maxRetriesSet                            bool
	insecureHTTP                             bool
	maxRequests                              float64 // 0: none
}

// resolveSettings applies the environment fallbacks (looked up with lookup)
// to the known configuration cfg and checks the result. Each missing or
// invalid value gives one error naming the attribute and its variable.
func resolveSettings(cfg providerModel, lookup func(string) (string, bool)) (settings, diag.Diagnostics) {
	var s settings
	var diags diag.Diagnostics

	// str returns the configured value, or the variable env when the
	// attribute is null, and whether the value came from the environment.
	str := func(v types.String, env string) (string, bool) {
		if !v.IsNull() {
			return v.ValueString(), false
		}
		e, _ := lookup(env)
		return e, true
	}

	if !cfg.InsecureHTTP.IsNull() {
		s.insecureHTTP = cfg.InsecureHTTP.ValueBool()
	} else if e, ok := lookup(connection.EnvInsecureHTTP); ok && e != "" {
		b, err := connection.ParseBool(e)
		if err != nil {
			diags.AddAttributeError(path.Root("insecure_http"), "Invalid "+connection.EnvInsecureHTTP,
				describeSource("insecure_http", connection.EnvInsecureHTTP, true)+" "+err.Error()+".")
		}
		s.insecureHTTP = b
	}

	var fromEnv bool
	s.baseURL, fromEnv = str(cfg.BaseURL, connection.EnvBaseURL)
	if s.baseURL == "" {
		diags.AddAttributeError(path.Root("base_url"), "Missing base_url",
			"Set base_url in the provider block or the "+connection.EnvBaseURL+" environment variable "+
				"to the address of the device management service.")
	} else if err := connection.CheckServiceURL(s.baseURL, s.insecureHTTP); err != nil {
		diags.AddAttributeError(path.Root("base_url"), "Invalid base_url",
			describeSource("base_url", connection.EnvBaseURL, fromEnv)+" "+err.Error()+".")
	}

	s.storageURL, fromEnv = str(cfg.StorageURL, connection.EnvStorageURL)
	if s.storageURL != "" {
		if err := connection.CheckServiceURL(s.storageURL, s.insecureHTTP); err != nil {
			diags.AddAttributeError(path.Root("storage_url"), "Invalid storage_url",
				describeSource("storage_url", connection.EnvStorageURL, fromEnv)+" "+err.Error()+".")
		}
	}

	s.apiKey, _ = str(cfg.APIKey, connection.EnvAPIKey)
	if strings.TrimSpace(s.apiKey) == "" {
		diags.AddAttributeError(path.Root("api_key"), "Missing api_key",
			"Set api_key in the provider block or the "+connection.EnvAPIKey+" environment variable "+
				"to an API key of the workspace.")
	}

	s.workspaceID, _ = str(cfg.WorkspaceID, connection.EnvWorkspaceID)
	s.workspaceID = strings.TrimSpace(s.workspaceID)

	if timeout, fromEnv := str(cfg.RequestTimeout, connection.EnvRequestTimeout); timeout != "" {
		d, err := connection.ParseDuration(timeout)
		if err != nil {
			diags.AddAttributeError(path.Root("request_timeout"), "Invalid request_timeout",
				describeSource("request_timeout", connection.EnvRequestTimeout, fromEnv)+" "+err.Error()+".")
		}
		s.requestTimeout = d
	}

	if !cfg.MaxRetries.IsNull() {
		s.maxRetries, s.maxRetriesSet = int(cfg.MaxRetries.ValueInt64()), true
	} else if e, ok := lookup(connection.EnvMaxRetries); ok && e != "" {
		n, err := connection.ParseMaxRetries(e)
		if err != nil {
			diags.AddAttributeError(path.Root("max_retries"), "Invalid "+connection.EnvMaxRetries,
				describeSource("max_retries", connection.EnvMaxRetries, true)+" "+err.Error()+".")
		}
		s.maxRetries, s.maxRetriesSet = n, true
	}

	if !cfg.MaxRequests.IsNull() {
		s.maxRequests = cfg.MaxRequests.ValueFloat64()
	} else if e, ok := lookup(connection.EnvMaxRequests); ok && e != "" {
		f, err := connection.ParseMaxRequestsPerSecond(e)
		if err != nil {
			diags.AddAttributeError(path.Root("max_requests_per_second"), "Invalid "+connection.EnvMaxRequests,
				describeSource("max_requests_per_second", connection.EnvMaxRequests, true)+" "+err.Error()+".")
		}
		s.maxRequests = f
	}
	return s, diags
}

// clientRetries maps max_retries to client.Config.MaxRetries, where 0 means
// the default and a negative value means no retries.
func (s settings) clientRetries() int {
	switch {
	case !s.maxRetriesSet:
		return 0
	case s.maxRetries == 0:
		return -1
	default:
		return s.maxRetries
	}
}

// describeSource names where a value came from, to start an error message.
func describeSource(attr, env string, fromEnv bool) string {
	if fromEnv {
		return "The " + env + " environment variable (used because " + attr + " is not set)"
	}
	return "The value of " + attr
}

// clientLogger returns the client's log adapter: each entry is written
// with every occurrence of key in its message and its text fields masked,
// and the fields that name a key masked whole, as maskKey has tflog do.
// The masking is done here, on the entry, because tflog would need a new
// context per entry and mask before it checks the level: for the entry of
// every API request, that cost 10 % of the provider's CPU in the create of
// 300,000 devices, for entries nobody reads.
func clientLogger(key string) func(ctx context.Context, msg string, fields map[string]any) {
	hide := func(s string) string {
		if key == "" || !strings.Contains(s, key) {
			return s
		}
		return strings.ReplaceAll(s, key, "***")
	}
	return func(ctx context.Context, msg string, fields map[string]any) {
		for k, v := range fields {
			switch v := v.(type) {
			case string:
				if slices.ContainsFunc(keyFields, func(f string) bool { return strings.EqualFold(f, k) }) {
					fields[k] = "***"
				} else {
					fields[k] = hide(v)
				}
			case error:
				fields[k] = hide(v.Error())
			}
		}
		tflog.Debug(ctx, hide(msg), fields)
	}
}

// keyFields are the names of log fields whose values are masked whole.
var keyFields = []string{"api_key", "X-API-KEY", "x-api-key"}

// maskKey returns ctx with every logged occurrence of key masked.
func maskKey(ctx context.Context, key string) context.Context {
	ctx = tflog.MaskFieldValuesWithFieldKeys(ctx, keyFields...)
	if key == "" {
		return ctx
	}
	ctx = tflog.MaskAllFieldValuesStrings(ctx, key)
	return tflog.MaskMessageStrings(ctx, key)
}

// userAgent builds the User-Agent header sent to the services.
func userAgent(providerVersion, terraformVersion, appended string) string {
	if terraformVersion == "" {
		terraformVersion = "unknown"
	}
	ua := fmt.Sprintf("terraform-provider-zdm/%s (+https://www.terraform.io) Terraform/%s", providerVersion, terraformVersion)
	if a := strings.TrimSpace(appended); a != "" {
		ua += " " + a
	}
	return ua
}
