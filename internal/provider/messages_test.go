// The provider: the messages of a wrong workspace_id, base_url and storage_url swapped, and an api_key not accepted.

package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
)

// TestAccMessageWorkspaceNotFound: a workspace_id the service does not have
// (a typo in the provider block or ZDM_WORKSPACE_ID) fails naming
// workspace_id and ZDM_WORKSPACE_ID, not with a bare "404 workspace not
// found". The control plans the same device in the real workspace.
func TestAccMessageWorkspaceNotFound(t *testing.T) {
	env := acctest.NewEnv(t)
	provider := func(ws string) string {
		return fmt.Sprintf(`
provider "zdm" {
  base_url     = %q
  storage_url  = %q
  api_key      = %q
  workspace_id = %q
}
resource "zdm_device" "d" {
  name = "sensor-01"
}
`, env.Server.BaseURL(), env.Server.StorageURL(), env.Bootstrap.APIKey, ws)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: env.Factories,
		Steps: []resource.TestStep{{
			Config:      provider("wks-00000000000000ff"),
			ExpectError: acctest.ErrorPattern(`"wks-00000000000000ff"`, `workspace_id`, `ZDM_WORKSPACE_ID`),
		}, {
			Config:             provider(env.Bootstrap.WorkspaceID),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}

// TestAccMessageURLsSwapped: base_url and storage_url swapped make the
// storage service answer the management paths with "no route": the error
// says to check both settings. The control reads the same data source with
// the URLs in place.
func TestAccMessageURLsSwapped(t *testing.T) {
	env := acctest.NewEnv(t)
	config := func(base, storage string) string {
		return fmt.Sprintf(`
provider "zdm" {
  base_url     = %q
  storage_url  = %q
  api_key      = %q
  workspace_id = %q
}
data "zdm_workspaces" "all" {}
`, base, storage, env.Bootstrap.APIKey, env.Bootstrap.WorkspaceID)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: env.Factories,
		Steps: []resource.TestStep{{
			Config:      config(env.Server.StorageURL(), env.Server.BaseURL()),
			ExpectError: acctest.ErrorPattern(`404`, `no such path`, `base_url`, `storage_url`, `swapped`),
		}, {
			Config: config(env.Server.BaseURL(), env.Server.StorageURL()),
		}},
	})
}

// TestAccMessageWrongKeyAtPlan: a plan that creates objects reads the
// service before any create (the check for names already taken), so a key
// the service does not accept fails that plan, naming api_key and
// ZDM_API_KEY, for a device and for a fleet. The control plans the same
// creates with the right key.
func TestAccMessageWrongKeyAtPlan(t *testing.T) {
	env := acctest.NewEnv(t)
	config := func(key, resources string) string {
		return fmt.Sprintf(`
provider "zdm" {
  base_url     = %q
  storage_url  = %q
  api_key      = %q
  workspace_id = %q
}
%s
`, env.Server.BaseURL(), env.Server.StorageURL(), key, env.Bootstrap.WorkspaceID, resources)
	}
	const device = `resource "zdm_device" "d" { name = "sensor-01" }`
	const fleet = `resource "zdm_fleet" "f" { name = "east" }`
	wrong := "zdmk_" + strings.Repeat("0badc0de", 5)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: env.Factories,
		Steps: []resource.TestStep{{
			Config:      config(wrong, device),
			PlanOnly:    true,
			ExpectError: acctest.ErrorPattern(`API key not accepted`, `api_key`, `ZDM_API_KEY`),
		}, {
			Config:      config(wrong, fleet),
			PlanOnly:    true,
			ExpectError: acctest.ErrorPattern(`API key not accepted`, `api_key`, `ZDM_API_KEY`),
		}, {
			Config:             config(env.Bootstrap.APIKey, device+"\n"+fleet),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}

// TestAccMessageURLsWrongAtPlan: a plan that creates reads the service
// before any create (the check for names already taken, which fails closed),
// so base_url and storage_url swapped, and an https:// base_url in front of
// a plain-HTTP server, fail that plan, naming the setting and the fix; the
// control plans the same create with the right URLs.
func TestAccMessageURLsWrongAtPlan(t *testing.T) {
	env := acctest.NewEnv(t)
	config := func(base, storage string) string {
		return fmt.Sprintf(`
provider "zdm" {
  base_url     = %q
  storage_url  = %q
  api_key      = %q
  workspace_id = %q
}
resource "zdm_fleet" "f" {
  name = "urls-at-plan"
}
`, base, storage, env.Bootstrap.APIKey, env.Bootstrap.WorkspaceID)
	}
	https := strings.Replace(env.Server.BaseURL(), "http://", "https://", 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: env.Factories,
		Steps: []resource.TestStep{{
			Config:      config(env.Server.StorageURL(), env.Server.BaseURL()),
			PlanOnly:    true,
			ExpectError: acctest.ErrorPattern(`Cannot check for fleets`, `404`, `base_url`, `storage_url`, `swapped`),
		}, {
			Config:      config(https, env.Server.StorageURL()),
			PlanOnly:    true,
			ExpectError: acctest.ErrorPattern(`Cannot check for fleets`, `plain HTTP`, `http://`),
		}, {
			Config:             config(env.Server.BaseURL(), env.Server.StorageURL()),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}
