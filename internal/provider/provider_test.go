package provider

import (
	"context"
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"

	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

func TestProviderSchemaDescriptions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := New("test")()
	var resp fwprovider.SchemaResponse
	p.Schema(ctx, fwprovider.SchemaRequest{}, &resp)
	envs := map[string]string{
		"base_url": connection.EnvBaseURL, "storage_url": connection.EnvStorageURL, "api_key": connection.EnvAPIKey, "workspace_id": connection.EnvWorkspaceID,
		"request_timeout": connection.EnvRequestTimeout, "max_retries": connection.EnvMaxRetries, "insecure_http": connection.EnvInsecureHTTP,
		"max_requests_per_second": connection.EnvMaxRequests,
	}
	for name, a := range resp.Schema.Attributes {
		if !regexp.MustCompile("`" + envs[name] + "`").MatchString(a.GetMarkdownDescription()) {
			t.Errorf("description of %s does not name %s", name, envs[name])
		}
	}
	if len(resp.Schema.Attributes) != len(envs) {
		t.Errorf("provider has %d attributes, want %d", len(resp.Schema.Attributes), len(envs))
	}
	if !resp.Schema.Attributes["api_key"].IsSensitive() {
		t.Error("api_key is not sensitive")
	}
}

func TestAccProviderValidation(t *testing.T) {
	e := acctest.NewEnv(t)
	block := func(attrs string) string {
		return fmt.Sprintf(`
provider "zdm" {
  api_key = "k"
  %s
}
data "zdm_workspaces" "all" {}
`, attrs)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:      block(`base_url = "http://api.example.com"`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid base_url.*insecure_http`),
			},
			{
				Config:      block(`base_url = "https://api.example.com/v2"`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid base_url.*the path "/v2"`),
			},
			{
				Config: block(`base_url = "https://api.example.com"
					storage_url = "storage.example.com"`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid storage_url.*must start with https://`),
			},
			{
				Config: block(`base_url = "https://api.example.com"
					request_timeout = "soon"`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid request_timeout.*duration`),
			},
			{
				Config: block(`base_url = "https://api.example.com"
					max_retries = 21`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)max_retries.*between 0 and 20`),
			},
		},
	})
}

// max_requests_per_second is accepted by the CLI and the provider reads with
// it; the environment variable is validated at plan when the attribute is
// not set (the attribute itself: TestAccBadInput).
func TestAccProviderMaxRequestsPerSecond(t *testing.T) {
	e := acctest.NewEnv(t)
	block := func(attrs string) string {
		return fmt.Sprintf(`
provider "zdm" {
  base_url = %q
  api_key  = %q
  %s
}
data "zdm_workspaces" "all" {}
`, e.Server.BaseURL(), e.Bootstrap.APIKey, attrs)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: block(`max_requests_per_second = 2.5`),
				Check:  resource.TestCheckResourceAttrSet("data.zdm_workspaces.all", "workspaces.#"),
			},
			{
				PreConfig:   func() { t.Setenv(connection.EnvMaxRequests, "0") },
				Config:      block(``),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid ` + connection.EnvMaxRequests + `.*max_requests_per_second.*greater than 0`),
			},
			{
				// The attribute wins over the variable.
				Config: block(`max_requests_per_second = 40`),
			},
		},
	})
}

func TestAccProviderBadKey(t *testing.T) {
	e := acctest.NewEnv(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:      e.ProviderConfigWithKey("not-a-key") + `data "zdm_workspaces" "all" {}`,
				ExpectError: regexp.MustCompile(`401`),
			},
		},
	})
}

// TestAccProviderUnknownConfig configures the provider with a key known only
// at apply time: planning must not report missing values.
func TestAccProviderUnknownConfig(t *testing.T) {
	e := acctest.NewEnv(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config: fmt.Sprintf(`
resource "terraform_data" "key" {
  input = %q
}
provider "zdm" {
  base_url     = %q
  api_key      = terraform_data.key.output
  workspace_id = %q
}
resource "zdm_fleet" "test" {
  name = "late"
}
`, e.Bootstrap.APIKey, e.Server.BaseURL(), e.Bootstrap.WorkspaceID),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("zdm_fleet.test", plancheck.ResourceActionCreate),
						plancheck.ExpectUnknownValue("zdm_fleet.test", tfjsonpath.New("workspace_id")),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("zdm_fleet.test", tfjsonpath.New("workspace_id"),
						knownvalue.StringExact(e.Bootstrap.WorkspaceID)),
				},
			},
		},
	})
}

// TestAccConnectionErrors: a base_url where nothing listens, and an https://
// base_url of a plain-HTTP server, fail the plan at once (no retry), naming
// base_url and ZDM_BASE_URL and what to fix. The control: the same key and
// workspace at the server's real address read the workspace.
func TestAccConnectionErrors(t *testing.T) {
	e := acctest.NewEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	_ = ln.Close()
	plainAsHTTPS := "https://" + strings.TrimPrefix(e.Server.BaseURL(), "http://")
	config := func(baseURL string) string {
		return fmt.Sprintf(`
provider "zdm" {
  base_url      = %q
  api_key       = %q
  workspace_id  = %q
  insecure_http = true
  max_retries   = 5
}
data "zdm_workspace" "test" {
  id = %q
}
`, baseURL, e.Bootstrap.APIKey, e.Bootstrap.WorkspaceID, e.Bootstrap.WorkspaceID)
	}
	before := e.Server.TotalRequests()
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{
				Config:      config(closed),
				ExpectError: regexp.MustCompile(`(?s)cannot connect.*nothing accepts connections.*base_url.*ZDM_BASE_URL`),
			},
			{
				Config:      config(plainAsHTTPS),
				ExpectError: regexp.MustCompile(`(?s)answers plain HTTP, not HTTPS.*http://.*insecure_http`),
			},
			{
				Config: config(e.Server.BaseURL()),
				Check:  resource.TestCheckResourceAttr("data.zdm_workspace.test", "id", e.Bootstrap.WorkspaceID),
			},
		},
	})
	if n := e.Server.TotalRequests() - before; n == 0 {
		t.Fatalf("the control made no request")
	}
}
